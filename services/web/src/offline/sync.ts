// The app's outbox in IndexedDB, its sender, and when it is sent: at start,
// when the browser says it is online, when the app becomes visible, after
// each new item, and, while something waits after a failed attempt, again
// after a growing pause (5 s doubling to 5 min). Items needing attention are
// never resent by any of these.
import { createStore, del, entries, set } from 'idb-keyval';
import { classify, Outbox, type FlushResult, type OutboxItem, type OutboxStore, type SendOutcome } from './outbox';
import { toApiError } from '../api/http';

const idb = createStore('carhub-outbox', 'items');

const idbStore: OutboxStore = {
  all: async () => (await entries<string, OutboxItem>(idb)).map(([, v]) => v),
  put: (item) => set(item.key, item, idb),
  delete: (key) => del(key, idb),
};

export async function sendItem(item: OutboxItem): Promise<SendOutcome> {
  let res: Response;
  try {
    res = await fetch(item.path, {
      method: item.method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Idempotency-Key': item.key },
      body: item.body,
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    return { kind: 'retry', message: 'No connection to the server' };
  }
  const kind = classify(res.status);
  if (kind === 'sent') {
    let body: unknown = null;
    try {
      body = await res.json();
    } catch {
      // The record is stored (2xx); a cut-off body changes nothing.
    }
    return { kind, body };
  }
  const err = await toApiError(res);
  return { kind, message: err.message };
}

export const outbox = new Outbox(idbStore, sendItem);

let timer: ReturnType<typeof setTimeout> | undefined;
let backoff = 5_000;

/** sync sends what waits; after a blocked pass it tries again later, with a growing pause. */
export async function sync(): Promise<FlushResult> {
  clearTimeout(timer);
  const r = await outbox.flush();
  if (r.blocked) {
    clearTimeout(timer);
    timer = setTimeout(() => void sync(), backoff);
    backoff = Math.min(backoff * 2, 300_000);
  } else {
    backoff = 5_000;
  }
  return r;
}

/** startSync wires the triggers; call once at start. */
export function startSync(): void {
  window.addEventListener('online', () => {
    backoff = 5_000;
    void sync();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void sync();
  });
  void sync();
}
