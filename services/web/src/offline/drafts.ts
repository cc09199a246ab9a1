// Drafts of receipts to review (issue 56): a photo scanned without a
// connection is kept here, in IndexedDB ("carhub-drafts"), with the form it
// was taken on (a refuel's or an expense's) and its vehicle, until the owner
// opens it and saves the record, or discards it. When the connection
// returns the photo is read (readDrafts) and what was read is kept with
// it; nothing becomes a record by itself. Each user's drafts are their own.
import { createStore, del, entries, get, set } from 'idb-keyval';
import type { Scan } from '../api/receipts';

const idb = createStore('carhub-drafts', 'drafts');

export type DraftOwner = 'refuels' | 'expenses';

export interface Draft {
  id: string;
  owner: DraftOwner;
  vehicle_id: number | null;
  /** The signed-in user's id (none with accounts off). */
  user?: number;
  /** When the photo was taken (RFC 3339). */
  created: string;
  photo: { name: string; type: string; bytes: ArrayBuffer };
  /** What the photo reads, once read. */
  scan?: Scan;
  /** The service refused to read it (not an image, too large): said, and not tried again. */
  problem?: string;
}

const listeners = new Set<() => void>();
const changed = () => listeners.forEach((fn) => fn());

/** subscribeDrafts calls fn after each change of the drafts in this tab; answers the unsubscribe. */
export function subscribeDrafts(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** drafts: the user's drafts, oldest first. */
export async function drafts(user?: number): Promise<Draft[]> {
  const all = (await entries<string, Draft>(idb)).map(([, d]) => d);
  return all.filter((d) => d.user === user).sort((a, b) => a.created.localeCompare(b.created));
}

export function getDraft(id: string): Promise<Draft | undefined> {
  return get<Draft>(id, idb);
}

export async function putDraft(d: Draft): Promise<void> {
  await set(d.id, d, idb);
  changed();
}

export async function removeDraft(id: string): Promise<void> {
  await del(id, idb);
  changed();
}

/** photoFile: the draft's photo as the File the form keeps as the record's attachment. */
export function photoFile(d: Draft): File {
  return new File([d.photo.bytes], d.photo.name, { type: d.photo.type });
}
