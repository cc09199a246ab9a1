// One fetch wrapper for both services: every non-2xx answer becomes an
// ApiError carrying the service's {code, message}; a request that never got
// an answer becomes a NetworkError. Pages show `message` (it names the field).

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** NetworkError: no answer arrived (offline, connection lost, gateway unreachable). */
export class NetworkError extends Error {
  constructor(message = 'No connection to the server') {
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
  return new ApiError(res.status, code, message, body);
}

/** send performs the request and returns the Response when it is 2xx. */
export async function send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  if (typeof opts.body === 'string') headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: opts.body, signal: opts.signal, credentials: 'same-origin', cache: 'no-store' });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new NetworkError();
  }
  if (!res.ok) throw await toApiError(res);
  return res;
}

/** request performs the request and decodes its JSON answer (undefined for 204). */
export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, opts);
  if (res.status === 204) return undefined as T;
  try {
    return (await res.json()) as T;
  } catch {
    throw new NetworkError('The answer was cut off');
  }
}
