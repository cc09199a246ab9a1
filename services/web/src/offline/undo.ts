// Undo of a record just created through the outbox (a refuel, an expense):
// while it waits on this device it is taken out of the outbox (with the
// photos waiting for it); once sent, the record the service stored is
// deleted by the id it answered. Used by the confirmation's Undo
// (components/status.tsx).
import type { Outbox } from './outbox';

/** What undoing did: discarded from the outbox, deleted on the server, or nothing (neither waiting here nor sent by this tab). */
export type UndoOutcome = 'discarded' | 'deleted' | 'unknown';

/**
 * undoCreate undoes the creation queued under key: remove(id) deletes a
 * stored record. An item being sent at this moment is waited for first, so
 * that a record the service stores meanwhile is deleted, not left behind.
 */
export async function undoCreate(box: Outbox, key: string, remove: (id: string) => Promise<void>): Promise<UndoOutcome> {
  if (box.sending.has(key)) await box.flush();
  if ((await box.items()).some((i) => i.key === key)) {
    await box.discard(key);
    return 'discarded';
  }
  const id = box.storedId(key);
  if (id === undefined) return 'unknown';
  await remove(id);
  return 'deleted';
}
