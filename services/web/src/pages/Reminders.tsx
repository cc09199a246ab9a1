// The reminders of a vehicle on the Costs page: each with its status and
// how it is due ("Oil change due in 800 km, about 3 weeks"), what it counts
// from, and a form to add or change one. The service computes the due
// fields on each read; changing reminders needs a connection.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Vehicle } from '../api/fuel';
import { CATEGORIES, costPaths, costs, type Category, type Reminder, type ReminderInput } from '../api/costs';
import { useResource } from '../hooks';
import { Dec, round } from '../lib/decimal';
import { inputNumber, numberExample, readNumber } from '../lib/numbers';
import { byUrgency, fmtSpan } from '../lib/costs';
import { fmtDate, fromLocalInput, wordsLocale } from '../lib/format';
import { units as activeUnits } from '../lib/preferences';
import { distanceToKm, kmToDistance, type Units } from '../lib/units';
import { distanceLabel, fmtDistance } from '../lib/labels';
import { uuid } from '../lib/uuid';
import { reminderAsBefore } from '../api/restore';
import { writeLike } from '../lib/dates';
import { DateField } from '../components/date-field';
import { t } from '../i18n';
import { tk } from '../i18n/costs';
import { ErrorText } from '../components/messages';
import { announce } from '../components/status';
import { ErrorSummary, FieldMessage, focusInView, fromService, useFormErrors, type FieldError } from '../components/form-errors';
import { CategoryIcon } from '../components/category-icons';
import { DueState } from '../components/reminder-status';
import { NotifyLine, useNotifyPlan, type NotifyPlan } from '../components/reminder-notify';
import { outbox, sync } from '../offline/sync';
import type { OutboxItem } from '../offline/outbox';

const categoryName = (c: Category) => tk(`cat.${c}`);

interface Props {
  vehicle: Vehicle;
  writable: boolean;
  online: boolean;
  /** The reminder a notification's link names: brought into view and focused once listed. */
  linked?: number | null;
}

/** queuedTitle: the title of a reminder waiting in the outbox, when it is one of the vehicle's. */
function queuedTitle(item: OutboxItem, vehicle: number): string | null {
  if (item.kind !== 'reminder') return null;
  try {
    const body = JSON.parse(item.body) as { vehicle_id?: number; title?: string };
    return body.vehicle_id === vehicle && typeof body.title === 'string' ? body.title : null;
  } catch {
    return null;
  }
}

/**
 * useQueuedReminders: the vehicle's reminders waiting in the outbox (a
 * maintenance plan's items added offline), or refused when sent: shown
 * until they are stored or the owner discards them.
 */
function useQueuedReminders(vehicle: number, reload: () => void): { item: OutboxItem; title: string }[] {
  const [items, setItems] = useState<{ item: OutboxItem; title: string }[]>([]);
  useEffect(() => {
    let before = 0;
    const update = () => void outbox.items().then((all) => {
      const mine = all.flatMap((item) => {
        const title = queuedTitle(item, vehicle);
        return title === null ? [] : [{ item, title }];
      });
      // One went: it is stored now (or discarded), so the list is read again.
      if (mine.length < before) reload();
      before = mine.length;
      setItems(mine);
    });
    update();
    return outbox.subscribe(update);
  }, [vehicle, reload]);
  return items;
}

export function Reminders({ vehicle, writable, online, linked = null }: Props) {
  const list = useResource<Reminder[]>(costPaths.reminders(vehicle.id));
  const queued = useQueuedReminders(vehicle.id, list.reload);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reminders = byUrgency(list.data ?? [], Date.now());
  // Whether each will reach its owner (Settings → Notifications), said on its card.
  const plan = useNotifyPlan();
  const listed = linked !== null && reminders.some((r) => r.id === linked);
  useEffect(() => {
    if (!listed) return;
    const card = document.getElementById(`reminder-${linked}`);
    card?.focus({ preventScroll: true });
    card?.scrollIntoView({ block: 'center' });
  }, [linked, listed]);

  async function remove(r: Reminder) {
    if (!window.confirm(tk('rem.deleteConfirm', { title: r.title }))) return;
    setError(null);
    try {
      await costs.deleteReminder(r.id);
      announce(tk('rem.deleted'));
      list.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  const done = (text: string | null, _sent?: ReminderInput, made?: Reminder) => {
    setAdding(false);
    setEditing(null);
    list.reload();
    if (!text) return;
    // A new reminder's Undo deletes it.
    announce(made ? { text, action: { label: t('status.undo'), run: async () => {
      await costs.deleteReminder(made.id);
      list.reload();
      return tk('rem.undone', { title: made.title });
    } } } : text);
  };
  // An edit's confirmation undoes it when one PUT can (api/restore.ts), else offers to edit again.
  const edited = (r: Reminder, text: string | null, sent?: ReminderInput) => {
    setEditing(null);
    list.reload();
    if (!text || !sent) return;
    const before = reminderAsBefore(r, sent);
    announce({ text, action: before
      ? { label: t('status.undo'), run: async () => {
        await costs.updateReminder(r.id, before);
        list.reload();
        return tk('rem.updateUndone');
      } }
      : { label: t('common.edit'), run: () => {
        setEditing(r.id);
        return null;
      } } });
  };

  return (
    <section id="reminders" aria-labelledby="reminders-h">
      <h2 id="reminders-h">{tk('rem.heading')}</h2>
      <ErrorText error={list.error ?? error} />
      {list.data && reminders.length === 0 && <p class="hint">{tk('rem.none')}</p>}
      {reminders.length > 0 && (
        <ul class="records reminders" aria-label={tk('rem.heading')}>
          {reminders.map((r) => editing === r.id ? (
            <li key={r.id} class="record"><ReminderForm vehicle={vehicle} record={r} onDone={(text, sent) => edited(r, text, sent)} /></li>
          ) : (
            <ReminderItem key={r.id} r={r} linked={r.id === linked} plan={plan} viewer={vehicle.role === 'viewer'} writable={writable} online={online} onEdit={() => setEditing(r.id)} onDelete={() => void remove(r)} />
          ))}
        </ul>
      )}
      {queued.length > 0 && (
        <ul class="records reminders" aria-label={tk('rem.queued')}>
          {queued.map(({ item, title }) => (
            <li key={item.key} class={item.state === 'attention' ? 'record attention' : 'record waiting'}>
              <h3>{title}</h3>
              <p class="badge">{item.state === 'attention' ? tk('costs.needsAttention') : tk('costs.waiting')}</p>
              {item.state === 'attention' && <p class="error">{tk('costs.refused', { message: item.message ?? '' })}</p>}
              {item.state === 'attention' && (
                <div class="buttons">
                  <button type="button" class="secondary" onClick={() => void outbox.retry(item.key).then(sync)}>{tk('costs.sendAgain')}</button>
                  <button type="button" class="danger" onClick={() => void outbox.discard(item.key)}>{tk('costs.discard')}</button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {writable && !online && <p class="hint">{tk('rem.needsConnection')}</p>}
      {writable && !adding && (
        <button type="button" class="secondary" disabled={!online} onClick={() => setAdding(true)}>{tk('rem.add')}</button>
      )}
      {writable && adding && <ReminderForm vehicle={vehicle} onDone={done} />}
    </section>
  );
}

function every(r: Reminder, u: Units): string | null {
  const parts = [
    r.every_km != null ? fmtDistance(r.every_km, u) : null,
    r.every_months != null ? fmtSpan({ value: r.every_months, unit: 'month' }, wordsLocale()) : null,
  ].filter((x): x is string => x !== null);
  if (parts.length === 0) return null;
  return tk('rem.every', { what: parts.length === 2 ? tk('rem.or', { a: parts[0]!, b: parts[1]! }) : parts[0]! });
}

function ReminderItem({ r, linked, plan, viewer, writable, online, onEdit, onDelete }: {
  r: Reminder; linked: boolean; plan: NotifyPlan | null; viewer: boolean; writable: boolean; online: boolean; onEdit: () => void; onDelete: () => void;
}) {
  const u = activeUnits();
  const hid = `rem-${r.id}`;
  const lastOdo = r.last_done?.odometer != null ? fmtDistance(r.last_done.odometer, u) : null;
  const last = r.last_done?.time ? [fmtDate(r.last_done.time), lastOdo].filter(Boolean).join(', ') : null;
  const facts = [
    every(r, u),
    r.due_odometer != null ? tk('rem.dueAt', { odometer: fmtDistance(r.due_odometer, u) }) : null,
    r.due_date ? tk('rem.dueOn', { date: fmtDay(r.due_date) }) : null,
    // An overdue reminder's estimate is today (the service's clamp): "around today" beside "overdue by 1,120 km" misleads.
    r.estimated_due_date && !r.due_date && r.status !== 'overdue' ? tk('rem.estimated', { date: fmtDay(r.estimated_due_date) }) : null,
    last ? tk('rem.lastDone', { when: last }) : lastOdo ? tk('rem.lastDoneAt', { odometer: lastOdo }) : null,
  ].filter((x): x is string => x !== null);
  return (
    <li id={`reminder-${r.id}`} class={`record reminder ${r.status}${linked ? ' linked' : ''}`} aria-labelledby={hid} tabIndex={linked ? -1 : undefined}>
      <div class="expense-head">
        <span class={`cat cat-${r.category}`}><CategoryIcon category={r.category} /></span>
        <div class="expense-what">
          <h3 id={hid}>{r.title}</h3>
          <p class="due-phrase"><DueState r={r} u={u} /></p>
        </div>
      </div>
      <ul class="facts">{facts.map((f) => <li key={f}>{f}</li>)}</ul>
      {r.notes && <p class="notes">{r.notes}</p>}
      <NotifyLine plan={plan} status={r.status} viewer={viewer} />
      {writable && (
        <div class="buttons">
          <button type="button" class="secondary" onClick={onEdit} disabled={!online}>{t('common.edit')}</button>
          <button type="button" class="danger" onClick={onDelete} disabled={!online}>{t('common.delete')}</button>
        </div>
      )}
    </li>
  );
}

const wholePositive = (v: string | null) => v !== null && /^\d+$/.test(v) && Number(v) > 0;

/** onDone: called with what to tell the owner (null: cancelled) and, after an edit, what was sent; after a create, the reminder made. */
function ReminderForm({ vehicle, record, onDone }: { vehicle: Vehicle; record?: Reminder; onDone: (text: string | null, sent?: ReminderInput, made?: Reminder) => void }) {
  const u = activeUnits();
  const p = record ? `rem-edit-${record.id}` : 'rem-new';
  // In the owner's number format, as typed back (lib/numbers.ts).
  const initialKm = record?.every_km != null ? inputNumber(kmToDistance(record.every_km, u, 0)) : '';
  const initialLastOdo = record?.last_done?.odometer != null ? inputNumber(kmToDistance(record.last_done.odometer, u, 0)) : '';
  const initialLastDate = record?.last_done?.time ? dateInput(new Date(record.last_done.time)) : '';
  const [title, setTitle] = useState(record?.title ?? '');
  const [category, setCategory] = useState<Category>(record?.category ?? 'service');
  const [km, setKm] = useState(initialKm);
  const [months, setMonths] = useState(record?.every_months != null ? String(record.every_months) : '');
  const [lastDate, setLastDate] = useState(initialLastDate);
  const [lastOdo, setLastOdo] = useState(initialLastOdo);
  const [notes, setNotes] = useState(record?.notes ?? '');
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [saving, setSaving] = useState(false);
  const dist = distanceLabel(u);
  const form = useFormErrors(errors, () => check().bad);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => focusInView(first.current), []);
  // One key per form: pressing Save again after a lost answer is answered with the stored reminder.
  const key = useRef(uuid());

  const fail = (found: FieldError[]) => {
    setErrors(found);
    form.reveal();
  };

  /** check: what is wrong with the form as it is now (what Save refuses), and the values read. */
  function check() {
    const bad: FieldError[] = [];
    const name = title.trim();
    // Counts and a reading: a grouping separator is never a decimal point ("15.000" km in de-DE is 15000).
    const kmV = km.trim() === '' ? null : readNumber(km, 'count');
    const monthsV = months.trim() === '' ? null : readNumber(months, 'count');
    const lastOdoV = lastOdo.trim() === '' ? null : readNumber(lastOdo, 'reading');
    const lastAt = lastDate === '' ? null : fromLocalInput(`${lastDate}T12:00`);
    if (name === '' || [...name].length > 200) bad.push({ id: `${p}-title`, message: tk('rem.errTitle') });
    if (km.trim() === '' && months.trim() === '') bad.push({ id: `${p}-km`, message: tk('rem.errEvery') });
    if (km.trim() !== '' && !wholePositive(kmV)) bad.push({ id: `${p}-km`, message: tk('rem.errKm', { unit: dist, example: numberExample('count') }) });
    if (months.trim() !== '' && !wholePositive(monthsV)) bad.push({ id: `${p}-months`, message: tk('rem.errMonths') });
    // As the service: months count from a day, so with months a reading needs its date; a distance
    // counts from the reading, so with a distance a date needs its reading. A reading alone is fine by distance.
    if (lastDate !== '' && lastAt === null) bad.push({ id: `${p}-last`, message: tk('rem.errLastDate', writeLike()) });
    else if (lastDate === '' && lastOdo.trim() !== '' && months.trim() !== '') bad.push({ id: `${p}-last`, message: tk('rem.errLastDateNeeded') });
    if (lastOdo.trim() !== '' && lastOdoV === null) bad.push({ id: `${p}-last-odo`, message: tk('rem.errLastOdometer', { unit: dist, example: numberExample('reading') }) });
    else if (lastDate !== '' && km.trim() !== '' && lastOdo.trim() === '') bad.push({ id: `${p}-last-odo`, message: tk('rem.errLastOdometerNeeded', { unit: dist }) });
    return { bad, name, kmV, monthsV, lastOdoV, lastAt };
  }

  async function submit(ev: Event) {
    ev.preventDefault();
    if (saving) return;
    setErrors([]);
    const { bad, name, kmV, monthsV, lastOdoV, lastAt } = check();
    if (bad.length > 0) return fail(bad);
    // The service counts in whole km; a distance typed in miles is converted and rounded to one.
    const toKm = (v: string) => new Dec(round(distanceToKm(v, u), 0));
    const body: ReminderInput = {
      title: name, category, notes: notes.trim(),
      ...(km !== initialKm || !record ? { every_km: kmV === null ? null : toKm(kmV) } : {}),
      every_months: monthsV === null ? null : Number(monthsV),
      ...(lastDate !== initialLastDate || lastOdo !== initialLastOdo || !record
        ? (lastAt === null && lastOdoV === null
          ? (record ? { last_done: null } : {})
          : { last_done: { time: lastAt, odometer: lastOdoV === null ? null : new Dec(distanceToKm(lastOdoV, u)) } })
        : {}),
    };
    setSaving(true);
    try {
      if (record) {
        await costs.updateReminder(record.id, body);
        onDone(tk('rem.updated', { title: name }), body);
      } else {
        const made = await costs.createReminder({ vehicle_id: vehicle.id, ...body }, key.current);
        onDone(tk('rem.saved', { title: made.title }), undefined, made);
      }
    } catch (err) {
      fail(fromService((err as Error).message, {
        title: { id: `${p}-title`, label: tk('rem.title') },
        category: { id: `${p}-cat`, label: tk('rem.category') },
        every_km: { id: `${p}-km`, label: tk('rem.everyKm') },
        every_months: { id: `${p}-months`, label: tk('rem.everyMonths') },
        'last_done.time': { id: `${p}-last`, label: tk('rem.lastDate') },
        'last_done.odometer': { id: `${p}-last-odo`, label: tk('rem.lastOdometer') },
        last_done: { id: `${p}-last`, label: tk('rem.lastDate') },
        notes: { id: `${p}-notes`, label: tk('rem.notes') },
        vehicle_id: { id: `${p}-title`, label: t('common.vehicle') },
      }, (message) => tk('rem.notSaved', { message })));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form class="form" noValidate onSubmit={(e) => void submit(e)} aria-label={record ? tk('rem.editForm') : tk('rem.newForm')}>
      <ErrorSummary form={form} />
      <div class="field">
        <label for={`${p}-title`}>{tk('rem.title')}</label>
        <input id={`${p}-title`} ref={first} maxLength={200} autoComplete="off" value={title} {...form.control(`${p}-title`)} onInput={(e) => setTitle(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-title`} />
      </div>
      <div class="field">
        <label for={`${p}-cat`}>{tk('rem.category')}</label>
        <select id={`${p}-cat`} value={category} {...form.control(`${p}-cat`)} onChange={(e) => setCategory(e.currentTarget.value as Category)}>
          {CATEGORIES.map((c) => <option key={c} value={c}>{categoryName(c)}</option>)}
        </select>
        <FieldMessage form={form} id={`${p}-cat`} />
      </div>
      <p class="hint" id={`${p}-every-hint`}>{tk('rem.everyHint')}</p>
      <div class="pair">
        <div class="field">
          <label for={`${p}-km`}>{tk('rem.everyKm')}</label>
          <div class="with-unit">
            <input id={`${p}-km`} inputMode="numeric" autoComplete="off" value={km} {...form.control(`${p}-km`, `${p}-km-unit`, `${p}-every-hint`)} onInput={(e) => setKm(e.currentTarget.value)} />
            <span id={`${p}-km-unit`} class="unit">{dist}</span>
          </div>
          <FieldMessage form={form} id={`${p}-km`} />
        </div>
        <div class="field">
          <label for={`${p}-months`}>{tk('rem.everyMonths')}</label>
          <div class="with-unit">
            <input id={`${p}-months`} inputMode="numeric" autoComplete="off" value={months} {...form.control(`${p}-months`, `${p}-months-unit`, `${p}-every-hint`)} onInput={(e) => setMonths(e.currentTarget.value)} />
            <span id={`${p}-months-unit`} class="unit">{tk('rem.months')}</span>
          </div>
          <FieldMessage form={form} id={`${p}-months`} />
        </div>
      </div>
      <p class="hint" id={`${p}-last-hint`}>{tk('rem.lastHint')}</p>
      <div class="pair">
        <div class="field">
          <label for={`${p}-last`}>{tk('rem.lastDate')}</label>
          <DateField id={`${p}-last`} value={lastDate} control={form.control(`${p}-last`, `${p}-last-hint`)} onChange={setLastDate} />
          <FieldMessage form={form} id={`${p}-last`} />
        </div>
        <div class="field">
          <label for={`${p}-last-odo`}>{tk('rem.lastOdometer')}</label>
          <div class="with-unit">
            <input id={`${p}-last-odo`} inputMode="decimal" autoComplete="off" value={lastOdo} {...form.control(`${p}-last-odo`, `${p}-last-odo-unit`, `${p}-last-hint`)} onInput={(e) => setLastOdo(e.currentTarget.value)} />
            <span id={`${p}-last-odo-unit`} class="unit">{dist}</span>
          </div>
          <FieldMessage form={form} id={`${p}-last-odo`} />
        </div>
      </div>
      <div class="field">
        <label for={`${p}-notes`}>{tk('rem.notes')}</label>
        <textarea id={`${p}-notes`} rows={2} value={notes} {...form.control(`${p}-notes`)} onInput={(e) => setNotes(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-notes`} />
      </div>
      <div class="buttons">
        <button type="submit" disabled={saving}>{tk('rem.save')}</button>
        <button type="button" class="secondary" onClick={() => onDone(null)}>{t('common.cancel')}</button>
      </div>
    </form>
  );
}

/** fmtDay: a date the service gives ("2027-03-01", or an instant) as the owner's locale writes it; a bare date is that calendar day in every zone. */
function fmtDay(s: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(s) ? fmtDate(`${s}T12:00:00Z`) : fmtDate(s);
}

/** dateInput: a date input's value for an instant, in the owner's zone. */
function dateInput(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
