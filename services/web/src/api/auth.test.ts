import { beforeEach, describe, expect, it } from 'vitest';
import { acceptSsoFragment, newClientState, SSO_STATE_KEY, ssoErrorMessage, ssoStart, type SsoDeps } from './auth';
import { MemoryKeyValue, Sessions, type Session, type User } from './session';
import { setLanguage } from '../i18n';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const EXPIRES = '2026-11-25T12:00:00Z';
const alice: User = { id: 1, username: 'alice', is_admin: true, has_password: true };
const bob: User = { id: 2, username: 'bob', is_admin: false, has_password: false };
const aliceSession: Session = { token: 'cs_alice', expiresAt: EXPIRES, user: alice };

/** What sessionStorage is to the app: a Map, with what was asked of it. */
class FakeStorage {
  readonly map = new Map<string, string>();
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, v);
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
}

const fragment = (token: string, state?: string) =>
  `#token=${encodeURIComponent(token)}&expires_at=${encodeURIComponent(EXPIRES)}` + (state === undefined ? '' : `&client_state=${state}`);

let storage: FakeStorage;
let sessions: Sessions;
let asked: string[];
let answer: boolean;
let ended: string[];
let owners: Record<string, User>;

function deps(over: Partial<SsoDeps> = {}): SsoDeps {
  return {
    storage,
    oidc: true,
    sessions,
    confirm: (m) => {
      asked.push(m);
      return answer;
    },
    whose: (token) => (owners[token] ? Promise.resolve(owners[token]) : Promise.reject(new Error('401'))),
    end: (token) => {
      ended.push(token);
      return Promise.resolve();
    },
    ...over,
  };
}

/** started is what the sign-in button does: a new value kept in this tab. */
function started(): string {
  ssoStart(storage);
  return storage.getItem(SSO_STATE_KEY)!;
}

beforeEach(() => {
  setLanguage('en');
  storage = new FakeStorage();
  sessions = new Sessions(new MemoryKeyValue(), () => NOW);
  asked = [];
  answer = true;
  ended = [];
  owners = { cs_alice: alice, cs_bob: bob };
});

describe('the sign-in button', () => {
  it('keeps a new 32-byte base64url value and starts single sign-on with it', () => {
    const to = ssoStart(storage);
    const kept = storage.getItem(SSO_STATE_KEY)!;
    expect(kept).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to).toBe(`/api/auth/oidc/login?client_state=${kept}`);
    expect(new Set(Array.from({ length: 50 }, newClientState)).size).toBe(50);
  });
});

describe('acceptSsoFragment', () => {
  it('takes the token when the fragment brings back the value this tab kept, and forgets the value', async () => {
    const v = started();
    expect(await acceptSsoFragment(fragment('cs_bob', v), deps())).toBeNull();
    expect(await sessions.current()).toEqual({ token: 'cs_bob', expiresAt: EXPIRES, user: null });
    expect(storage.map.size).toBe(0);
    expect(asked).toEqual([]);
  });

  it('ignores a token with another value, and forgets the kept one', async () => {
    started();
    expect(await acceptSsoFragment(fragment('cs_bob', newClientState()), deps())).toBe('This sign-in link was not started from this browser and was ignored.');
    expect(await sessions.current()).toBeUndefined();
    expect(storage.map.size).toBe(0);
  });

  it('ignores a token without a value, or when this tab started nothing', async () => {
    started();
    expect(await acceptSsoFragment(fragment('cs_bob'), deps())).toMatch(/^This sign-in link was not started from this browser/);
    expect(await acceptSsoFragment(fragment('cs_bob', 'x'.repeat(43)), deps())).toMatch(/^This sign-in link was not started from this browser/);
    // An empty value in the fragment does not match "nothing kept" either.
    expect(await acceptSsoFragment(`${fragment('cs_bob')}&client_state=`, deps())).toMatch(/^This sign-in link was not started from this browser/);
    expect(await sessions.current()).toBeUndefined();
  });

  it('a value serves once: the same fragment again is ignored', async () => {
    const v = started();
    expect(await acceptSsoFragment(fragment('cs_bob', v), deps())).toBeNull();
    await sessions.signOut();
    expect(await acceptSsoFragment(fragment('cs_bob', v), deps())).toMatch(/^This sign-in link was not started from this browser/);
    expect(await sessions.current()).toBeUndefined();
  });

  it('with single sign-on off no token is taken, even with the right value', async () => {
    const v = started();
    expect(await acceptSsoFragment(fragment('cs_bob', v), deps({ oidc: false }))).toBe('This server has no single sign-on, so the sign-in link was ignored.');
    expect(await sessions.current()).toBeUndefined();
    expect(storage.map.size).toBe(0);
    // A link that this tab did not start is said to be so first.
    expect(await acceptSsoFragment(fragment('cs_bob', v), deps({ oidc: false }))).toMatch(/^This sign-in link was not started/);
    expect(await sessions.current()).toBeUndefined();
  });

  it('a storage that throws counts as nothing started', async () => {
    const broken = { getItem: () => { throw new Error('SecurityError'); }, removeItem: () => undefined };
    expect(await acceptSsoFragment(fragment('cs_bob', 'v'.repeat(43)), deps({ storage: broken }))).toMatch(/^This sign-in link was not started/);
    expect(await sessions.current()).toBeUndefined();
  });

  it('over another user\'s session it asks, naming both; declined, the session stays and the new token is ended', async () => {
    await sessions.signIn(aliceSession);
    answer = false;
    const v = started();
    expect(await acceptSsoFragment(fragment('cs_bob', v), deps())).toBe('You are still signed in as alice; the new sign-in was not used.');
    expect(asked).toEqual(['This browser is signed in as alice. Sign alice out here and sign in as bob?']);
    expect(await sessions.current()).toEqual(aliceSession);
    expect(ended).toEqual(['cs_bob']);
    expect(storage.map.size).toBe(0);
  });

  it('over another user\'s session, accepted: the new session replaces it, which is ended', async () => {
    await sessions.signIn(aliceSession);
    const v = started();
    expect(await acceptSsoFragment(fragment('cs_bob', v), deps())).toBeNull();
    expect(asked).toHaveLength(1);
    expect(await sessions.current()).toEqual({ token: 'cs_bob', expiresAt: EXPIRES, user: bob });
    expect(ended).toEqual(['cs_alice']);
  });

  it('asks without the new name when the new token\'s user cannot be told', async () => {
    await sessions.signIn(aliceSession);
    owners = { cs_alice: alice };
    answer = false;
    const v = started();
    await acceptSsoFragment(fragment('cs_bob', v), deps());
    expect(asked).toEqual(['This browser is signed in as alice. Sign alice out here and use the new single sign-on instead?']);
    expect(await sessions.current()).toEqual(aliceSession);
  });

  it('the same user signing in again (for a recent sign-in) is not asked; the old session is ended', async () => {
    await sessions.signIn(aliceSession);
    owners.cs_alice2 = alice;
    const v = started();
    expect(await acceptSsoFragment(fragment('cs_alice2', v), deps())).toBeNull();
    expect(asked).toEqual([]);
    expect(await sessions.current()).toEqual({ token: 'cs_alice2', expiresAt: EXPIRES, user: alice });
    expect(ended).toEqual(['cs_alice']);
  });

  it('an ignored link over a session neither asks nor changes it', async () => {
    await sessions.signIn(aliceSession);
    expect(await acceptSsoFragment(fragment('cs_bob', 'v'.repeat(43)), deps())).toMatch(/^This sign-in link was not started/);
    expect(asked).toEqual([]);
    expect(ended).toEqual([]);
    expect(await sessions.current()).toEqual(aliceSession);
  });

  it('an error is explained and uses up the kept value; no fragment leaves it', async () => {
    const v = started();
    expect(await acceptSsoFragment('', deps())).toBeNull();
    expect(storage.map.size).toBe(0);
    const w = started();
    expect(await acceptSsoFragment(`#error=not_allowed&client_state=${w}`, deps())).toBe(ssoErrorMessage('not_allowed'));
    expect(await acceptSsoFragment(fragment('cs_bob', w), deps())).toMatch(/^This sign-in link was not started/);
    expect(await sessions.current()).toBeUndefined();
    expect(v).not.toBe(w);
  });
});

describe('ssoErrorMessage', () => {
  it('says what each code means', () => {
    expect(ssoErrorMessage('not_allowed')).toBe('Your account at the identity provider may not sign up here: it is not on this server\'s list of allowed accounts. Ask whoever runs this CarHub to add it.');
    expect(ssoErrorMessage('oidc_not_allowed')).toBe(ssoErrorMessage('not_allowed'));
    expect(ssoErrorMessage('oidc_denied')).toBe('Single sign-on was cancelled or refused. You can try again.');
    expect(ssoErrorMessage('access_denied')).toBe(ssoErrorMessage('oidc_denied'));
    expect(ssoErrorMessage('oidc_nonce')).toBe('Single sign-on did not succeed (oidc_nonce). Try again, or sign in with your username and password.');
  });
});
