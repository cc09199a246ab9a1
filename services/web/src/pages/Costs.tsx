// Costs: the vehicle's expenses (service, repairs, insurance, tax, parking…)
// newest first, with their receipts, and its reminders (pages/Reminders.tsx).
// A new expense goes through the outbox as a refuel does (Idempotency-Key,
// the body serialized once), its receipts as items waiting for it; editing
// and deleting need a connection, as for refuels.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useSearch } from '../router';
import { linkedReminder } from '../lib/notifications';
import type { VehicleContext } from './context';
import { canWriteRefuels, currencyOf, type Vehicle } from '../api/fuel';
import { CATEGORIES, costPaths, costs, type Category, type Expense, type ExpenseInput } from '../api/costs';
import { sessions } from '../api/session';
import { useOnline, useResource } from '../hooks';
import { outbox, sync } from '../offline/sync';
import { isExpense, type ExpenseSummary, type OutboxItem } from '../offline/outbox';
import { Dec, jsonWithDecimals, parseDecimal } from '../lib/decimal';
import { inputNumber, numberExample, readNumber } from '../lib/numbers';
import { admitFiles } from '../lib/costs';
import { currencyLabel, currencyPlaces, fmtDate, fmtDateTime, fmtMoney, fromLocalInput, homeCurrency, localInputValue } from '../lib/format';
import { units as activeUnits } from '../lib/preferences';
import { distanceToKm, kmToDistance } from '../lib/units';
import { distanceLabel, fmtDistance } from '../lib/labels';
import { uuid } from '../lib/uuid';
import { t } from '../i18n';
import { tk } from '../i18n/costs';
import { AsOf, ErrorText } from '../components/messages';
import { NO_MARKS, ReadMark, fieldClass, markId, unmark, type ReadMarks } from '../components/read-marks';
import { NoVehicle, VehiclePicker } from '../components/vehicle-picker';
import { ScanExpense } from '../components/receipt-scan';
import { navigate } from '../router';
import { announce, current, type Notice } from '../components/status';
import { undoCreate } from '../offline/undo';
import { expenseAsBefore } from '../api/restore';
import { writeLike } from '../lib/dates';
import { DateField } from '../components/date-field';
import { ErrorSummary, FieldMessage, focusInView, fromService, useFormErrors, type FieldError, type ServiceFields } from '../components/form-errors';
import { CategoryIcon } from '../components/category-icons';
import { Attachments, FileInput, QueuedFiles, queueWithRecord, refusal, useQueued } from '../components/attachments';
import { Reminders } from './Reminders';
import { ExpensesExport } from '../components/expenses-export';
import { CalendarFeed } from '../components/calendar-feed';

export const categoryName = (c: Category) => tk(`cat.${c}`);

function useOutboxItems(): OutboxItem[] {
  const [items, setItems] = useState<OutboxItem[]>([]);
  useEffect(() => {
    const update = () => void outbox.items().then(setItems);
    update();
    return outbox.subscribe(update);
  }, []);
  return items;
}

export function Costs({ vehicles, vehiclesAsOf, chosen, choose, user }: VehicleContext) {
  // A reminder's notification opens "/costs?vehicle=2&reminder=7": that vehicle, that reminder in view.
  const search = useSearch();
  const linked = linkedReminder(search);
  // A receipt to review (Home, History) opens the new expense's form filled: "/costs?draft=…".
  const draft = new URLSearchParams(search).get('draft');
  useEffect(() => {
    if (linked.vehicle !== null) choose(linked.vehicle);
    if (draft) setAdding(true);
  }, [search]);
  const vehicle = vehicles?.find((v) => v.id === chosen);
  const writable = vehicle !== undefined && canWriteRefuels(vehicle);
  const cur = currencyOf(vehicle, homeCurrency());
  const list = useResource<Expense[]>(chosen === null ? null : costPaths.expenses(chosen));
  const online = useOnline();
  const all = useOutboxItems();
  // Queued expenses of this vehicle (or of one deleted on another device), the signed-in user's only.
  const gone = (i: { expense: ExpenseSummary }) => vehicles !== undefined && !vehicles.some((v) => v.id === i.expense.vehicle_id);
  const queued = all.filter(isExpense).filter((i) => (i.expense.vehicle_id === chosen || gone(i)) && (i.owner === undefined || user === null || i.owner === user.id));
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const addButton = useRef<HTMLButtonElement>(null);

  // A queued expense that was just sent belongs in the list now.
  const count = queued.length;
  const seen = useRef(count);
  useEffect(() => {
    if (count < seen.current && chosen !== null) {
      list.reload();
      // "Queued…" is no longer true: it is on the server now (its Undo still undoes it).
      const shown = current();
      if (shown && queuedText.has(shown.text)) announce({ ...shown, text: tk('costs.sentNow') });
    }
    seen.current = count;
  }, [count]);

  async function remove(e: Expense) {
    if (!window.confirm(tk('costs.deleteConfirm', { title: e.title, when: fmtDateTime(e.time) }))) return;
    setError(null);
    try {
      await costs.deleteExpense(e.id);
      announce(tk('costs.deleted'));
      list.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  const expenses = list.data ?? [];
  return (
    <>
      <h1 tabIndex={-1}>{t('nav.costs')}</h1>
      <AsOf asOf={list.asOf ?? vehiclesAsOf} />
      {vehicles && vehicles.length > 0 && <VehiclePicker vehicles={vehicles} value={chosen} onChange={choose} />}
      {vehicles && vehicles.length === 0 && <NoVehicle />}
      {vehicle && !writable && <p class="hint">{tk('costs.readOnly')}</p>}
      {vehicle && <Reminders vehicle={vehicle} writable={writable} online={online}
        linked={linked.vehicle === null || linked.vehicle === vehicle.id ? linked.reminder : null} />}
      {vehicle && <CalendarFeed user={user} />}
      {vehicle && (
        <section aria-labelledby="expenses-h">
          <h2 id="expenses-h">{tk('costs.log')}</h2>
          <p class="hint">{tk('costs.intro')}</p>
          <ErrorText error={list.error ?? error} />
          {writable && !adding && (
            <button type="button" ref={addButton} onClick={() => setAdding(true)}>{tk('costs.add')}</button>
          )}
          {writable && adding && (
            <ExpenseForm vehicle={vehicle} cur={cur} draft={draft} choose={choose} vehicles={vehicles} onDone={(text) => {
              setAdding(false);
              if (draft) navigate('/costs', true);
              if (text) announce(text);
              list.reload();
              setTimeout(() => addButton.current?.focus(), 0);
            }} />
          )}
          {queued.length > 0 && (
            <section aria-labelledby="costs-queued-h">
              <h3 id="costs-queued-h">{tk('costs.notOnServer')}</h3>
              <ul class="records">
                {queued.map((i) => <QueuedExpense key={i.key} item={i} cur={cur} gone={gone(i)} />)}
              </ul>
            </section>
          )}
          {list.loading && !list.data && <p>{t('common.loading')}</p>}
          {list.data && expenses.length === 0 && queued.length === 0 && <p>{tk('costs.none')}</p>}
          {writable && !online && expenses.length > 0 && <p class="hint">{tk('costs.needsConnection')}</p>}
          {expenses.length > 0 && (
            <ul class="records" aria-label={tk('costs.log')}>
              {expenses.map((e) => editing === e.id ? (
                <li key={e.id} class="record">
                  <ExpenseForm vehicle={vehicle} cur={cur} record={e} onDone={(text) => {
                    setEditing(null);
                    // Undo puts back what the expense held before the edit (api/restore.ts).
                    if (text) announce({ text: typeof text === 'string' ? text : text.text, action: { label: t('status.undo'), run: async () => {
                      await costs.updateExpense(e.id, expenseAsBefore(e));
                      list.reload();
                      return tk('costs.updateUndone');
                    } } });
                    list.reload();
                  }} />
                </li>
              ) : (
                <ExpenseItem key={e.id} e={e} cur={cur} writable={writable} online={online}
                  onEdit={() => setEditing(e.id)} onDelete={() => void remove(e)} />
              ))}
            </ul>
          )}
          {expenses.length > 0 && <ExpensesExport vehicleId={vehicle.id} withToken={user !== null} />}
        </section>
      )}
    </>
  );
}

function ExpenseItem({ e, cur, writable, online, onEdit, onDelete }: {
  e: Expense; cur: string; writable: boolean; online: boolean; onEdit: () => void; onDelete: () => void;
}) {
  const [open, setOpen] = useState(false);
  const u = activeUnits();
  const hid = `exp-${e.id}`;
  return (
    <li class="record expense" aria-labelledby={hid}>
      <div class="expense-head">
        <span class={`cat cat-${e.category}`}><CategoryIcon category={e.category} /></span>
        <div class="expense-what">
          <h3 id={hid}>{e.title}</h3>
          <p class="expense-meta">{`${categoryName(e.category)} · ${fmtDateTime(e.time)}`}</p>
        </div>
        <span class="expense-amount">{fmtMoney(e.amount, 0, cur)}</span>
      </div>
      {(e.odometer != null || e.vendor || e.notes) && (
        <dl>
          {e.odometer != null && <div><dt>{t('history.odometer')}</dt><dd>{fmtDistance(e.odometer, u)}</dd></div>}
          {e.vendor && <div><dt>{tk('costs.vendor')}</dt><dd>{e.vendor}</dd></div>}
          {e.notes && <div><dt>{tk('costs.notes')}</dt><dd>{e.notes}</dd></div>}
        </dl>
      )}
      <details class="receipts" onToggle={(ev) => setOpen((ev.currentTarget).open)}>
        <summary>{tk('att.heading')}</summary>
        {open && <Attachments owner="expenses" ownerId={e.id} canWrite={writable} />}
      </details>
      {writable && (
        <div class="buttons">
          <button type="button" class="secondary" onClick={onEdit} disabled={!online}>{t('common.edit')}</button>
          <button type="button" class="danger" onClick={onDelete} disabled={!online}>{t('common.delete')}</button>
        </div>
      )}
    </li>
  );
}

function QueuedExpense({ item, cur, gone }: { item: OutboxItem & { expense: ExpenseSummary }; cur: string; gone: boolean }) {
  const s = item.expense;
  const files = useQueued((i) => i.parent === item.key);
  const attention = item.state === 'attention';
  const category = (CATEGORIES as readonly string[]).includes(s.category) ? (s.category as Category) : 'other';
  return (
    <li class={attention ? 'record attention' : 'record waiting'}>
      <div class="expense-head">
        <span class={`cat cat-${category}`}><CategoryIcon category={category} /></span>
        <div class="expense-what">
          <h4>{s.title}</h4>
          <p class="expense-meta">{`${categoryName(category)} · ${fmtDateTime(s.time)}`}</p>
        </div>
        <span class="expense-amount">{fmtMoney(s.amount, 0, cur)}</span>
      </div>
      <p class="badge">{attention ? tk('costs.needsAttention') : tk('costs.waiting')}</p>
      {attention && <p class="error">{tk('costs.refused', { message: item.message ?? '' })}</p>}
      {gone && <p>{tk('costs.vehicleGone')}</p>}
      <QueuedFiles items={files} />
      {attention && (
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => void outbox.retry(item.key).then(sync)}>{tk('costs.sendAgain')}</button>
          <button type="button" class="danger" onClick={() => void outbox.discard(item.key)}>{tk('costs.discard')}</button>
        </div>
      )}
    </li>
  );
}

/** The confirmations of expenses queued on this device: once one is sent, it says so instead. */
const queuedText = new Set<string>();

/** undoExpense removes the expense just saved (from the outbox with its photos, or from the server once sent) and says so. */
async function undoExpense(key: string, what: string): Promise<string> {
  const done = await undoCreate(outbox, key, (id) => costs.deleteExpense(Number(id)));
  return done === 'unknown' ? tk('costs.undoUnknown') : tk('costs.undone', { what });
}

/** The expense's fields as the service names them in its errors, and the form's controls for them. */
function serviceFields(p: string, category: Category): ServiceFields {
  return {
    vehicle_id: { id: `${p}-title`, label: t('common.vehicle') },
    time: { id: `${p}-when`, label: tk('costs.dateTime') },
    odometer: { id: `${p}-odo`, label: tk('costs.odometer') },
    category: { id: `${p}-cat-${category}`, label: tk('costs.category') },
    title: { id: `${p}-title`, label: tk('costs.title') },
    amount: { id: `${p}-amount`, label: tk('costs.amount') },
    vendor: { id: `${p}-vendor`, label: tk('costs.vendor') },
    notes: { id: `${p}-notes`, label: tk('costs.notes') },
  };
}

interface FormProps {
  vehicle: Vehicle;
  cur: string;
  /** The stored expense being edited; none: a new one. */
  record?: Expense;
  /** Called with what to tell the owner (null: cancelled). */
  onDone: (text: Notice | string | null) => void;
  /** A receipt's draft to open in a new expense's form; choose and vehicles: to pick the draft's vehicle. */
  draft?: string | null;
  choose?: (id: number) => void;
  vehicles?: Vehicle[];
}

function ExpenseForm({ vehicle, cur, record, onDone, draft, choose: chooseVehicle, vehicles }: FormProps) {
  const u = activeUnits();
  const p = record ? `exp-edit-${record.id}` : 'exp-new';
  // In the owner's number format ("71,50" in de-DE), every stored place kept: saved unchanged, the same values.
  const initialOdometer = record?.odometer != null ? inputNumber(kmToDistance(record.odometer, u, 3)) : '';
  const [category, setCategory] = useState<Category>(record?.category ?? 'service');
  const [title, setTitle] = useState(record?.title ?? '');
  const [amount, setAmount] = useState(() => (record ? inputNumber(record.amount, currencyPlaces(cur)) : ''));
  const [when, setWhen] = useState(() => localInputValue(record ? new Date(record.time) : new Date()));
  const [odometer, setOdometer] = useState(initialOdometer);
  const [vendor, setVendor] = useState(record?.vendor ?? '');
  const [notes, setNotes] = useState(record?.notes ?? '');
  const [files, setFiles] = useState<File[]>([]);
  const [fileProblems, setFileProblems] = useState<string | null>(null);
  // What a scanned receipt filled (marked until changed), its photo, and the draft it came from.
  const [read, setRead] = useState<ReadMarks>(NO_MARKS);
  const touch = (id: string) => setRead((r) => unmark(r, id));
  const scanned = useRef<File | null>(null);
  const [fromDraft, setFromDraft] = useState<string | null>(null);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [saving, setSaving] = useState(false);
  const form = useFormErrors(errors);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => focusInView(first.current), []);
  const dist = distanceLabel(u);

  const fail = (found: FieldError[]) => {
    setErrors(found);
    form.reveal();
  };

  function choose(chosen: File[]) {
    // What the service would refuse is said now; the bound of the queue is checked when they are queued.
    const { admitted, refused } = admitFiles(chosen, files.length, 0);
    const keep = chosen.filter((f) => admitted.includes(f));
    setFiles([...files, ...keep]);
    setFileProblems(refused.length > 0 ? refused.map(refusal).join(' ') : null);
  }

  async function submit(ev: Event) {
    ev.preventDefault();
    if (saving) return;
    setErrors([]);
    const bad: FieldError[] = [];
    const at = fromLocalInput(when);
    const money = parseDecimal(amount);
    const odo = odometer.trim() === '' ? null : readNumber(odometer, 'reading');
    const name = title.trim();
    if (name === '' || [...name].length > 200) bad.push({ id: `${p}-title`, message: tk('costs.errTitle') });
    if (money === null) bad.push({ id: `${p}-amount`, message: tk('costs.errAmount', { example: numberExample('decimal', undefined, amount) }) });
    if (!at) bad.push({ id: `${p}-when`, message: tk('costs.errWhen', writeLike()) });
    if (odometer.trim() !== '' && odo === null) bad.push({ id: `${p}-odo`, message: tk('costs.errOdometer', { unit: dist, example: numberExample('reading') }) });
    if (bad.length > 0 || money === null || !at) return fail(bad);
    const fields = serviceFields(p, category);
    setSaving(true);
    try {
      if (record) {
        // A reading left as it was is not sent (converted back it could move in its last place).
        const odoChange = odometer === initialOdometer ? {} : { odometer: odo === null ? null : new Dec(distanceToKm(odo, u)) };
        try {
          await costs.updateExpense(record.id, { time: at, category, title: name, amount: new Dec(money), vendor: vendor.trim(), notes: notes.trim(), ...odoChange });
        } catch (err) {
          return fail(fromService((err as Error).message, fields, (message) => tk('costs.notSaved', { message })));
        }
        return onDone(tk('costs.updated', { what: tk('costs.what', { title: name, amount: fmtMoney(money, 0, cur), date: fmtDate(at) }) }));
      }
      const input: ExpenseInput = {
        vehicle_id: vehicle.id, time: at, category, title: name, amount: new Dec(money), vendor: vendor.trim(), notes: notes.trim(),
        ...(odo !== null ? { odometer: new Dec(distanceToKm(odo, u)) } : {}),
      };
      const key = uuid();
      await outbox.add({
        key, kind: 'expense', method: 'POST', path: costPaths.createExpense, body: jsonWithDecimals(input),
        owner: (await sessions.current())?.user?.id,
        expense: { vehicle_id: vehicle.id, time: at, category, title: name, amount: money },
      });
      const r = await sync();
      if (r.rejected.includes(key)) {
        // Sent now and refused: the owner is here to fix it, so it does not wait in the outbox.
        const item = (await outbox.items()).find((i) => i.key === key);
        await outbox.discard(key);
        return fail(fromService(item?.message ?? tk('costs.refusedDefault'), fields, (message) => tk('costs.notSaved', { message })));
      }
      // What was saved, in view with its Undo (components/status.tsx).
      const what = tk('costs.what', { title: name, amount: fmtMoney(money, 0, cur), date: fmtDate(at) });
      let text = r.sent.includes(key) ? tk('costs.saved', { what }) : r.unauthorized ? tk('costs.queuedSession', { what }) : tk('costs.queuedOffline', { what });
      if (files.length > 0) text = [text, ...(await queueWithRecord(files, 'expenses', key, r.sent.includes(key)))].join(' ');
      if (!r.sent.includes(key)) queuedText.add(text);
      // A reviewed draft is a record now.
      if (fromDraft) await import('../offline/drafts').then((m) => m.removeDraft(fromDraft));
      onDone({ text, action: { label: t('status.undo'), run: () => undoExpense(key, what) } });
    } finally {
      setSaving(false);
    }
  }

  return (
    <form class="form expense-form" noValidate onSubmit={(e) => void submit(e)} aria-label={record ? tk('costs.editForm') : tk('costs.newForm')}>
      <ErrorSummary form={form} />
      {!record && <ScanExpense id={`${p}-scan`} vehicleId={vehicle.id} draft={draft} context={{ home: cur, when }}
        onDiscard={() => onDone(null)}
        onFill={(f, photo, d) => {
          const v = f.values;
          if (d?.vehicle_id != null && d.vehicle_id !== vehicle.id && vehicles?.some((x) => x.id === d.vehicle_id)) chooseVehicle?.(d.vehicle_id);
          if (v.amount) setAmount(v.amount);
          if (v.when) setWhen(v.when);
          if (v.odometer) setOdometer(v.odometer);
          if (v.vendor) setVendor(v.vendor);
          const ids = { amount: `${p}-amount`, when: `${p}-when`, odometer: `${p}-odo`, vendor: `${p}-vendor` } as const;
          setRead({ marks: Object.fromEntries(Object.entries(f.marks).map(([k, m]) => [ids[k as keyof typeof ids], m])), words: f.words });
          const prev = scanned.current;
          scanned.current = photo;
          setFiles((fs) => [...fs.filter((x) => x !== prev), photo]);
          setFromDraft(d?.id ?? null);
        }} />}
      <fieldset class="categories">
        <legend>{tk('costs.category')}</legend>
        {CATEGORIES.map((c, i) => (
          <label key={c} class={c === category ? 'category chosen' : 'category'}>
            <input type="radio" name={`${p}-cat`} id={`${p}-cat-${c}`} value={c} checked={c === category}
              ref={i === 0 ? first : undefined} onChange={() => setCategory(c)} />
            <CategoryIcon category={c} />
            <span>{categoryName(c)}</span>
          </label>
        ))}
        <FieldMessage form={form} id={`${p}-cat-${category}`} />
      </fieldset>
      <div class="field">
        <label for={`${p}-title`}>{tk('costs.title')}</label>
        <input id={`${p}-title`} maxLength={200} autoComplete="off" value={title} {...form.control(`${p}-title`, `${p}-title-hint`)}
          onInput={(e) => setTitle(e.currentTarget.value)} />
        <p class="hint" id={`${p}-title-hint`}>{tk('costs.titleHint')}</p>
        <FieldMessage form={form} id={`${p}-title`} />
      </div>
      <div class={fieldClass(read, `${p}-amount`)}>
        <label for={`${p}-amount`}>{tk('costs.amount')}</label>
        <div class="with-unit">
          <input id={`${p}-amount`} inputMode="decimal" autoComplete="off" value={amount} {...form.control(`${p}-amount`, `${p}-amount-unit`, markId(read, `${p}-amount`))}
            onInput={(e) => { setAmount(e.currentTarget.value); touch(`${p}-amount`); }} />
          <span id={`${p}-amount-unit`} class="unit">{currencyLabel(cur)}</span>
        </div>
        <ReadMark r={read} id={`${p}-amount`} />
        <FieldMessage form={form} id={`${p}-amount`} />
      </div>
      <div class={fieldClass(read, `${p}-when`)}>
        <label for={`${p}-when`}>{tk('costs.dateTime')}</label>
        <DateField id={`${p}-when`} withTime value={when} control={form.control(`${p}-when`, markId(read, `${p}-when`))} onChange={(v) => { setWhen(v); touch(`${p}-when`); }} />
        <ReadMark r={read} id={`${p}-when`} />
        <FieldMessage form={form} id={`${p}-when`} />
      </div>
      <div class={fieldClass(read, `${p}-odo`)}>
        <label for={`${p}-odo`}>{tk('costs.odometer')}</label>
        <div class="with-unit">
          <input id={`${p}-odo`} inputMode="decimal" autoComplete="off" value={odometer} {...form.control(`${p}-odo`, `${p}-odo-unit`, markId(read, `${p}-odo`))}
            onInput={(e) => { setOdometer(e.currentTarget.value); touch(`${p}-odo`); }} />
          <span id={`${p}-odo-unit`} class="unit">{dist}</span>
        </div>
        <ReadMark r={read} id={`${p}-odo`} />
        <FieldMessage form={form} id={`${p}-odo`} />
      </div>
      <div class={fieldClass(read, `${p}-vendor`)}>
        <label for={`${p}-vendor`}>{tk('costs.vendor')}</label>
        <input id={`${p}-vendor`} maxLength={128} autoComplete="off" value={vendor} {...form.control(`${p}-vendor`, markId(read, `${p}-vendor`))}
          onInput={(e) => { setVendor(e.currentTarget.value); touch(`${p}-vendor`); }} />
        <ReadMark r={read} id={`${p}-vendor`} />
        <FieldMessage form={form} id={`${p}-vendor`} />
      </div>
      <div class="field">
        <label for={`${p}-notes`}>{tk('costs.notes')}</label>
        <textarea id={`${p}-notes`} maxLength={2000} rows={2} value={notes} {...form.control(`${p}-notes`)} onInput={(e) => setNotes(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-notes`} />
      </div>
      {record ? (
        <fieldset class="receipts-edit">
          <legend>{tk('att.heading')}</legend>
          <Attachments owner="expenses" ownerId={record.id} canWrite />
        </fieldset>
      ) : (
        <>
          <FileInput id={`${p}-files`} onFiles={choose} />
          {files.length > 0 && <p class="chosen">{tk('att.chosen', { names: files.map((f) => f.name).join(', ') })}</p>}
          <ErrorText error={fileProblems} />
        </>
      )}
      <div class="buttons">
        <button type="submit" disabled={saving}>{record ? tk('costs.saveChanges') : tk('costs.save')}</button>
        <button type="button" class="secondary" onClick={() => onDone(null)}>{t('common.cancel')}</button>
      </div>
    </form>
  );
}
