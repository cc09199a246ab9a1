// The receipt scan (issue 56), a chunk of its own: Add refuel loads it with
// its form (lazily, after the first screen), Costs with its own chunk, Home
// and History for their list of drafts. "Scan receipt" opens the phone's
// camera; the photo goes to docqa (POST /api/receipts/scan) and what it
// reads fills the form, marked as read (lib/receipts.ts). Without a
// connection the photo becomes a draft to review (offline/drafts.ts), read
// when the connection returns; it is a record only once its owner opens it
// and saves the form.
import { useEffect, useState } from 'preact/hooks';
import { scanReceipt, unreachable, type Scan } from '../api/receipts';
import { sessions } from '../api/session';
import { drafts, getDraft, photoFile, putDraft, removeDraft, subscribeDrafts, type Draft, type DraftOwner } from '../offline/drafts';
import { expenseFill, refuelFill, type ExpenseValues, type Fill, type FormContext, type RefuelValues } from '../lib/receipts';
import { fmtDate, fmtDateTime, fmtMoney, fmtNumber, homeCurrency } from '../lib/format';
import { prefs, regionOf } from '../lib/preferences';
import { uuid } from '../lib/uuid';
import { t } from '../i18n';
import { tr } from '../i18n/receipts';
import { navigate } from '../router';
import { announce } from './status';
import { ErrorText } from './messages';

/** The owner's country, a hint for the receipt's dates and currency. */
const region = () => regionOf(prefs().locale ?? '') ?? undefined;

const userId = async () => (await sessions.current())?.user?.id;

// One reading pass at a time in this tab.
let pass: Promise<void> | null = null;

/**
 * readDrafts reads the photos of the user's drafts not read yet, oldest
 * first, and keeps what each reads with it. It stops at the first without
 * an answer (still offline: the next trigger tries again); a refusal (not
 * an image) is kept as the draft's problem and not tried again.
 */
export function readDrafts(): Promise<void> {
  pass ??= (async () => {
    try {
      for (const d of await drafts(await userId())) {
        if (d.scan || d.problem) continue;
        try {
          const scan = await scanReceipt(new Blob([d.photo.bytes], { type: d.photo.type }), d.photo.name, region());
          // Discarded meanwhile: not brought back.
          if (await getDraft(d.id)) await putDraft({ ...d, scan });
        } catch (err) {
          if (unreachable(err)) return;
          if (await getDraft(d.id)) await putDraft({ ...d, problem: (err as Error).message });
        }
      }
    } finally {
      pass = null;
    }
  })();
  return pass;
}

// The connection returning, or the app coming back into view, reads what waits.
if (typeof window !== 'undefined') {
  window.addEventListener('online', () => void readDrafts());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && navigator.onLine) void readDrafts();
  });
}

/** A draft's fill for the form it opens on, or a scan just read. */
type Filled<V> = (fill: Fill<V>, photo: File, draft: Draft | null) => void;

interface CommonProps {
  id: string;
  vehicleId: number | null;
  /** A draft to open (its id, from the address). */
  draft?: string | null;
  /** The draft was discarded from the form. */
  onDiscard?: () => void;
}

/** ScanRefuel: the scan on Add refuel. context: the form's state the fill depends on. */
export function ScanRefuel({ context, onFill, ...common }: CommonProps & { context: FormContext; onFill: Filled<RefuelValues> }) {
  return <ScanReceipt {...common} owner="refuels" fill={(scan) => refuelFill(scan, context)} onFill={onFill} />;
}

/** ScanExpense: the scan on the expense form (Costs). */
export function ScanExpense({ context, onFill, ...common }: CommonProps & { context: Pick<FormContext, 'home' | 'when'>; onFill: Filled<ExpenseValues> }) {
  return <ScanReceipt {...common} owner="expenses" fill={(scan) => expenseFill(scan, context)} onFill={onFill} />;
}

type Said = { kind: 'reading' } | { kind: 'notes'; lines: string[] } | { kind: 'error'; text: string };

function ScanReceipt<V>({ id, owner, vehicleId, draft: draftId, onDiscard, fill, onFill }: CommonProps & {
  owner: DraftOwner; fill: (scan: Scan) => Fill<V>; onFill: Filled<V>;
}) {
  const [said, setSaid] = useState<Said | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  // The last scan, with its photo, for "Add it as … instead".
  const [last, setLast] = useState<{ scan: Scan; photo: File } | null>(null);

  function apply(scan: Scan, photo: File, from: Draft | null, before: string[] = []) {
    const f = fill(scan);
    onFill(f, photo, from);
    setLast({ scan, photo });
    const head = Object.keys(f.values).length > 0 ? tr('scan.read') : scan.kind === 'expense' && owner === 'refuels' ? null : tr('scan.readNothing');
    setSaid({ kind: 'notes', lines: [...before, ...(head ? [head] : []), ...f.notes] });
  }

  // A draft opened from Home or History: read now if it can be, then fill the form.
  useEffect(() => {
    if (!draftId) return;
    let live = true;
    void (async () => {
      await readDrafts().catch(() => undefined);
      const d = await getDraft(draftId);
      if (!live || !d) return;
      setDraft(d);
      const taken = tr('scan.fromDraft', { when: fmtDateTime(d.created) });
      if (d.scan) apply(d.scan, photoFile(d), d, [taken]);
      else {
        onFill({ values: {}, marks: {}, notes: [], words: { read: '', unsure: '' } }, photoFile(d), d);
        setSaid({ kind: 'notes', lines: [taken, d.problem ? tr('drafts.problem', { message: d.problem }) : tr('scan.draftUnread')] });
      }
    })();
    return () => {
      live = false;
    };
  }, [draftId]);

  async function scan(photo: File) {
    setSaid({ kind: 'reading' });
    setLast(null);
    try {
      apply(await scanReceipt(photo, photo.name, region()), photo, null);
    } catch (err) {
      if (!unreachable(err)) {
        setSaid({ kind: 'error', text: tr('scan.failed', { message: (err as Error).message }) });
        return;
      }
      // No answer: the photo waits as a draft, read when the connection returns.
      await putDraft({
        id: uuid(), owner, vehicle_id: vehicleId, user: await userId(), created: new Date().toISOString(),
        photo: { name: photo.name, type: photo.type, bytes: await photo.arrayBuffer() },
      });
      setSaid({ kind: 'notes', lines: [tr('scan.draftKept')] });
    }
  }

  /** moveTo: the receipt belongs on the other form: it goes there as a draft, already read. */
  async function moveTo(other: DraftOwner) {
    if (!last) return;
    const d: Draft = {
      id: uuid(), owner: other, vehicle_id: vehicleId, user: await userId(), created: draft?.created ?? new Date().toISOString(),
      photo: { name: last.photo.name, type: last.photo.type, bytes: await last.photo.arrayBuffer() }, scan: last.scan,
    };
    await putDraft(d);
    if (draft) await removeDraft(draft.id);
    navigate(other === 'refuels' ? `/add?draft=${d.id}` : `/costs?draft=${d.id}`);
  }

  async function discard() {
    if (!draft || !window.confirm(tr('scan.discardConfirm'))) return;
    await removeDraft(draft.id);
    setDraft(null);
    setSaid(null);
    announce(tr('scan.discarded'));
    onDiscard?.();
  }

  const other: DraftOwner | null = !last ? null
    : owner === 'refuels' && last.scan.kind === 'expense' ? 'expenses'
      : owner === 'expenses' && (last.scan.kind === 'fuel' || last.scan.kind === 'charge') ? 'refuels' : null;
  const reading = said?.kind === 'reading';
  return (
    <div class="scan">
      <span class={`file-picker scan-picker${reading ? ' disabled' : ''}`}>
        <span class="button" aria-hidden="true">
          <svg class="icon" viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">
            <path d="M4 8h3l2-3h6l2 3h3v11H4z" /><circle cx="12" cy="13" r="3.5" />
          </svg>
          {tr('scan.button')}
        </span>
        <input type="file" id={id} class="file-picker-input" accept="image/*" capture="environment" disabled={reading}
          aria-label={tr('scan.button')} aria-describedby={`${id}-hint`}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (file) void scan(file);
          }} />
      </span>
      <p class="hint" id={`${id}-hint`}>{tr('scan.hint')}</p>
      <div role="status" class="scan-said">
        {said?.kind === 'reading' && <p class="scan-reading">{tr('scan.reading')}</p>}
        {said?.kind === 'notes' && said.lines.map((l, i) => <p key={i} class={i === 0 ? 'scan-head' : 'scan-note'}>{l}</p>)}
      </div>
      {said?.kind === 'error' && <ErrorText error={said.text} />}
      {(other || draft) && (
        <div class="buttons">
          {other && <button type="button" class="secondary" onClick={() => void moveTo(other)}>{tr(other === 'refuels' ? 'scan.toRefuel' : 'scan.toExpense')}</button>}
          {draft && <button type="button" class="danger" onClick={() => void discard()}>{tr('scan.discard')}</button>}
        </div>
      )}
    </div>
  );
}

/** readSummary: what a draft's scan read, in a few words ("€79.72 · 45.32 L · 30 Nov 2026 · ARAL"). */
function readSummary(s: Scan): string {
  const f = s.fields;
  const parts: string[] = [];
  if (f.total) parts.push(fmtMoney(f.total, 0, f.currency ?? homeCurrency()));
  if (f.quantity && f.unit) parts.push(`${fmtNumber(f.quantity, 2)}\u00a0${t(f.unit === 'gal' ? 'unit.gal_us' : `unit.${f.unit}`)}`);
  if (f.date) parts.push(fmtDate(`${f.date}T12:00:00`));
  if (f.vendor) parts.push(f.vendor);
  return parts.join(' · ');
}

/** Thumb: the draft's photo, from a blob: URL the app made. */
function DraftPhoto({ d }: { d: Draft }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const made = URL.createObjectURL(new Blob([d.photo.bytes], { type: d.photo.type }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [d.id]);
  return url ? <img class="thumb" src={url} alt={tr('drafts.photoAlt')} /> : <span class="thumb" aria-hidden="true" />;
}

/**
 * DraftsToReview: the user's receipts waiting to be reviewed (Home and
 * History), each with what was read, "Review and save" (the form it was
 * taken on, filled) and Discard. Showing it reads those not read yet.
 */
export function DraftsToReview({ user }: { user: number | undefined }) {
  const [list, setList] = useState<Draft[]>([]);
  useEffect(() => {
    const update = () => void drafts(user).then(setList, () => undefined);
    update();
    const off = subscribeDrafts(update);
    if (navigator.onLine) void readDrafts();
    return off;
  }, [user]);
  if (list.length === 0) return null;

  async function discard(d: Draft) {
    if (!window.confirm(tr('scan.discardConfirm'))) return;
    await removeDraft(d.id);
    announce(tr('scan.discarded'));
  }

  return (
    <section class="drafts" aria-labelledby="drafts-h">
      <h2 id="drafts-h">{tr('drafts.heading')}</h2>
      <ul class="records">
        {list.map((d) => {
          const when = fmtDateTime(d.created);
          const summary = d.scan ? readSummary(d.scan) : '';
          return (
            <li key={d.id} class="record waiting draft">
              <div class="draft-head">
                <DraftPhoto d={d} />
                <div>
                  <p><span class="badge">{tr('drafts.badge')}</span>{' '}<strong>{tr(d.owner === 'refuels' ? 'drafts.refuel' : 'drafts.expense')}</strong></p>
                  <p class="hint">{tr('drafts.taken', { when })}</p>
                </div>
              </div>
              <p>{d.problem ? tr('drafts.problem', { message: d.problem })
                : !d.scan ? tr('drafts.waiting')
                  : summary ? tr('drafts.read', { what: summary }) : tr('drafts.nothingRead')}</p>
              <div class="buttons">
                <a class="button" href={d.owner === 'refuels' ? `/add?draft=${d.id}` : `/costs?draft=${d.id}`}
                  aria-label={tr('drafts.reviewLabel', { when })}>{tr('drafts.review')}</a>
                <button type="button" class="danger" aria-label={tr('drafts.discardLabel', { when })} onClick={() => void discard(d)}>{tr('scan.discard')}</button>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
