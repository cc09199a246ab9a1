// The app's outbox in IndexedDB, its sender, and when it is sent: at start,
// when the browser says it is online, when the app becomes visible, after
// each new item, and, while something waits after a failed attempt, again
// after a growing pause (5 s doubling to 5 min). Items needing attention are
// never resent by any of these. A 401 keeps every item and waits for the
// next sign-in, which sends them.
import { createStore, del, entries, set } from 'idb-keyval';
import { Outbox, type FlushResult, type OutboxItem, type OutboxStore } from './outbox';
import { makeSender } from './send';
import { sessions } from '../api/session';

const idb = createStore('carhub-outbox', 'items');

const idbStore: OutboxStore = {
  all: async () => (await entries<string, OutboxItem>(idb)).map(([, v]) => v),
  put: (item) => set(item.key, item, idb),
  delete: (key) => del(key, idb),
};

export const outbox = new Outbox(idbStore, makeSender(sessions));

let timer: ReturnType<typeof setTimeout> | undefined;
let backoff = 5_000;

/** sync sends what waits; after a blocked pass it tries again later, with a growing pause. */
export async function sync(): Promise<FlushResult> {
  clearTimeout(timer);
  const r = await outbox.flush();
  if (r.unauthorized) {
    // Nothing can go until the owner signs in again; the sign-in syncs.
    backoff = 5_000;
  } else if (r.blocked) {
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
  sessions.subscribe((e) => {
    if (e === 'signed-in') {
      backoff = 5_000;
      void sync();
    }
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void sync();
  });
  void sync();
}
