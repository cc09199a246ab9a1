import { describe, expect, it } from 'vitest';
import { makeSender } from './send';
import { MemoryStore, Outbox, type OutboxItem } from './outbox';
import { MemoryKeyValue, Sessions, type Session } from '../api/session';

const future = new Date(Date.now() + 3_600_000).toISOString();
const alice: Session = { token: 'cs_alice', expiresAt: future, user: { id: 1, username: 'alice', is_admin: false } };
const noLock = <T>(fn: () => Promise<T>) => fn();

function item(key: string, owner?: number): Omit<OutboxItem, 'state' | 'attempts'> {
  return {
    key,
    method: 'POST',
    path: '/api/refuels',
    body: `{"odometer":${key.length}}`,
    createdAt: `2026-03-01T08:00:0${key.length}Z`,
    owner,
    summary: { vehicle_id: 1, refuel_time: '2026-03-01T08:00:00Z', odometer: '1', liters: '1', total_amount: '1', energy: 'gasoline', unit: 'l', is_full: true, station_name: '' },
  };
}

/** A server that accepts only tokenOk and records what it got. */
function server(tokenOk: () => string) {
  const got: { key: string; auth: string | undefined; body: string }[] = [];
  const fetchFn = (_url: string | URL | Request, init?: RequestInit) => {
    const h = init!.headers as Record<string, string>;
    got.push({ key: h['Idempotency-Key']!, auth: h.Authorization, body: init!.body as string });
    if (h.Authorization !== `Bearer ${tokenOk()}`) {
      return Promise.resolve(new Response('{"code":"UNAUTHORIZED","message":"a valid bearer token is required"}', { status: 401 }));
    }
    return Promise.resolve(new Response('{"id":1}', { status: 201 }));
  };
  return { got, fetchFn };
}

describe('outbox replay with accounts', () => {
  it('a revoked token keeps the queued writes; after the next sign-in each is sent once, with the new token', async () => {
    const kv = new MemoryKeyValue();
    const sessions = new Sessions(kv);
    const events: string[] = [];
    sessions.subscribe((e) => events.push(e));
    let valid = 'cs_alice';
    const srv = server(() => valid);
    const box = new Outbox(new MemoryStore(), makeSender(sessions, srv.fetchFn), noLock);
    await sessions.signIn(alice);
    await box.add(item('a', 1));
    await box.add(item('bb', 1));

    valid = 'revoked'; // logged out elsewhere
    const r1 = await box.flush();
    expect(r1).toEqual({ sent: [], rejected: [], blocked: true, unauthorized: true });
    expect(srv.got.map((g) => [g.key, g.auth])).toEqual([['a', 'Bearer cs_alice']]);
    expect(kv.map.has('session')).toBe(false);
    expect(events).toEqual(['signed-in', 'refused']);
    expect((await box.items()).map((i) => [i.key, i.state])).toEqual([['a', 'pending'], ['bb', 'pending']]);

    valid = 'cs_alice2';
    await sessions.signIn({ ...alice, token: 'cs_alice2' });
    const r2 = await box.flush();
    expect(r2).toEqual({ sent: ['a', 'bb'], rejected: [], blocked: false, unauthorized: false });
    expect(srv.got.map((g) => [g.key, g.auth])).toEqual([
      ['a', 'Bearer cs_alice'],
      ['a', 'Bearer cs_alice2'],
      ['bb', 'Bearer cs_alice2'],
    ]);
    expect(srv.got[0]!.body).toBe(srv.got[1]!.body);
    expect(await box.items()).toEqual([]);
  });

  it('signed out: an item made by a user is not sent at all, and the app is not told of a 401', async () => {
    const sessions = new Sessions(new MemoryKeyValue());
    const events: string[] = [];
    sessions.subscribe((e) => events.push(e));
    const srv = server(() => 'cs_alice');
    const box = new Outbox(new MemoryStore(), makeSender(sessions, srv.fetchFn), noLock);
    await box.add(item('a', 1));
    expect(await box.flush()).toEqual({ sent: [], rejected: [], blocked: true, unauthorized: true });
    expect(srv.got).toEqual([]);
    expect(events).toEqual([]);
    await sessions.signIn(alice);
    expect(await box.flush()).toEqual({ sent: ['a'], rejected: [], blocked: false, unauthorized: false });
    expect(srv.got.map((g) => [g.key, g.auth])).toEqual([['a', 'Bearer cs_alice']]);
  });

  it("another user's queued write is not sent with this user's token", async () => {
    const sessions = new Sessions(new MemoryKeyValue());
    const srv = server(() => 'cs_bob');
    const box = new Outbox(new MemoryStore(), makeSender(sessions, srv.fetchFn), noLock);
    await sessions.signIn({ token: 'cs_bob', expiresAt: future, user: { id: 2, username: 'bob', is_admin: false } });
    await box.add(item('a', 1));
    await box.add(item('bb', 2));
    await box.add(item('ccc'));
    expect(await box.flush()).toEqual({ sent: ['bb', 'ccc'], rejected: [], blocked: false, unauthorized: false });
    expect(srv.got.map((g) => g.key)).toEqual(['bb', 'ccc']);
    expect((await box.items()).map((i) => [i.key, i.owner])).toEqual([['a', 1]]);
  });
});

describe('outbox replay of an attachment', () => {
  it('sends the queued file as multipart/form-data, its one part "file", with the item’s key', async () => {
    const sessions = new Sessions(new MemoryKeyValue());
    let seen: { headers: Record<string, string>; body: unknown } | null = null;
    const fetchFn = (_url: string | URL | Request, init?: RequestInit) => {
      seen = { headers: init!.headers as Record<string, string>, body: init!.body };
      return Promise.resolve(new Response('{"id":9}', { status: 201 }));
    };
    const bytes = new TextEncoder().encode('%PDF-1.4 receipt').buffer;
    const box = new Outbox(new MemoryStore(), makeSender(sessions, fetchFn), noLock);
    await box.add({ key: 'k1', kind: 'attachment', method: 'POST', path: '/api/expenses/3/attachments', body: '', file: { name: 'receipt.pdf', type: 'application/pdf', bytes } });
    expect((await box.flush()).sent).toEqual(['k1']);
    const got = seen!;
    expect(got.headers['Idempotency-Key']).toBe('k1');
    expect(got.headers['Content-Type']).toBeUndefined();
    const part = (got.body as FormData).get('file') as File;
    expect(part.name).toBe('receipt.pdf');
    expect(part.type).toBe('application/pdf');
    expect(await part.text()).toBe('%PDF-1.4 receipt');
  });
});
