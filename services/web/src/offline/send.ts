// The outbox's sender: one queued write sent as it was made (same
// Idempotency-Key, same bytes), with the bearer token of the session that
// is signed in now. A 401 ends that session and keeps the item; an item made
// by another user is not sent with this user's token (it waits for its owner).
import { classify, type OutboxItem, type QueuedFile, type Sender, type SendOutcome } from './outbox';
import { toApiError } from '../api/http';
import { tokenOf, type Sessions } from '../api/session';
import { t } from '../i18n';

/** multipart: the form the attachment endpoints read, its one part named "file". */
export function multipart(f: QueuedFile): FormData {
  const form = new FormData();
  form.append('file', new Blob([f.bytes], { type: f.type || 'application/octet-stream' }), f.name);
  return form;
}

export function makeSender(sessions: Sessions, fetchFn: typeof fetch = (...a) => fetch(...a)): Sender {
  return async (item: OutboxItem): Promise<SendOutcome> => {
    const session = await sessions.current();
    if (item.owner !== undefined) {
      // Made by a signed-in user: nothing to try while no one is signed in (the sign-in sends it),
      // and never with another user's token.
      if (!session) return { kind: 'unauthorized' };
      if (session.user && session.user.id !== item.owner) return { kind: 'held' };
    }
    const auth = await sessions.headers();
    // An attachment goes as multipart/form-data (the browser writes its Content-Type and boundary).
    const body = item.file ? multipart(item.file) : item.body;
    const type: Record<string, string> = item.file ? {} : { 'Content-Type': 'application/json' };
    let res: Response;
    try {
      res = await fetchFn(item.path, {
        method: item.method,
        headers: { ...type, Accept: 'application/json', 'Idempotency-Key': item.key, ...auth },
        body,
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch {
      return { kind: 'retry', message: t('net.noConnection') };
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
    if (kind === 'unauthorized') {
      await sessions.refused(tokenOf(auth));
      return { kind };
    }
    const err = await toApiError(res);
    return { kind, message: err.message };
  };
}
