// Snapshots: the last good answer of each GET the pages show, kept in
// IndexedDB so the app shows the last known vehicles, history and
// statistics (marked "as of <time>") when there is no connection. With
// accounts, each user's snapshots are kept apart (the key starts with the
// user's id) and signing out forgets them all.
import { clear, createStore, get, set } from 'idb-keyval';
import { isRetryable, request } from '../api/http';
import { sessions } from '../api/session';

const idb = createStore('carhub-snapshots', 'snapshots');

interface Snapshot<T> {
  at: string;
  data: T;
}

export interface Loaded<T> {
  data: T;
  /** When the data was fetched, if it is a snapshot; null when fresh. */
  asOf: string | null;
}

/** load GETs path; without an answer (or with a 5xx) it returns the last snapshot, if any. */
export async function load<T>(path: string): Promise<Loaded<T>> {
  const user = (await sessions.current())?.user?.id;
  const key = user === undefined ? path : `user:${user} ${path}`;
  try {
    const data = await request<T>('GET', path);
    void set(key, { at: new Date().toISOString(), data } satisfies Snapshot<T>, idb).catch(() => undefined);
    return { data, asOf: null };
  } catch (err) {
    if (!isRetryable(err)) throw err;
    const snap = await get<Snapshot<T>>(key, idb).catch(() => undefined);
    if (!snap) throw err;
    return { data: snap.data, asOf: snap.at };
  }
}

/** clearSnapshots forgets every snapshot (on sign-out: the next person on this device sees none of them). */
export function clearSnapshots(): Promise<void> {
  return clear(idb).catch(() => undefined);
}
