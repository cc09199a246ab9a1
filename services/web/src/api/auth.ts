// fuel-service's account routes the client uses (proto-docs/fuel-service.openapi.yaml).
import { request } from './http';
import type { AuthConfig, Session, User } from './session';
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

/** Where single sign-on starts (a full-page navigation; it ends at /login#token=…). */
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
export type SsoResult = { kind: 'token'; token: string; expiresAt: string } | { kind: 'error'; code: string } | null;

/** readSsoFragment reads `#token=…&expires_at=…` or `#error=…` (URL-escaped values). */
export function readSsoFragment(hash: string): SsoResult {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const token = p.get('token');
  if (token) {
    const expiresAt = p.get('expires_at') ?? '';
    if (!Number.isFinite(Date.parse(expiresAt))) return { kind: 'error', code: 'invalid_expiry' };
    return { kind: 'token', token, expiresAt };
  }
  const code = p.get('error');
  return code !== null ? { kind: 'error', code } : null;
}

/** ssoErrorMessage says what a single sign-on error code means to the person signing in. */
export function ssoErrorMessage(code: string): string {
  switch (code) {
    case 'access_denied':
      return t('sso.refused');
    case 'invalid_expiry':
      return t('sso.badExpiry');
    default:
      return t('sso.failed', { code: code || t('sso.noReason') });
  }
}
