import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, request, retryAfterSeconds } from './http';
import { MemoryKeyValue, sessions } from './session';
import { authApi, readSsoFragment } from './auth';
import { loginError } from '../pages/Login';

interface Call {
  url: string;
  headers: Record<string, string>;
}

let calls: Call[];
let kv: MemoryKeyValue;
let events: string[];
let unsubscribe: () => void;

/** answer makes fetch record each request and answer with the given responses, in order. */
function answer(...responses: (() => Response)[]) {
  vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
    calls.push({ url, headers: init.headers as Record<string, string> });
    const next = responses.shift();
    if (!next) throw new Error('no answer scripted for ' + url);
    return Promise.resolve(next());
  });
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

const future = new Date(Date.now() + 3_600_000).toISOString();

beforeEach(() => {
  calls = [];
  events = [];
  kv = new MemoryKeyValue();
  sessions.useStore(kv);
  unsubscribe = sessions.subscribe((e) => events.push(e));
});

afterEach(() => {
  unsubscribe();
  vi.unstubAllGlobals();
});

describe('request with accounts', () => {
  it('sends no Authorization header without a session (accounts off)', async () => {
    answer(json(200, []));
    await request('GET', '/api/vehicles');
    expect(calls[0]!.headers).toEqual({ Accept: 'application/json' });
  });

  it('adds the bearer token of the session to every call', async () => {
    await sessions.signIn({ token: 'cs_1', expiresAt: future, user: { id: 1, username: 'a', is_admin: false } });
    answer(json(200, []), json(200, {}));
    await request('GET', '/api/vehicles');
    await request('POST', '/api/vehicles', { body: '{}' });
    expect(calls.map((c) => c.headers.Authorization)).toEqual(['Bearer cs_1', 'Bearer cs_1']);
  });

  it('a 401 clears the token, tells the app, and still fails the call', async () => {
    await sessions.signIn({ token: 'cs_1', expiresAt: future, user: null });
    answer(json(401, { code: 'UNAUTHORIZED', message: 'a valid bearer token is required' }, { 'WWW-Authenticate': 'Bearer realm="carhub"' }));
    const err = await request('GET', '/api/vehicles').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect(kv.map.has('session')).toBe(false);
    expect(events).toEqual(['signed-in', 'refused']);
  });

  it('other errors keep the session', async () => {
    await sessions.signIn({ token: 'cs_1', expiresAt: future, user: null });
    answer(json(403, { code: 'FORBIDDEN', message: 'this token may only read' }), json(404, { code: 'NOT_FOUND', message: 'x' }));
    await request('POST', '/api/vehicles').catch(() => undefined);
    await request('GET', '/api/vehicles/9').catch(() => undefined);
    expect(kv.map.has('session')).toBe(true);
    expect(events).toEqual(['signed-in']);
  });

  it('login sends no token, and its 401 (wrong password) is not the end of the session', async () => {
    await sessions.signIn({ token: 'cs_1', expiresAt: future, user: null });
    answer(json(401, { code: 'UNAUTHORIZED', message: 'wrong username or password' }));
    const err = await authApi.login('alice', 'wrong').catch((e: unknown) => e);
    expect(calls[0]!.headers.Authorization).toBeUndefined();
    expect(loginError(err)).toBe('Wrong username or password.');
    expect(kv.map.has('session')).toBe(true);
    expect(events).toEqual(['signed-in']);
  });

  it('login answers the session to keep', async () => {
    answer(json(200, { token: 'cs_2', expires_at: '2026-12-24T12:00:00Z', user: { id: 2, username: 'bob', is_admin: false } }));
    expect(await authApi.login('bob', 'pw')).toEqual({ token: 'cs_2', expiresAt: '2026-12-24T12:00:00Z', user: { id: 2, username: 'bob', is_admin: false } });
  });

  it('a throttled login says when to try again', async () => {
    answer(json(429, { code: 'RESOURCE_EXHAUSTED', message: 'login: too many requests, try again later' }, { 'Retry-After': '42' }));
    const err = await authApi.login('alice', 'pw').catch((e: unknown) => e);
    expect((err as ApiError).retryAfter).toBe(42);
    const msg = loginError(err, new Date('2026-11-24T12:00:00Z'));
    expect(msg).toMatch(/^Too many sign-in attempts\. Try again in 42 seconds \(at .+\)\.$/);
    expect(loginError(new ApiError(429, 'RESOURCE_EXHAUSTED', 'x', undefined, 150))).toMatch(/in 3 minutes/);
  });
});

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    expect(retryAfterSeconds('17', now)).toBe(17);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 12:01:00 GMT', now)).toBe(60);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
  });
});

describe('readSsoFragment', () => {
  it('reads an escaped token, its expiry and the client state, or an error', () => {
    expect(readSsoFragment('#token=cs_a%2Bb%3D&expires_at=2026-12-01T10%3A00%3A00Z&client_state=V_1-x')).toEqual({ kind: 'token', token: 'cs_a+b=', expiresAt: '2026-12-01T10:00:00Z', clientState: 'V_1-x' });
    expect(readSsoFragment('#token=cs_a&expires_at=2026-12-01T10%3A00%3A00Z')).toEqual({ kind: 'token', token: 'cs_a', expiresAt: '2026-12-01T10:00:00Z', clientState: null });
    expect(readSsoFragment('#error=access_denied&client_state=V')).toEqual({ kind: 'error', code: 'access_denied', clientState: 'V' });
    expect(readSsoFragment('#token=cs_a&expires_at=garbage')).toEqual({ kind: 'error', code: 'invalid_expiry', clientState: null });
    expect(readSsoFragment('#other=1')).toBeNull();
    expect(readSsoFragment('')).toBeNull();
  });
});
