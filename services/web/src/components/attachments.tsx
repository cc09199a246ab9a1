// Receipts and photos of a refuel or an expense: the files it has (a
// thumbnail for a photo, the name for a PDF; each opens in a new tab and can
// be deleted), those waiting on this device, and the camera input that adds
// more. Every added file goes through the outbox (offline it waits there,
// within the bound of lib/costs.ts); showing and deleting need a connection.
// Part of the costs chunk: History loads it when a refuel's receipts open.
import { useEffect, useState } from 'preact/hooks';
import { costs, costPaths, type Attachment, type AttachmentOwner } from '../api/costs';
import { useOnline, useServerData } from '../hooks';
import { outbox, sync } from '../offline/sync';
import { PARENT_ID, queuedBytes, type OutboxItem } from '../offline/outbox';
import { sessions } from '../api/session';
import { admitFiles, MAX_QUEUED_BYTES, type FileRefusal } from '../lib/costs';
import { fmtBytes } from '../lib/format';
import { uuid } from '../lib/uuid';
import { tk } from '../i18n/costs';
import { ErrorText, Status } from './messages';
import { FilePicker } from './file-picker';

/** The input's types: photos (the camera's, HEIC too) and PDF receipts. */
export const ACCEPT = 'image/*,application/pdf';

/** refusal: why a file was not taken, in one sentence. */
export function refusal(r: FileRefusal): string {
  const name = r.file.name;
  switch (r.reason) {
    case 'type': return tk('att.wrongType', { name });
    case 'size': return tk('att.tooBig', { name, size: fmtBytes(r.file.size) });
    case 'count': return tk('att.tooMany', { name });
    case 'queue': return tk('att.queueFull', { name, size: fmtBytes(r.file.size), queued: fmtBytes(r.queued), limit: fmtBytes(MAX_QUEUED_BYTES) });
  }
}

export interface QueueResult {
  sent: string[];
  queued: string[];
  /** What was not kept, and why (one sentence each). */
  problems: string[];
}

/**
 * queueFiles puts the files in the outbox one at a time, each sent at once
 * when it can be, so the bound counts only what really waits: online, a
 * batch larger than the bound still goes. path is the attachments' path;
 * parent the key of a queued record they belong to (path then holds
 * PARENT_ID); present the files the record has already.
 */
export async function queueFiles(files: File[], path: string, present: number, parent?: string): Promise<QueueResult> {
  const out: QueueResult = { sent: [], queued: [], problems: [] };
  const owner = (await sessions.current())?.user?.id;
  let added = 0;
  for (const file of files) {
    const { refused } = admitFiles([file], present + added, queuedBytes(await outbox.items()));
    if (refused[0]) {
      out.problems.push(refusal(refused[0]));
      continue;
    }
    const key = uuid();
    await outbox.add({ key, kind: 'attachment', method: 'POST', path, body: '', parent, owner, file: { name: file.name, type: file.type, bytes: await file.arrayBuffer() } });
    added++;
    const r = await sync();
    if (r.sent.includes(key)) out.sent.push(file.name);
    else if (r.rejected.includes(key)) {
      // Refused while the owner is here: said now, not kept to fail again.
      const item = (await outbox.items()).find((i) => i.key === key);
      await outbox.discard(key);
      added--;
      out.problems.push(tk('att.refused', { name: file.name, message: item?.message ?? '' }));
    } else out.queued.push(file.name);
  }
  return out;
}

/**
 * queueWithRecord queues the files chosen in the form of a new record (an
 * expense, a refuel) as children of its outbox item key: sent at once when
 * the record was (sentNow), else with it when it goes. Answers what to add
 * to the record's own confirmation (the files sent or waiting, and any
 * refused), one sentence each.
 */
export async function queueWithRecord(files: File[], owner: AttachmentOwner, key: string, sentNow: boolean): Promise<string[]> {
  const q = await queueFiles(files, costPaths.attachments(owner, PARENT_ID), 0, key);
  // Queued with the record, its photos are said in one sentence with it.
  const said = sentNow ? resultText(q) : q.queued.length > 0 ? tk('att.queuedWith', { names: q.queued.join(', ') }) : null;
  return [said, ...q.problems].filter((x): x is string => Boolean(x));
}

/** resultText: what a queueFiles run did, as one status line (null: nothing). */
export function resultText(r: QueueResult): string | null {
  const parts = [
    r.sent.length > 0 ? tk('att.sent', { names: r.sent.join(', ') }) : '',
    r.queued.length > 0 ? tk('att.queued', { names: r.queued.join(', ') }) : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : null;
}

/** useQueued: the outbox's attachment items for path (a parent's, by its key, while it is queued itself). */
export function useQueued(match: (i: OutboxItem) => boolean): OutboxItem[] {
  const [items, setItems] = useState<OutboxItem[]>([]);
  useEffect(() => {
    const update = () => void outbox.items().then((all) => setItems(all.filter((i) => i.kind === 'attachment' && match(i))));
    update();
    return outbox.subscribe(update);
  }, []);
  return items;
}

/** FileInput: the camera or file picker for receipts. */
export function FileInput({ id, onFiles, disabled }: { id: string; onFiles: (files: File[]) => void; disabled?: boolean }) {
  return (
    <div class="field">
      <label for={id}>{tk('att.add')}</label>
      {/* The files chosen are listed (or sent) by the caller: no text beside the button. */}
      <FilePicker id={id} accept={ACCEPT} capture="environment" multiple disabled={disabled} aria-describedby={`${id}-hint`}
        onChange={(e) => {
          const files = [...(e.currentTarget.files ?? [])];
          e.currentTarget.value = '';
          if (files.length > 0) onFiles(files);
        }} />
      <p class="hint" id={`${id}-hint`}>{tk('att.hint')}</p>
    </div>
  );
}

/**
 * ChosenFiles: the camera or file picker in the form of a record not saved
 * yet; the files are held (files, onChange) and queued with the record when
 * it is saved (queueWithRecord). What the service would refuse is said at
 * once; the bound of the queue is checked when they are queued.
 */
export function ChosenFiles({ id, owner, files, onChange }: { id: string; owner: AttachmentOwner; files: File[]; onChange: (files: File[]) => void }) {
  const [problems, setProblems] = useState<string | null>(null);
  // A form that was saved empties files: what was said of the last choice goes with them.
  useEffect(() => {
    if (files.length === 0) setProblems(null);
  }, [files.length]);
  function choose(chosen: File[]) {
    const { admitted, refused } = admitFiles(chosen, files.length, 0);
    onChange([...files, ...chosen.filter((f) => admitted.includes(f))]);
    setProblems(refused.length > 0 ? refused.map(refusal).join(' ') : null);
  }
  return (
    <>
      <FileInput id={id} onFiles={choose} />
      {files.length > 0 && <p class="chosen">{tk(owner === 'refuels' ? 'att.chosenRefuel' : 'att.chosen', { names: files.map((f) => f.name).join(', ') })}</p>}
      <ErrorText error={problems} />
    </>
  );
}

/** QueuedFiles: the files of a record still on this device, with what the owner can do about one refused. */
export function QueuedFiles({ items }: { items: OutboxItem[] }) {
  if (items.length === 0) return null;
  return (
    <ul class="files">
      {items.map((i) => (
        <li key={i.key} class={i.state === 'attention' ? 'file attention' : 'file waiting'}>
          <span class="file-name">{i.file?.name}</span>{' '}
          <span class="badge">{i.state === 'attention' ? tk('costs.needsAttention') : tk('att.waiting')}</span>
          {i.state === 'attention' && (
            <>
              <p class="error">{tk('att.refused', { name: i.file?.name ?? '', message: i.message ?? '' })}</p>
              <div class="buttons">
                <button type="button" class="secondary" onClick={() => void outbox.retry(i.key).then(sync)}>{tk('costs.sendAgain')}</button>
                <button type="button" class="danger" onClick={() => void outbox.discard(i.key)}>{tk('costs.discard')}</button>
              </div>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/** FilesWaitingWith: the files queued with a record that waits in the outbox itself (its key). */
export function FilesWaitingWith({ parent }: { parent: string }) {
  return <QueuedFiles items={useQueued((i) => i.parent === parent)} />;
}

/** Thumb: a photo's small image, fetched with the bearer token and shown from a blob: URL the app made. */
function Thumb({ path, name }: { path: string; name: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let made: string | null = null;
    costs.file(path).then((b) => {
      made = URL.createObjectURL(b);
      if (live) setUrl(made);
      else URL.revokeObjectURL(made);
    }, () => undefined);
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [path]);
  return url ? <img class="thumb" src={url} alt={tk('att.thumbAlt', { name })} /> : <span class="thumb" aria-hidden="true" />;
}

/** openAttachment opens the file in a new tab (a blob: URL, as the manuals' files open). */
async function openAttachment(path: string, a: Attachment): Promise<void> {
  const tab = window.open('', '_blank');
  if (tab) tab.opener = null;
  try {
    const blob = await costs.file(path);
    const url = URL.createObjectURL(new Blob([blob], { type: a.content_type }));
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    if (tab) tab.location.href = url;
  } catch (err) {
    tab?.close();
    throw err;
  }
}

interface Props {
  owner: AttachmentOwner;
  ownerId: number;
  /** The user may add and delete (not a viewer of a shared vehicle). */
  canWrite: boolean;
}

/** Attachments: a stored record's receipts and photos, with the input to add more. */
export function Attachments({ owner, ownerId, canWrite }: Props) {
  const online = useOnline();
  const path = costPaths.attachments(owner, ownerId);
  const list = useServerData(() => costs.attachments(owner, ownerId), online, path);
  const queued = useQueued((i) => i.path === path);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const files = list.data ?? [];

  // A file sent from the queue belongs in the list now.
  const waiting = queued.length;
  const [seen, setSeen] = useState(waiting);
  useEffect(() => {
    if (waiting < seen) list.reload();
    setSeen(waiting);
  }, [waiting]);

  async function add(chosen: File[]) {
    setBusy(true);
    setStatus(null);
    setError(null);
    try {
      const r = await queueFiles(chosen, path, files.length + queued.length);
      setStatus(resultText(r));
      setError(r.problems.length > 0 ? r.problems.join(' ') : null);
      if (r.sent.length > 0) list.reload();
    } finally {
      setBusy(false);
    }
  }

  async function remove(a: Attachment) {
    if (!window.confirm(tk('att.deleteConfirm', { name: a.file_name }))) return;
    setError(null);
    try {
      await costs.deleteAttachment(owner, ownerId, a.id);
      setStatus(tk('att.deleted', { name: a.file_name }));
      list.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <div class="attachments">
      {!online && <p class="hint">{tk('att.needsConnection')}</p>}
      {online && !list.data && !list.error && <p class="hint">{tk('att.loading')}</p>}
      <ErrorText error={list.error} />
      {list.data && files.length === 0 && queued.length === 0 && <p class="hint">{tk('att.none')}</p>}
      {files.length > 0 && (
        <ul class="files">
          {files.map((a) => {
            const file = a.url ?? costPaths.attachment(owner, ownerId, a.id);
            const thumb = a.thumbnail_url === undefined ? (a.content_type.startsWith('image/') ? costPaths.thumbnail(owner, ownerId, a.id) : null) : a.thumbnail_url;
            return (
              <li key={a.id} class="file">
                <a href={file} onClick={(e) => {
                  e.preventDefault();
                  openAttachment(file, a).catch((err: Error) => setError(err.message));
                }} aria-label={tk('att.open', { name: a.file_name })}>
                  {thumb ? <Thumb path={thumb} name={a.file_name} /> : <span class="thumb pdf" aria-hidden="true">{a.content_type === 'application/pdf' ? tk('att.pdf') : (a.content_type.split('/')[1] ?? '').toUpperCase()}</span>}
                  <span class="file-name">{a.file_name}</span>
                </a>
                <span class="file-size">{fmtBytes(a.size)}</span>
                {canWrite && (
                  <button type="button" class="danger small" disabled={!online} aria-label={tk('att.delete', { name: a.file_name })}
                    onClick={() => void remove(a)}>{tk('att.deleteShort')}</button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <QueuedFiles items={queued} />
      {status && <Status>{status}</Status>}
      <ErrorText error={error} />
      {canWrite && <FileInput id={`files-${owner}-${ownerId}`} onFiles={(f) => void add(f)} disabled={busy} />}
    </div>
  );
}
