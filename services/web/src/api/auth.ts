// fuel-service's account routes the client uses (proto-docs/fuel-service.openapi.yaml).
import { request } from './http';
import type { AuthConfig, Session, Sessions, User } from './session';
import { t } from '../i18n';

interface LoginAnswer {
  token: string;
  expires_at: string;
  user: User;
}

/** A session (a sign-in) or a personal access token, as GET /api/auth/tokens lists it. */
export interface TokenInfo {
  id: number;
  kind: 'session' | 'token';
  /** A token's name; "login" or "oidc" for a session. */
  name: string;
  scope: 'read' | 'write';
  created_at: string;
  last_used_at: string;
  expires_at: string | null;
  /** The token of the request that listed them: this device's session. */
  current: boolean;
}

/** Where single sign-on starts (a full-page navigation; it ends at /login#token=…&client_state=…). */
export const OIDC_LOGIN_PATH = '/api/auth/oidc/login';

export const authApi = {
  config: (signal?: AbortSignal) => request<AuthConfig>('GET', '/api/auth/config', { anonymous: true, signal }),
  /** login: a 401 here is a wrong username or password, not the end of a session. */
  login: async (username: string, password: string): Promise<Session> => {
    const a = await request<LoginAnswer>('POST', '/api/auth/login', { anonymous: true, body: JSON.stringify({ username, password }) });
    return { token: a.token, expiresAt: a.expires_at, user: a.user };
  },
  logout: () => request<void>('POST', '/api/auth/logout'),
  me: () => request<User>('GET', '/api/auth/me'),
  /**
   * meOf: whose token is this, asked with that token and not the session's
   * (anonymous: a 401 here says nothing about the session).
   */
  meOf: (token: string) => request<User>('GET', '/api/auth/me', { anonymous: true, headers: bearer(token) }),
  /** logoutOf ends a token that is not (or no longer) this device's session. */
  logoutOf: (token: string) => request<void>('POST', '/api/auth/logout', { anonymous: true, headers: bearer(token) }),
  /**
   * changePassword: the service ends the user's other sessions; this one
   * goes on. revokeTokens ends the user's personal access tokens as well.
   */
  changePassword: (current: string, next: string, revokeTokens: boolean) =>
    request<void>('PUT', '/api/users/me/password', {
      body: JSON.stringify({ current_password: current, new_password: next, revoke_tokens: revokeTokens }),
    }),
  /** tokens: the user's sessions and personal access tokens (never their secrets). */
  tokens: () => request<TokenInfo[]>('GET', '/api/auth/tokens'),
  /**
   * createToken answers the secret once, in `token`. currentPassword is
   * required of an account with a password (null: one without, which the
   * service lets do this only soon after a sign-in).
   */
  createToken: (name: string, scope: 'read' | 'write', expiresInDays: number | null, currentPassword: string | null) =>
    request<TokenInfo & { token: string }>('POST', '/api/auth/tokens', {
      body: JSON.stringify({
        name,
        scope,
        ...(expiresInDays === null ? {} : { expires_in_days: expiresInDays }),
        ...(currentPassword === null ? {} : { current_password: currentPassword }),
      }),
    }),
  revokeToken: (id: number) => request<void>('DELETE', `/api/auth/tokens/${id}`),
  // Administrators only.
  users: () => request<User[]>('GET', '/api/users'),
  createUser: (username: string, password: string, isAdmin: boolean) =>
    request<User>('POST', '/api/users', { body: JSON.stringify({ username, password, is_admin: isAdmin }) }),
  deleteUser: (id: number) => request<void>('DELETE', `/api/users/${id}`),
};

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The outcome of a single sign-on, read from the fragment of /login. */
export type SsoResult =
  | { kind: 'token'; token: string; expiresAt: string; clientState: string | null }
  | { kind: 'error'; code: string; clientState: string | null }
  | null;

/** readSsoFragment reads `#token=…&expires_at=…&client_state=…` or `#error=…&client_state=…` (URL-escaped values). */
export function readSsoFragment(hash: string): SsoResult {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const clientState = p.get('client_state');
  const token = p.get('token');
  if (token) {
    const expiresAt = p.get('expires_at') ?? '';
    if (!Number.isFinite(Date.parse(expiresAt))) return { kind: 'error', code: 'invalid_expiry', clientState };
    return { kind: 'token', token, expiresAt, clientState };
  }
  const code = p.get('error');
  return code !== null ? { kind: 'error', code, clientState } : null;
}

/**
 * SSO_STATE_KEY: where the sign-in button keeps, in sessionStorage (this tab
 * only), the one-time value of the single sign-on it started. The service
 * hands it back in the fragment; a fragment without it was not started here.
 */
export const SSO_STATE_KEY = 'carhub-sso-client-state';

/** newClientState: 32 random bytes, base64url without padding (43 characters; the service takes 16 to 128). */
export function newClientState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** ssoStart keeps a new client state in storage and answers the address that starts single sign-on with it. */
export function ssoStart(storage: Pick<Storage, 'setItem'>): string {
  const state = newClientState();
  storage.setItem(SSO_STATE_KEY, state);
  return `${OIDC_LOGIN_PATH}?client_state=${state}`;
}

/** signInWithSso starts single sign-on in this tab (a full-page navigation); false when the browser keeps no sessionStorage. */
export function signInWithSso(): boolean {
  let to: string;
  try {
    to = ssoStart(sessionStorage);
  } catch {
    return false;
  }
  location.assign(to);
  return true;
}

export interface SsoDeps {
  /** Where the sign-in button kept its client state: sessionStorage in the app. */
  storage: Pick<Storage, 'getItem' | 'removeItem'>;
  /** The service's config says single sign-on is on. */
  oidc: boolean;
  sessions: Pick<Sessions, 'current' | 'signIn'>;
  /** Asks the person at the browser (window.confirm). */
  confirm: (message: string) => boolean;
  /** whose: the user of a token, or null when that cannot be told (authApi.meOf). */
  whose: (token: string) => Promise<User | null>;
  /** end: ends a token on the service, for what is not kept (authApi.logoutOf; failures ignored). */
  end: (token: string) => Promise<void>;
}

/**
 * acceptSsoFragment handles the fragment single sign-on ends with and
 * answers what to tell the person (null: nothing). A token is taken only
 * when the fragment brings back the client state this tab's sign-in button
 * kept, and single sign-on is on; that value is forgotten whatever the
 * fragment says, so it serves once. A link made elsewhere (an attacker's own
 * token, to sign the victim into the attacker's account) brings no such
 * value and signs no one in. Over a session of another user of this browser
 * the person is asked first, naming both; a declined token is ended on the
 * service, and so is the session a token replaces. An error fragment is
 * only explained: it changes nothing whoever made it.
 */
export async function acceptSsoFragment(hash: string, deps: SsoDeps): Promise<string | null> {
  let started: string | null = null;
  try {
    started = deps.storage.getItem(SSO_STATE_KEY);
    deps.storage.removeItem(SSO_STATE_KEY);
  } catch {
    // No sessionStorage: no sign-in was started from here.
  }
  const r = readSsoFragment(hash);
  if (r === null) return null;
  if (r.kind === 'error') return ssoErrorMessage(r.code);
  if (started === null || r.clientState !== started) return t('sso.notStarted');
  // Turned off since the sign-in started (or its config unknown): nothing is taken.
  if (!deps.oidc) return t('sso.off');
  const current = await deps.sessions.current();
  let user: User | null = null;
  if (current && current.token !== r.token) {
    user = await deps.whose(r.token).catch(() => null);
    const same = user !== null && current.user !== null && user.id === current.user.id;
    if (!same) {
      const who = current.user?.username ?? t('sso.anotherAccount');
      const replace = deps.confirm(user ? t('sso.replace', { current: who, next: user.username }) : t('sso.replaceUnknown', { current: who }));
      if (!replace) {
        void deps.end(r.token).catch(() => undefined);
        return t('sso.kept', { current: who });
      }
    }
    void deps.end(current.token).catch(() => undefined);
  }
  await deps.sessions.signIn({ token: r.token, expiresAt: r.expiresAt, user });
  return null;
}

/** ssoErrorMessage says what a single sign-on error code means to the person signing in. */
export function ssoErrorMessage(code: string): string {
  switch (code) {
    case 'access_denied':
    case 'oidc_denied':
      return t('sso.refused');
    case 'oidc_not_allowed':
    case 'not_allowed':
      return t('sso.notAllowed');
    case 'invalid_expiry':
      return t('sso.badExpiry');
    default:
      return t('sso.failed', { code: code || t('sso.noReason') });
  }
}
