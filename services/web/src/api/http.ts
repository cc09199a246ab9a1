// One fetch wrapper for both services: every non-2xx answer becomes an
// ApiError carrying the service's {code, message}; a request that never got
// an answer becomes a NetworkError. Pages show `message` (it names the field).
// Every request carries the session's bearer token (AUTH_MODE=local); a 401
// ends that session (src/api/session.ts), and the app shows the login screen.
import { sessions, tokenOf } from './session';
import { t } from '../i18n';
import { dispositionName } from '../lib/pageview';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body?: unknown,
    /** Seconds to wait before trying again (the Retry-After of a 429 or 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** NetworkError: no answer arrived (offline, connection lost, gateway unreachable). */
export class NetworkError extends Error {
  constructor(message = t('net.noConnection')) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** isOfflineError: the request may succeed later, unchanged (no answer, or a 5xx). */
export function isRetryable(err: unknown): boolean {
  return err instanceof NetworkError || (err instanceof ApiError && err.status >= 500);
}

export interface RequestOptions {
  body?: string | FormData;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** No bearer token, and a 401 is the answer itself, not the end of the session (login). */
  anonymous?: boolean;
}

/** retryAfterSeconds reads Retry-After: whole seconds, or an HTTP date. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined;
}

/** toApiError reads an error answer; a body that is not the services' shape still gives a message. */
export async function toApiError(res: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const obj = (body ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof obj.code === 'string' ? obj.code : 'HTTP_' + String(res.status);
  const message = typeof obj.message === 'string' ? obj.message : `The server answered ${res.status} ${res.statusText}`.trim();
  return new ApiError(res.status, code, message, body, retryAfterSeconds(res.headers.get('Retry-After')));
}

/** send performs the request and returns the Response when it is 2xx. */
export async function send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const auth = opts.anonymous ? {} : await sessions.headers();
  const headers: Record<string, string> = { Accept: 'application/json', ...auth, ...opts.headers };
  if (typeof opts.body === 'string') headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: opts.body, signal: opts.signal, credentials: 'same-origin', cache: 'no-store' });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new NetworkError();
  }
  if (!res.ok) {
    if (res.status === 401 && !opts.anonymous) await sessions.refused(tokenOf(auth));
    throw await toApiError(res);
  }
  return res;
}

/** request performs the request and decodes its JSON answer (undefined for 204). */
export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, opts);
  if (res.status === 204) return undefined as T;
  try {
    return (await res.json()) as T;
  } catch {
    throw new NetworkError(t('net.cutOff'));
  }
}

/**
 * download saves a GET answer as a file through fetch, so the request carries
 * the bearer token (a plain link cannot send one).
 */
export async function download(path: string, fallbackName: string): Promise<void> {
  const res = await send('GET', path, { headers: { Accept: '*/*' } });
  const disposition = res.headers.get('Content-Disposition');
  const name = dispositionName(disposition) ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
