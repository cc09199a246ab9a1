// The signed-in session (AUTH_MODE=local): the bearer token, its expiry and
// its user, kept in IndexedDB in a store of its own ("carhub-auth"), so the
// page and any service-worker code read the same token. Every API call and
// every outbox replay asks `sessions.headers()`; a 401 on a request sent with
// a token ends that session (`sessions.refused`) and the app shows the login
// screen again. Nothing else is cleared: queued writes stay in the outbox.
import { createStore, del, get, set, type UseStore } from 'idb-keyval';

export interface User {
  id: number;
  username: string;
  is_admin: boolean;
  /** false for an account made by single sign-on; absent in a session stored before the field. */
  has_password?: boolean;
}

export interface Session {
  token: string;
  /** RFC 3339, as the service answers it. */
  expiresAt: string;
  /** Unknown only between a single sign-on redirect and its /api/auth/me. */
  user: User | null;
}

/** What GET /api/auth/config answers. */
export interface AuthConfig {
  mode: 'off' | 'local';
  oidc: boolean;
}

/** Where the session and the last known auth config live (IndexedDB in the app, a Map in tests). */
export interface KeyValue {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  del(key: string): Promise<void>;
}

/** idbKeyValue opens the IndexedDB store on first use (never at import, so tests can load this module). */
export function idbKeyValue(db = 'carhub-auth', store = 'session'): KeyValue {
  let idb: UseStore | undefined;
  const s = () => (idb ??= createStore(db, store));
  return {
    get: (key) => get(key, s()),
    set: (key, value) => set(key, value, s()),
    del: (key) => del(key, s()),
  };
}

export class MemoryKeyValue implements KeyValue {
  readonly map = new Map<string, unknown>();
  get<T>(key: string) {
    return Promise.resolve(structuredClone(this.map.get(key)) as T | undefined);
  }
  set(key: string, value: unknown) {
    this.map.set(key, structuredClone(value));
    return Promise.resolve();
  }
  del(key: string) {
    this.map.delete(key);
    return Promise.resolve();
  }
}

const SESSION = 'session';
const CONFIG = 'config';

/** Why the session changed: the owner signed in or out, or the server refused the token. */
export type SessionEvent = 'signed-in' | 'signed-out' | 'refused';

export class Sessions {
  private readonly listeners = new Set<(e: SessionEvent) => void>();

  constructor(
    private kv: KeyValue,
    private readonly now: () => number = Date.now,
  ) {}

  /** useStore replaces the storage (tests). */
  useStore(kv: KeyValue): void {
    this.kv = kv;
  }

  subscribe(fn: (e: SessionEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: SessionEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  /** current is the stored session when its token has not expired, else undefined. */
  async current(): Promise<Session | undefined> {
    const s = await this.kv.get<Session>(SESSION).catch(() => undefined);
    if (!s || typeof s.token !== 'string' || s.token === '') return undefined;
    const end = Date.parse(s.expiresAt);
    if (!Number.isFinite(end) || end <= this.now()) return undefined;
    return s;
  }

  /** headers are what a request adds: the bearer token of a valid session, or nothing. */
  async headers(): Promise<Record<string, string>> {
    const s = await this.current();
    return s ? { Authorization: `Bearer ${s.token}` } : {};
  }

  async signIn(s: Session): Promise<void> {
    await this.kv.set(SESSION, s);
    this.emit('signed-in');
  }

  /** setUser records who the token belongs to (after a single sign-on, from /api/auth/me). */
  async setUser(token: string, user: User): Promise<void> {
    const s = await this.kv.get<Session>(SESSION);
    if (s?.token !== token) return;
    await this.kv.set(SESSION, { ...s, user });
  }

  async signOut(): Promise<void> {
    await this.kv.del(SESSION);
    this.emit('signed-out');
  }

  /**
   * refused handles a 401: the token the request carried (undefined: none)
   * is no longer good. The stored session is cleared only when it is still
   * that token, so a late answer to a request of an earlier session never
   * signs out the session that replaced it.
   */
  async refused(sentToken: string | undefined): Promise<void> {
    const s = await this.kv.get<Session>(SESSION).catch(() => undefined);
    if (s && sentToken !== undefined && s.token !== sentToken) return;
    if (s) await this.kv.del(SESSION);
    this.emit('refused');
  }

  /** The last auth config the server answered (for an offline start). */
  cachedConfig(): Promise<AuthConfig | undefined> {
    return this.kv.get<AuthConfig>(CONFIG).catch(() => undefined);
  }

  saveConfig(c: AuthConfig): Promise<void> {
    return this.kv.set(CONFIG, c).catch(() => undefined);
  }
}

/** tokenOf reads the token back from headers() (to tell which session a 401 refused). */
export function tokenOf(headers: Record<string, string>): string | undefined {
  const h = headers.Authorization;
  return h?.startsWith('Bearer ') ? h.slice('Bearer '.length) : undefined;
}

export const sessions = new Sessions(idbKeyValue());
