import { describe, expect, it } from 'vitest';
import { classify, isExpense, isRefuel, MemoryStore, Outbox, PARENT_ID, queuedBytes, recordsWaiting, type OutboxItem, type SendOutcome } from './outbox';

const noLock = <T>(fn: () => Promise<T>) => fn();

function item(key: string, createdAt: string) {
  return {
    key,
    method: 'POST' as const,
    path: '/api/refuels',
    body: `{"n":"${key}"}`,
    createdAt,
    summary: { vehicle_id: 1, refuel_time: createdAt, odometer: '1', liters: '1', total_amount: '1', energy: 'gasoline', unit: 'l', is_full: true, station_name: '' },
  };
}

/** A sender that answers from a script and records every request it got. */
function scripted(outcomes: Record<string, SendOutcome[]>) {
  const calls: { key: string; body: string }[] = [];
  const sender = (i: OutboxItem) => {
    calls.push({ key: i.key, body: i.body });
    const next = outcomes[i.key]?.shift();
    if (!next) return Promise.reject(new Error('no scripted answer for ' + i.key));
    return Promise.resolve(next);
  };
  return { calls, sender };
}

describe('classify', () => {
  it.each([
    [200, 'sent'],
    [204, 'sent'],
    [0, 'retry'],
    [408, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
    [401, 'unauthorized'],
    [400, 'rejected'],
    [403, 'rejected'],
    [404, 'rejected'],
    [413, 'rejected'],
  ] as const)('%i -> %s', (status, want) => {
    expect(classify(status)).toBe(want);
  });
});

describe('Outbox', () => {
  it('sends pending items oldest first and removes them', async () => {
    const store = new MemoryStore();
    const { calls, sender } = scripted({ a: [{ kind: 'sent', body: {} }], b: [{ kind: 'sent', body: {} }] });
    const box = new Outbox(store, sender, noLock);
    await box.add(item('b', '2026-03-01T09:00:00Z'));
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    const r = await box.flush();
    expect(r).toEqual({ sent: ['a', 'b'], rejected: [], blocked: false, unauthorized: false });
    expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
    expect(await box.items()).toEqual([]);
  });

  it('keeps an item whose answer was lost and resends the same key and bytes', async () => {
    const store = new MemoryStore();
    const { calls, sender } = scripted({ a: [{ kind: 'retry', message: 'no answer' }, { kind: 'sent', body: {} }] });
    const box = new Outbox(store, sender, noLock);
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    expect(await box.flush()).toEqual({ sent: [], rejected: [], blocked: true, unauthorized: false });
    const [left] = await box.items();
    expect(left?.state).toBe('pending');
    expect(left?.attempts).toBe(1);
    expect(await box.flush()).toEqual({ sent: ['a'], rejected: [], blocked: false, unauthorized: false });
    expect(calls).toEqual([{ key: 'a', body: '{"n":"a"}' }, { key: 'a', body: '{"n":"a"}' }]);
  });

  it('stops a pass at the first item that cannot be sent now (order is kept)', async () => {
    const { calls, sender } = scripted({ a: [{ kind: 'retry', message: 'offline' }], b: [{ kind: 'sent', body: {} }] });
    const box = new Outbox(new MemoryStore(), sender, noLock);
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    await box.add(item('b', '2026-03-01T09:00:00Z'));
    await box.flush();
    expect(calls.map((c) => c.key)).toEqual(['a']);
  });

  it('a thrown sender error counts as no answer', async () => {
    const box = new Outbox(new MemoryStore(), () => Promise.reject(new TypeError('Failed to fetch')), noLock);
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    expect((await box.flush()).blocked).toBe(true);
    expect((await box.items())[0]?.state).toBe('pending');
  });

  it('a 4xx marks the item as needing attention, and it is never sent again by itself', async () => {
    const { calls, sender } = scripted({ a: [{ kind: 'rejected', message: 'odometer: must be at least 0' }], b: [{ kind: 'sent', body: {} }] });
    const box = new Outbox(new MemoryStore(), sender, noLock);
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    await box.add(item('b', '2026-03-01T09:00:00Z'));
    expect(await box.flush()).toEqual({ sent: ['b'], rejected: ['a'], blocked: false, unauthorized: false });
    const [a] = await box.items();
    expect(a).toMatchObject({ key: 'a', state: 'attention', message: 'odometer: must be at least 0' });
    await box.flush();
    await box.flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
  });

  it('a 401 stops the pass and keeps every item pending, unchanged in bytes, until a later pass sends them once', async () => {
    const store = new MemoryStore();
    const { calls, sender } = scripted({
      a: [{ kind: 'unauthorized' }, { kind: 'sent', body: {} }],
      b: [{ kind: 'sent', body: {} }],
    });
    const box = new Outbox(store, sender, noLock);
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    await box.add(item('b', '2026-03-01T09:00:00Z'));
    expect(await box.flush()).toEqual({ sent: [], rejected: [], blocked: true, unauthorized: true });
    expect(calls.map((c) => c.key)).toEqual(['a']);
    expect((await box.items()).map((i) => [i.key, i.state, i.body])).toEqual([
      ['a', 'pending', '{"n":"a"}'],
      ['b', 'pending', '{"n":"b"}'],
    ]);
    // Signed in again: both go, oldest first, each once.
    expect(await box.flush()).toEqual({ sent: ['a', 'b'], rejected: [], blocked: false, unauthorized: false });
    expect(calls.map((c) => c.key)).toEqual(['a', 'a', 'b']);
    expect(calls[0]!.body).toBe(calls[1]!.body);
    expect(await box.items()).toEqual([]);
  });

  it("an item held for another user is skipped and kept; the pass goes on", async () => {
    const store = new MemoryStore();
    const { calls, sender } = scripted({ a: [{ kind: 'held' }], b: [{ kind: 'sent', body: {} }] });
    const box = new Outbox(store, sender, noLock);
    await box.add({ ...item('a', '2026-03-01T08:00:00Z'), owner: 7 });
    await box.add({ ...item('b', '2026-03-01T09:00:00Z'), owner: 8 });
    expect(await box.flush()).toEqual({ sent: ['b'], rejected: [], blocked: false, unauthorized: false });
    expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
    expect((await box.items()).map((i) => [i.key, i.state, i.owner, i.attempts])).toEqual([['a', 'pending', 7, 0]]);
  });

  it('retry puts an item needing attention back in line; discard removes it', async () => {
    const { calls, sender } = scripted({ a: [{ kind: 'rejected', message: 'bad' }, { kind: 'sent', body: {} }], b: [{ kind: 'rejected', message: 'bad' }] });
    const box = new Outbox(new MemoryStore(), sender, noLock);
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    await box.add(item('b', '2026-03-01T09:00:00Z'));
    await box.flush();
    await box.retry('a');
    expect((await box.items())[0]).toMatchObject({ key: 'a', state: 'pending', message: undefined });
    expect((await box.flush()).sent).toEqual(['a']);
    await box.discard('b');
    expect(await box.items()).toEqual([]);
    expect(calls.map((c) => c.key)).toEqual(['a', 'b', 'a']);
  });

  it('one pass at a time; a flush during a pass makes it look again', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls: string[] = [];
    const box = new Outbox(
      new MemoryStore(),
      async (i) => {
        calls.push(i.key);
        if (i.key === 'a') await gate;
        return { kind: 'sent', body: {} };
      },
      noLock,
    );
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    const first = box.flush();
    await box.add(item('b', '2026-03-01T09:00:00Z'));
    const second = box.flush();
    release();
    const [r1, r2] = await Promise.all([first, second]);
    expect(r1).toBe(r2);
    expect(r1.sent).toEqual(['a', 'b']);
    expect(calls).toEqual(['a', 'b']);
  });

  it('tells subscribers about changes', async () => {
    const box = new Outbox(new MemoryStore(), () => Promise.resolve({ kind: 'sent', body: {} }), noLock);
    let n = 0;
    const off = box.subscribe(() => n++);
    await box.add(item('a', '2026-03-01T08:00:00Z'));
    await box.flush();
    off();
    expect(n).toBeGreaterThanOrEqual(2);
  });
});

describe('kinds of items', () => {
  it('a queued change of preferences is not a refuel; an item from before kinds existed is', async () => {
    const store = new MemoryStore();
    const sent: string[] = [];
    const box = new Outbox(store, (i) => { sent.push(`${i.method} ${i.path}`); return Promise.resolve({ kind: 'sent', body: null }); }, noLock);
    const refuel = await box.add(item('a', '2026-03-01T08:00:00Z'));
    const prefs = await box.add({ key: 'b', kind: 'preferences', method: 'PUT', path: '/api/preferences', body: '{"distance_unit":"mi"}', createdAt: '2026-03-01T08:00:01Z' });
    expect([isRefuel(refuel), isRefuel(prefs)]).toEqual([true, false]);
    // Both go, in order, each with its own method.
    await box.flush();
    expect(sent).toEqual(['POST /api/refuels', 'PUT /api/preferences']);
  });
});

describe('Outbox: items waiting for a parent (receipts of an expense made offline)', () => {
  const expense = (key: string, createdAt: string) => ({ key, kind: 'expense' as const, method: 'POST' as const, path: '/api/expenses', body: `{"k":"${key}"}`, createdAt });
  const receipt = (key: string, parent: string, createdAt: string, size = 3) => ({
    key, kind: 'attachment' as const, method: 'POST' as const, path: `/api/expenses/${PARENT_ID}/attachments`, body: '', createdAt, parent,
    file: { name: `${key}.jpg`, type: 'image/jpeg', bytes: new ArrayBuffer(size) },
  });

  it('sends the parent, then its children to the id the service gave it, in the same pass', async () => {
    const paths: string[] = [];
    const sender = (i: OutboxItem) => {
      paths.push(`${i.key} ${i.path}`);
      return Promise.resolve<SendOutcome>({ kind: 'sent', body: i.key === 'e' ? { id: 42 } : { id: 7 } });
    };
    const box = new Outbox(new MemoryStore(), sender, noLock);
    await box.add(expense('e', '2026-03-01T08:00:00.000Z'));
    // Stored with the same instant and a key that sorts first: still sent after its parent.
    await box.add(receipt('a', 'e', '2026-03-01T08:00:00.000Z'));
    await box.add(receipt('r', 'e', '2026-03-01T08:00:00.001Z'));
    expect(await box.flush()).toEqual({ sent: ['e', 'r', 'a'], rejected: [], blocked: false, unauthorized: false });
    expect(paths).toEqual(['e /api/expenses', 'r /api/expenses/42/attachments', 'a /api/expenses/42/attachments']);
    expect(await box.items()).toEqual([]);
  });

  it('children wait while their parent cannot go, without holding up other items; a later pass sends them', async () => {
    const { calls, sender } = scripted({
      e: [{ kind: 'rejected', message: 'title: must not be empty' }, { kind: 'sent', body: { id: 5 } }],
      x: [{ kind: 'sent', body: {} }],
      r: [{ kind: 'sent', body: {} }],
    });
    const box = new Outbox(new MemoryStore(), sender, noLock);
    await box.add(expense('e', '2026-03-01T08:00:00Z'));
    await box.add(receipt('r', 'e', '2026-03-01T08:00:01Z'));
    await box.add(item('x', '2026-03-01T08:00:02Z'));
    expect(await box.flush()).toEqual({ sent: ['x'], rejected: ['e'], blocked: false, unauthorized: false });
    expect((await box.items()).map((i) => [i.key, i.state, i.path])).toEqual([
      ['e', 'attention', '/api/expenses'],
      ['r', 'pending', `/api/expenses/${PARENT_ID}/attachments`],
    ]);
    await box.retry('e');
    expect(await box.flush()).toEqual({ sent: ['e', 'r'], rejected: [], blocked: false, unauthorized: false });
    expect(calls.map((c) => c.key)).toEqual(['e', 'x', 'e', 'r']);
  });

  it('an answer without an id leaves the children waiting rather than guessing where they go', async () => {
    const { sender } = scripted({ e: [{ kind: 'sent', body: null }] });
    const box = new Outbox(new MemoryStore(), sender, noLock);
    await box.add(expense('e', '2026-03-01T08:00:00Z'));
    await box.add(receipt('r', 'e', '2026-03-01T08:00:01Z'));
    expect((await box.flush()).sent).toEqual(['e']);
    expect((await box.items()).map((i) => [i.key, i.parent])).toEqual([['r', 'e']]);
  });

  it('discarding the parent discards its children and theirs, nothing else', async () => {
    const box = new Outbox(new MemoryStore(), scripted({}).sender, noLock);
    await box.add(expense('e', '2026-03-01T08:00:00Z'));
    await box.add(receipt('g', 'r', '2026-03-01T08:00:02Z'));
    await box.add(receipt('r', 'e', '2026-03-01T08:00:01Z'));
    await box.add(expense('other', '2026-03-01T08:00:03Z'));
    await box.add(receipt('keep', 'other', '2026-03-01T08:00:04Z'));
    await box.discard('e');
    expect((await box.items()).map((i) => i.key)).toEqual(['other', 'keep']);
  });

  it('queuedBytes counts the files waiting', async () => {
    const box = new Outbox(new MemoryStore(), scripted({}).sender, noLock);
    await box.add(expense('e', '2026-03-01T08:00:00Z'));
    await box.add(receipt('r', 'e', '2026-03-01T08:00:01Z', 1000));
    await box.add(receipt('s', 'e', '2026-03-01T08:00:02Z', 24));
    expect(queuedBytes(await box.items())).toBe(1024);
    expect((await box.items()).filter(isExpense).map((i) => i.key)).toEqual([]);
  });
});

describe('Outbox: a child added after its parent was sent', () => {
  it('is addressed to the stored id at once', async () => {
    const { sender } = scripted({ e: [{ kind: 'sent', body: { id: 12 } }], r: [{ kind: 'sent', body: {} }] });
    const box = new Outbox(new MemoryStore(), sender, noLock);
    await box.add({ key: 'e', kind: 'expense', method: 'POST', path: '/api/expenses', body: '{}' });
    await box.flush();
    const r = await box.add({ key: 'r', kind: 'attachment', method: 'POST', path: `/api/expenses/${PARENT_ID}/attachments`, body: '', parent: 'e' });
    expect([r.path, r.parent]).toEqual(['/api/expenses/12/attachments', undefined]);
    expect((await box.flush()).sent).toEqual(['r']);
  });
});

describe('recordsWaiting', () => {
  const at = '2026-03-01T08:00:00Z';
  const of = (key: string, kind: OutboxItem['kind'], owner?: number, state: OutboxItem['state'] = 'pending'): OutboxItem =>
    ({ key, kind, owner, state, method: 'POST', path: '/x', body: '', createdAt: at, attempts: 0 });
  const items = [
    of('r1', undefined), of('r2', 'refuel', 7), of('e1', 'expense', 7, 'attention'), of('m1', 'reminder', 7),
    of('p1', 'attachment', 7), of('s1', 'preferences', 7), of('r3', 'refuel', 8),
  ];

  it("counts the user's refuels, expenses and reminders, refused ones too, not photos or preferences", () => {
    expect(recordsWaiting(items, 7)).toBe(4);
    expect(recordsWaiting(items, 8)).toBe(2);
  });

  it('with accounts off every record counts', () => {
    expect(recordsWaiting(items, undefined)).toBe(5);
  });
});
