import { describe, expect, it } from 'vitest';
import { MemoryKeyValue, Sessions, tokenOf, type Session, type SessionEvent } from './session';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const alice: Session = { token: 'cs_alice', expiresAt: '2026-11-25T12:00:00Z', user: { id: 1, username: 'alice', is_admin: true } };

function setup() {
  const kv = new MemoryKeyValue();
  const s = new Sessions(kv, () => NOW);
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  return { kv, s, events };
}

describe('Sessions', () => {
  it('keeps the token, its expiry and its user, and adds the bearer header', async () => {
    const { kv, s, events } = setup();
    expect(await s.current()).toBeUndefined();
    expect(await s.headers()).toEqual({});
    await s.signIn(alice);
    expect(events).toEqual(['signed-in']);
    expect(kv.map.get('session')).toEqual(alice);
    expect(await s.current()).toEqual(alice);
    expect(await s.headers()).toEqual({ Authorization: 'Bearer cs_alice' });
  });

  it('an expired token is not sent (one millisecond before its end it still is)', async () => {
    const { s } = setup();
    await s.signIn({ ...alice, expiresAt: new Date(NOW + 1).toISOString() });
    expect(await s.headers()).toEqual({ Authorization: 'Bearer cs_alice' });
    await s.signIn({ ...alice, expiresAt: new Date(NOW).toISOString() });
    expect(await s.current()).toBeUndefined();
    expect(await s.headers()).toEqual({});
    await s.signIn({ ...alice, expiresAt: 'not a time' });
    expect(await s.headers()).toEqual({});
  });

  it('a 401 clears the session it refused, and tells the app', async () => {
    const { kv, s, events } = setup();
    await s.signIn(alice);
    await s.refused('cs_alice');
    expect(kv.map.has('session')).toBe(false);
    expect(events).toEqual(['signed-in', 'refused']);
  });

  it('a late 401 for an earlier token does not sign out the session that replaced it', async () => {
    const { kv, s, events } = setup();
    await s.signIn({ ...alice, token: 'cs_new' });
    await s.refused('cs_old');
    expect(kv.map.get('session')).toEqual({ ...alice, token: 'cs_new' });
    expect(events).toEqual(['signed-in']);
  });

  it('a 401 for a request sent without a token shows the login screen', async () => {
    const { s, events } = setup();
    await s.refused(undefined);
    expect(events).toEqual(['refused']);
  });

  it('signOut forgets the session; setUser fills in the user of the same token only', async () => {
    const { kv, s, events } = setup();
    await s.signIn({ ...alice, user: null });
    await s.setUser('cs_other', { id: 9, username: 'mallory', is_admin: false });
    expect((await s.current())?.user).toBeNull();
    await s.setUser('cs_alice', alice.user!);
    expect((await s.current())?.user).toEqual(alice.user);
    await s.signOut();
    expect(kv.map.has('session')).toBe(false);
    expect(events).toEqual(['signed-in', 'signed-out']);
  });

  it('caches the auth config for an offline start', async () => {
    const { s } = setup();
    expect(await s.cachedConfig()).toBeUndefined();
    await s.saveConfig({ mode: 'local', oidc: true });
    expect(await s.cachedConfig()).toEqual({ mode: 'local', oidc: true });
  });

  it('tokenOf reads the token back from the headers', () => {
    expect(tokenOf({ Authorization: 'Bearer cs_x' })).toBe('cs_x');
    expect(tokenOf({})).toBeUndefined();
  });
});
