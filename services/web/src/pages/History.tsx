import { useEffect, useRef, useState } from 'preact/hooks';
import type { VehicleContext } from './context';
import { ENERGIES, canWriteRefuels, currencyOf, fuel, paths, unitOf, type Energy, type EnergyUnit, type RefuelRecord } from '../api/fuel';
import { useOnline, useResource } from '../hooks';
import { outbox, sync } from '../offline/sync';
import { isRefuel, type OutboxItem, type RefuelSummary } from '../offline/outbox';
import { spans, type Span } from '../lib/spans';
import { refuelAsBefore } from '../api/restore';
import { writeLike } from '../lib/dates';
import { DateField } from '../components/date-field';
import { Dec, parseDecimal } from '../lib/decimal';
import { inputNumber, numberExample, readNumber } from '../lib/numbers';
import { currencyLabel, currencyPlaces, fmtDateTime, fmtMoney, fmtNumber, fmtPrice, fromLocalInput, homeCurrency, localInputValue } from '../lib/format';
import { AsOf, ErrorText } from '../components/messages';
import { NoVehicle, VehiclePicker } from '../components/vehicle-picker';
import { announce } from '../components/status';
import { ErrorSummary, FieldMessage, fromService, useFormErrors, type FieldError } from '../components/form-errors';
import { t } from '../i18n';
import { units as activeUnits } from '../lib/preferences';
import {
  CONSUMPTION_PLACES, PLACES, consumptionUnitOf, convertConsumption, distanceToKm, kmToDistance, metricToQuantity, quantityToMetric, recordPrice, type Units,
} from '../lib/units';
import { consumptionLabel, distanceLabel, energyName, fmtDistance, quantityLabel } from '../lib/labels';
import { lazyComponent } from '../components/lazy';

// A refuel's receipts and photos load with the costs chunk, when they are opened.
const Attachments = lazyComponent(() => import('../components/attachments').then((m) => m.Attachments));
// The photos that wait with a queued refuel (added in Add refuel offline).
const FilesWaitingWith = lazyComponent(() => import('../components/attachments').then((m) => m.FilesWaitingWith), { quiet: true });
// Receipts photographed offline, to review (a chunk of the scan's: components/receipt-scan.tsx).
const DraftsToReview = lazyComponent(() => import('../components/receipt-scan').then((m) => m.DraftsToReview), { quiet: true });

function useOutbox(): OutboxItem[] {
  const [items, setItems] = useState<OutboxItem[]>([]);
  useEffect(() => {
    const update = () => void outbox.items().then(setItems);
    update();
    return outbox.subscribe(update);
  }, []);
  return items;
}

export function History({ vehicles, vehiclesAsOf, chosen, choose, user }: VehicleContext) {
  const list = useResource<RefuelRecord[]>(chosen === null ? null : paths.refuels(chosen));
  // Another user's queued writes (made before a sign-out) wait for them and are not shown here.
  // Those of a vehicle no longer on the server (deleted on another device) show under every
  // vehicle: they can be stored nowhere, and only here can they be seen and discarded.
  const gone = (i: { summary: RefuelSummary }) => vehicles !== undefined && !vehicles.some((v) => v.id === i.summary.vehicle_id);
  const queued = useOutbox().filter(isRefuel).filter((i) => (i.summary.vehicle_id === chosen || gone(i)) && (i.owner === undefined || user === null || i.owner === user.id));
  const [editing, setEditing] = useState<number | null>(null);
  // A vehicle shared with the user to view only: its records show without Edit and Delete.
  const chosenVehicle = vehicles?.find((v) => v.id === chosen);
  const writable = chosenVehicle === undefined || canWriteRefuels(chosenVehicle);
  // The vehicle's amounts are in its owner's currency (a shared vehicle's may not be the user's).
  const home = currencyOf(chosenVehicle, homeCurrency());
  const [error, setError] = useState<string | null>(null);
  const online = useOnline();

  // A queued record that was just sent belongs in the list now.
  const queuedCount = queued.length;
  const seenCount = useRef(queuedCount);
  useEffect(() => {
    if (queuedCount < seenCount.current && chosen !== null) list.reload();
    seenCount.current = queuedCount;
  }, [queuedCount]);

  const records = list.data ?? [];
  const sp = spans(records);
  // With records of several energies (a plug-in hybrid), each figure is per km driven on any energy.
  const several = new Set(records.map((r) => r.energy)).size > 1;

  async function remove(r: RefuelRecord) {
    if (!window.confirm(t('history.deleteConfirm', { when: fmtDateTime(r.refuel_time) }))) return;
    setError(null);
    try {
      await fuel.deleteRefuel(r.id);
      announce(t('history.deleted'));
      list.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <>
      <h1 tabIndex={-1}>{t('nav.history')}</h1>
      <AsOf asOf={list.asOf ?? vehiclesAsOf} />
      {vehicles && vehicles.length > 0 && <VehiclePicker vehicles={vehicles} value={chosen} onChange={choose} />}
      {vehicles && vehicles.length === 0 && <NoVehicle />}
      <ErrorText error={list.error ?? error} />
      <DraftsToReview user={user?.id} />
      {queued.length > 0 && (
        <section aria-labelledby="queued-h">
          <h2 id="queued-h">{t('history.notOnServer')}</h2>
          <ul class="records">
            {queued.map((i) => <QueuedItem key={i.key} item={i} gone={gone(i)} />)}
          </ul>
        </section>
      )}
      {list.loading && !list.data && <p>{t('common.loading')}</p>}
      {list.data && records.length === 0 && queued.length === 0 && <p>{t('history.none')}</p>}
      {records.length > 0 && (
        <ul class="records" aria-label={t('history.refuels')}>
          {records.map((r) =>
            editing === r.id ? (
              <li key={r.id} class="record">
                <EditRefuel record={r} currency={r.currency || home} onDone={(saved) => {
                  setEditing(null);
                  if (!saved) return;
                  // Undo puts back what the record held before the edit: every member the edit form sends.
                  announce({ text: t('history.updated'), action: { label: t('status.undo'), run: async () => {
                    await fuel.updateRefuel(r.id, refuelAsBefore(r));
                    list.reload();
                    return t('history.updateUndone');
                  } } });
                  list.reload();
                }} />
              </li>
            ) : (
              <RecordItem key={r.id} r={r} home={home} span={sp.get(r.id)} several={several} online={online} writable={writable}
                onEdit={() => setEditing(r.id)} onDelete={() => void remove(r)} />
            ),
          )}
        </ul>
      )}
    </>
  );
}

/** qty: a metric quantity from the service in the owner's unit, with its label. */
function qty(v: number | string, unit: EnergyUnit, u: Units): string {
  return `${fmtNumber(metricToQuantity(v, unit, u), PLACES.quantity)} ${quantityLabel(unit, u)}`;
}

function RecordItem({ r, home, span, several, online, writable, onEdit, onDelete }: {
  r: RefuelRecord; home: string; span: Span | undefined; several: boolean; online: boolean; writable: boolean; onEdit: () => void; onDelete: () => void;
}) {
  const hid = `rec-${r.id}`;
  const u = activeUnits();
  const price = recordPrice(r.total_amount, r.liters, r.unit, u);
  // Paid in another currency: what was paid there, and what the home currency was charged.
  const abroad = Boolean(r.currency) && r.home_amount != null;
  const paid = abroad ? r.currency! : home;
  const consumption = span?.consumption != null ? convertConsumption(span.consumption, consumptionUnitOf(r.unit, u)) : null;
  const [receipts, setReceipts] = useState(false);
  return (
    <li class="record" aria-labelledby={hid}>
      <h3 id={hid}>{fmtDateTime(r.refuel_time)}</h3>
      <dl>
        <div><dt>{t('history.odometer')}</dt><dd>{fmtDistance(r.odometer, u)}</dd></div>
        <div><dt>{t('history.quantity')}</dt><dd>{qty(r.liters, r.unit, u)}{r.is_full ? t('history.full') : t('history.partial')}</dd></div>
        <div><dt>{t('history.total')}</dt><dd>{fmtMoney(r.total_amount, 0, paid)}
          {abroad && <span class="charged">{` · ${t('history.chargedAtHome', { amount: fmtMoney(r.home_amount!, 0, home) })}`}</span>}</dd></div>
        {price !== null && <div><dt>{t('history.price')}</dt><dd>{fmtPrice(price, quantityLabel(r.unit, u), paid)}</dd></div>}
        {span?.distance != null && <div><dt>{t('history.distance')}</dt><dd>{fmtDistance(span.distance, u)}</dd></div>}
        {consumption !== null && span?.over != null && (
          <div>
            <dt>{several ? t('history.consumptionAll') : t('history.consumption')}</dt>
            {/* The distance it is over: since the previous full record of this energy, which may be further back than the previous record. */}
            <dd>{t('history.consumptionOver', {
              value: `${fmtNumber(consumption, CONSUMPTION_PLACES[consumptionUnitOf(r.unit, u)])} ${consumptionLabel(r.unit, u)}`,
              distance: fmtDistance(span.over, u),
            })}</dd>
          </div>
        )}
        {r.missed_previous && <div><dt>{t('history.note')}</dt><dd>{t('history.missedNote')}</dd></div>}
        {r.station_name && <div><dt>{t('history.station')}</dt><dd>{r.station_name}</dd></div>}
        {r.remark && <div><dt>{t('history.notes')}</dt><dd>{r.remark}</dd></div>}
      </dl>
      <details class="receipts" onToggle={(e) => setReceipts((e.currentTarget).open)}>
        <summary>{t('history.receipts')}</summary>
        {receipts && <Attachments owner="refuels" ownerId={r.id} canWrite={writable} />}
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

function QueuedItem({ item, gone }: { item: OutboxItem & { summary: RefuelSummary }; gone: boolean }) {
  const s = item.summary;
  const u = activeUnits();
  const attention = item.state === 'attention';
  return (
    <li class={attention ? 'record attention' : 'record waiting'}>
      <h3>{fmtDateTime(s.refuel_time)}</h3>
      <p class="badge">{attention ? t('history.needsAttention') : t('history.waiting')}</p>
      {attention && <p class="error">{t('history.refused', { message: item.message ?? '' })}</p>}
      {gone && <p>{t('history.vehicleGone')}</p>}
      <dl>
        <div><dt>{t('history.odometer')}</dt><dd>{fmtDistance(s.odometer, u)}</dd></div>
        <div><dt>{t('history.quantity')}</dt><dd>{qty(s.liters, s.unit as EnergyUnit, u)}{s.is_full ? t('history.full') : t('history.partial')}</dd></div>
        <div><dt>{t('history.total')}</dt><dd>{s.currency ? fmtMoney(s.total_amount, 0, s.currency) : fmtMoney(s.total_amount)}</dd></div>
      </dl>
      <FilesWaitingWith parent={item.key} />
      {attention && (
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => void outbox.retry(item.key).then(sync)}>{t('history.sendAgain')}</button>
          <button type="button" class="danger" onClick={() => void outbox.discard(item.key)}>{t('history.discard')}</button>
        </div>
      )}
    </li>
  );
}

/** currency: what the amount was paid in (the record's own, or the vehicle's home currency). */
function EditRefuel({ record, currency, onDone }: { record: RefuelRecord; currency: string; onDone: (saved: boolean) => void }) {
  const u = activeUnits();
  // Shown in the owner's units at the stored precision; a field left as it was is not sent
  // (converted back it could differ from the stored value in its last place).
  const initialOdometer = kmToDistance(record.odometer, u, 3);
  const initialQuantity = metricToQuantity(record.liters, record.unit, u, 3);
  const [when, setWhen] = useState(localInputValue(new Date(record.refuel_time)));
  // In the owner's number format ("71,50" in de-DE), every stored place kept: read back unchanged, they are the same values.
  const [odometer, setOdometer] = useState(() => inputNumber(initialOdometer));
  const [quantity, setQuantity] = useState(() => inputNumber(initialQuantity));
  const [total, setTotal] = useState(() => inputNumber(record.total_amount, currencyPlaces(currency)));
  const [full, setFull] = useState(record.is_full);
  const [energy, setEnergy] = useState<Energy>(record.energy);
  const [missed, setMissed] = useState(record.missed_previous);
  // Another energy may count in another unit (kWh): the quantity typed is then in that unit.
  const unit = unitOf(energy);
  const [station, setStation] = useState(record.station_name);
  const [notes, setNotes] = useState(record.remark);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const form = useFormErrors(errors);
  const p = `edit-${record.id}`;
  const fail = (found: FieldError[]) => {
    setErrors(found);
    form.reveal();
  };

  async function submit(e: Event) {
    e.preventDefault();
    setErrors([]);
    const at = fromLocalInput(when);
    const odo = readNumber(odometer, 'reading'), q = parseDecimal(quantity), amount = parseDecimal(total);
    const bad: FieldError[] = [];
    if (!at) bad.push({ id: `${p}-when`, message: t('add.errWhen', writeLike()) });
    if (odo === null) bad.push({ id: `${p}-odo`, message: t('history.errNumber', { field: t('add.odometer'), example: numberExample('reading') }) });
    if (q === null) bad.push({ id: `${p}-q`, message: t('history.errNumber', { field: t('add.quantity'), example: numberExample('decimal', undefined, quantity) }) });
    if (amount === null) bad.push({ id: `${p}-t`, message: t('history.errNumber', { field: t('add.total'), example: numberExample('decimal', undefined, total) }) });
    if (bad.length > 0 || !at || odo === null || q === null || amount === null) return fail(bad);
    try {
      await fuel.updateRefuel(record.id, {
        refuel_time: at,
        ...(odo !== initialOdometer ? { odometer: new Dec(distanceToKm(odo, u)) } : {}),
        ...(q !== initialQuantity || unit !== record.unit ? { liters: new Dec(quantityToMetric(q, unit, u)) } : {}),
        ...(energy !== record.energy ? { energy, fuel_type: energy } : {}),
        missed_previous: missed,
        total_amount: new Dec(amount),
        is_full: full, station_name: station.trim(), remark: notes.trim(),
      });
      onDone(true);
    } catch (err) {
      fail(fromService((err as Error).message, {
        refuel_time: { id: `${p}-when`, label: t('add.dateTime') },
        odometer: { id: `${p}-odo`, label: t('add.odometer') },
        liters: { id: `${p}-q`, label: t('add.quantity') },
        energy: { id: `${p}-energy`, label: t('add.energy') },
        fuel_type: { id: `${p}-energy`, label: t('add.energy') },
        total_amount: { id: `${p}-t`, label: t('add.total') },
        station_name: { id: `${p}-st`, label: t('add.station') },
        remark: { id: `${p}-n`, label: t('add.notes') },
      }));
    }
  }

  return (
    <form class="form" noValidate onSubmit={(e) => void submit(e)} aria-label={t('history.editForm')}>
      <ErrorSummary form={form} />
      <div class="field"><label for={`${p}-when`}>{t('add.dateTime')}</label>
        <DateField id={`${p}-when`} withTime value={when} control={form.control(`${p}-when`)} onChange={setWhen} />
        <FieldMessage form={form} id={`${p}-when`} /></div>
      <div class="field"><label for={`${p}-odo`}>{t('add.odometer')}</label>
        <div class="with-unit"><input id={`${p}-odo`} inputMode="decimal" value={odometer} {...form.control(`${p}-odo`)} onInput={(e) => setOdometer(e.currentTarget.value)} />
          <span class="unit">{distanceLabel(u)}</span></div>
        <FieldMessage form={form} id={`${p}-odo`} /></div>
      <div class="field"><label for={`${p}-energy`}>{t('add.energy')}</label>
        <select id={`${p}-energy`} value={energy} {...form.control(`${p}-energy`)} onChange={(e) => setEnergy(e.currentTarget.value as Energy)}>
          {ENERGIES.map((x) => <option key={x} value={x}>{`${energyName(x)} (${quantityLabel(unitOf(x), u)})`}</option>)}
        </select>
        <FieldMessage form={form} id={`${p}-energy`} /></div>
      <div class="field"><label for={`${p}-q`}>{t('add.quantity')}</label>
        <div class="with-unit"><input id={`${p}-q`} inputMode="decimal" value={quantity} {...form.control(`${p}-q`)} onInput={(e) => setQuantity(e.currentTarget.value)} />
          <span class="unit">{quantityLabel(unit, u)}</span></div>
        <FieldMessage form={form} id={`${p}-q`} /></div>
      <div class="field"><label for={`${p}-t`}>{t('add.total')}</label>
        <div class="with-unit"><input id={`${p}-t`} inputMode="decimal" value={total} {...form.control(`${p}-t`, `${p}-t-unit`)} onInput={(e) => setTotal(e.currentTarget.value)} />
          <span id={`${p}-t-unit`} class="unit">{currencyLabel(currency)}</span></div>
        <FieldMessage form={form} id={`${p}-t`} /></div>
      <div class="check"><input id={`${p}-full`} type="checkbox" checked={full} onChange={(e) => setFull(e.currentTarget.checked)} />
        <label for={`${p}-full`}>{t('add.full')}</label></div>
      <div class="check"><input id={`${p}-missed`} type="checkbox" checked={missed} onChange={(e) => setMissed(e.currentTarget.checked)} />
        <label for={`${p}-missed`}>{t('add.missed')}</label></div>
      <div class="field"><label for={`${p}-st`}>{t('add.station')}</label>
        <input id={`${p}-st`} value={station} {...form.control(`${p}-st`)} onInput={(e) => setStation(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-st`} /></div>
      <div class="field"><label for={`${p}-n`}>{t('add.notes')}</label>
        <textarea id={`${p}-n`} rows={2} value={notes} {...form.control(`${p}-n`)} onInput={(e) => setNotes(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-n`} /></div>
      <div class="buttons">
        <button type="submit">{t('history.saveChanges')}</button>
        <button type="button" class="secondary" onClick={() => onDone(false)}>{t('common.cancel')}</button>
      </div>
    </form>
  );
}
