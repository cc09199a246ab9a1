import { describe, expect, it } from 'vitest';
import { MemoryStore, Outbox, PARENT_ID, type OutboxItem, type SendOutcome } from './outbox';
import { undoCreate } from './undo';

const noLock = <T>(fn: () => Promise<T>) => fn();

const refuel = { key: 'r1', method: 'POST' as const, path: '/api/refuels', body: '{}' };
const photo = { key: 'p1', kind: 'attachment' as const, method: 'POST' as const, path: `/api/refuels/${PARENT_ID}/attachments`, body: '', parent: 'r1' };

function boxAnswering(outcome: SendOutcome) {
  const sent: string[] = [];
  const box = new Outbox(new MemoryStore(), (i: OutboxItem) => {
    sent.push(i.key);
    return Promise.resolve(outcome);
  }, noLock);
  return { box, sent };
}

describe('undoCreate', () => {
  it('takes a record still waiting out of the outbox, with what waits for it, and deletes nothing', async () => {
    const { box } = boxAnswering({ kind: 'retry', message: 'offline' });
    await box.add(refuel);
    await box.add(photo);
    await box.flush();
    const deleted: string[] = [];
    expect(await undoCreate(box, 'r1', (id) => Promise.resolve(void deleted.push(id)))).toBe('discarded');
    expect(await box.items()).toEqual([]);
    expect(deleted).toEqual([]);
  });

  it('deletes a record already sent by the id the service answered', async () => {
    const { box } = boxAnswering({ kind: 'sent', body: { id: 42 } });
    await box.add(refuel);
    await box.flush();
    const deleted: string[] = [];
    expect(await undoCreate(box, 'r1', (id) => Promise.resolve(void deleted.push(id)))).toBe('deleted');
    expect(deleted).toEqual(['42']);
  });

  it('waits for a send under way, then deletes what it stored', async () => {
    let release!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    const sending = new Promise<void>((ok) => (started = ok));
    const box = new Outbox(new MemoryStore(), async () => {
      started();
      await gate;
      return { kind: 'sent', body: { id: 7 } };
    }, noLock);
    await box.add(refuel);
    const flushing = box.flush();
    await sending;
    expect(box.sending.has('r1')).toBe(true);
    const deleted: string[] = [];
    const undone = undoCreate(box, 'r1', (id) => Promise.resolve(void deleted.push(id)));
    release();
    await flushing;
    expect(await undone).toBe('deleted');
    expect(deleted).toEqual(['7']);
  });

  it('answers unknown for a key neither waiting nor sent by this tab', async () => {
    const { box } = boxAnswering({ kind: 'sent', body: {} });
    expect(await undoCreate(box, 'elsewhere', () => Promise.reject(new Error('not called')))).toBe('unknown');
  });

  it('passes on a failed delete', async () => {
    const { box } = boxAnswering({ kind: 'sent', body: { id: 3 } });
    await box.add(refuel);
    await box.flush();
    await expect(undoCreate(box, 'r1', () => Promise.reject(new Error('no connection')))).rejects.toThrow('no connection');
  });
});
