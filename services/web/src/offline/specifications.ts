// The specifications docqa read from a manual, asked once per manual and
// session (each answer costs docqa 17 retrievals and counts as a chat
// question) and kept with the snapshots (offline/snapshots.ts: the same
// IndexedDB store, each user's apart, forgotten on sign-out), so that the
// card shows the last answer, "as of" its time, when docqa cannot be reached.
// A manual's MD5 names its bytes: an answer changes only with docqa's rules
// or model, so the session's copy is not asked again until a reload.
import { createStore, get, set } from 'idb-keyval';
import { docqa, specificationsPath, type Specifications } from '../api/docqa';
import { isRetryable } from '../api/http';
import { sessions } from '../api/session';
import type { Loaded } from './snapshots';

const idb = createStore('carhub-snapshots', 'snapshots');

/** This session's answers, by user and manual; a request under way is shared, not sent twice. */
const session = new Map<string, Specifications>();
const pending = new Map<string, Promise<Specifications>>();

async function keyOf(md5: string): Promise<string> {
  const user = (await sessions.current())?.user?.id;
  const path = `POST ${specificationsPath(md5)}`;
  return user === undefined ? path : `user:${user} ${path}`;
}

/** known: this session's answer for the manual, if it was had already (shown at once, without a request). */
export async function known(md5: string): Promise<Specifications | undefined> {
  return session.get(await keyOf(md5));
}

/** ask: docqa's answer, kept for the session and, with its time, for offline. */
function ask(key: string, md5: string): Promise<Specifications> {
  let p = pending.get(key);
  if (!p) {
    p = docqa.specifications(md5).then((data) => {
      session.set(key, data);
      void set(key, { at: new Date().toISOString(), data }, idb).catch(() => undefined);
      return data;
    }).finally(() => pending.delete(key));
    pending.set(key, p);
  }
  return p;
}

/**
 * specifications: the manual's specifications, this session's answer when
 * there is one, else docqa's (kept); without an answer from docqa (offline,
 * a 5xx) the last kept one with its time, else the error.
 */
export async function specifications(md5: string): Promise<Loaded<Specifications>> {
  const key = await keyOf(md5);
  const hit = session.get(key);
  if (hit) return { data: hit, asOf: null };
  try {
    return { data: await ask(key, md5), asOf: null };
  } catch (err) {
    if (!isRetryable(err)) throw err;
    const snap = await get<{ at: string; data: Specifications }>(key, idb).catch(() => undefined);
    if (!snap) throw err;
    return { data: snap.data, asOf: snap.at };
  }
}
