import { useRef, useState } from 'preact/hooks';
import type { VehicleContext } from './context';
import { ENERGIES, canWriteRefuels, currencyOf, defaultEnergy, fuel, paths, unitOf, type Energy, type RefuelRecord } from '../api/fuel';
import { Dec, fillThird, jsonWithDecimals, parseDecimal, type Triple } from '../lib/decimal';
import { ambiguousOf, inputNumber, numberExample, readNumber } from '../lib/numbers';
import { currencyLabel, fmtDate, fmtDateTime, fmtMoney, fmtNumber, fromLocalInput, homeCurrency, localInputValue } from '../lib/format';
import { t } from '../i18n';
import { units as activeUnits } from '../lib/preferences';
import { distanceToKm, kmToDistance, quantityToMetric, PLACES } from '../lib/units';
import { distanceLabel, energyName, quantityLabel } from '../lib/labels';
import Big from 'big.js';
import { uuid } from '../lib/uuid';
import { outbox, sync } from '../offline/sync';
import { sessions } from '../api/session';
import { useResource } from '../hooks';
import { AsOf, ErrorText } from '../components/messages';
import { NO_MARKS, ReadMark, fieldClass, markId, unmark, type ReadMarks } from '../components/read-marks';
import { NoVehicle, VehiclePicker, chooseVehicle } from '../components/vehicle-picker';
import { navigate, useSearch } from '../router';
import type { Fill, RefuelValues } from '../lib/receipts';
import type { Draft } from '../offline/drafts';
import { announce, dismiss } from '../components/status';
import { undoCreate } from '../offline/undo';
import { ErrorSummary, FieldMessage, focusInView, fromService, useFormErrors, type FieldError, type ServiceFields } from '../components/form-errors';
import { lazyComponent } from '../components/lazy';
import { DateField } from '../components/date-field';
import { writeLike } from '../lib/dates';

// The photo or receipt picker loads with the attachments' chunk (the costs
// one), not with the first screen; until then the form shows without it.
const ChosenFiles = lazyComponent(() => import('../components/attachments').then((m) => m.ChosenFiles), { quiet: true });
// Scan receipt (issue 56): a chunk of its own, loaded after the first screen.
const ScanRefuel = lazyComponent(() => import('../components/receipt-scan').then((m) => m.ScanRefuel), { quiet: true });

/** The refuel's fields as the service names them in its errors, and the form's controls for them. */
function serviceFields(): ServiceFields {
  return {
    vehicle_id: { id: 'vehicle', label: t('common.vehicle') },
    refuel_time: { id: 'when', label: t('add.dateTime') },
    odometer: { id: 'odometer', label: t('add.odometer') },
    energy: { id: 'energy', label: t('add.energy') },
    fuel_type: { id: 'energy', label: t('add.energy') },
    liters: { id: 'quantity', label: t('add.quantity') },
    total_amount: { id: 'total', label: t('add.total') },
    station_name: { id: 'station', label: t('add.station') },
    remark: { id: 'notes', label: t('add.notes') },
    currency: { id: 'paid-in', label: t('add.abroadCurrency') },
    home_amount: { id: 'home-amount', label: t('add.homeAmount') },
  };
}


export function AddRefuel({ vehicles: all, vehiclesAsOf, vehiclesError, chosen: picked, choose }: VehicleContext) {
  // A vehicle shared with the user to view only takes no refuels: it is not offered.
  const vehicles = all?.filter(canWriteRefuels);
  const chosen = chooseVehicle(vehicles, picked);
  const vehicle = vehicles?.find((v) => v.id === chosen);
  const [when, setWhen] = useState(() => localInputValue(new Date()));
  const [odometer, setOdometer] = useState('');
  const [energy, setEnergy] = useState<Energy | null>(null);
  const [triple, setTriple] = useState<Record<Triple, string>>({ quantity: '', total: '', price: '' });
  const [edited, setEdited] = useState<Triple[]>([]);
  const [full, setFull] = useState(true);
  const [missed, setMissed] = useState(false);
  const [station, setStation] = useState('');
  const [notes, setNotes] = useState('');
  // Photos or receipts, queued with the refuel when it is saved (as an expense's are).
  const [files, setFiles] = useState<File[]>([]);
  // Paid abroad: the currency paid in ('' : the home currency) and what the home currency was charged.
  const [paidIn, setPaidIn] = useState('');
  const [homeAmount, setHomeAmount] = useState('');
  const [errors, setErrors] = useState<FieldError[]>([]);
  const form = useFormErrors(errors);
  const [saving, setSaving] = useState(false);
  const last = useResource<RefuelRecord[]>(chosen === null ? null : paths.lastRefuel(chosen));
  const odometerRef = useRef<HTMLInputElement>(null);
  // What a scanned receipt filled (marked until changed), its photo, and the draft it came from.
  const [read, setRead] = useState<ReadMarks>(NO_MARKS);
  const touch = (...ids: string[]) => setRead((r) => unmark(r, ...ids));
  const scanned = useRef<File | null>(null);
  const [draft, setDraft] = useState<string | null>(null);
  // Each save starts the scan afresh (its notes and draft were the last refuel's).
  const [saves, setSaves] = useState(0);
  const draftAsked = new URLSearchParams(useSearch()).get('draft');

  // The energy follows the vehicle until the owner picks one (null: the
  // vehicle's default, computed in this render so it never lags a render).
  const en: Energy = energy ?? (vehicle ? defaultEnergy(vehicle.fuel_type) : 'gasoline');
  const units = activeUnits();
  const unit = quantityLabel(unitOf(en), units);
  const dist = distanceLabel(units);
  // The reading to expect more than: the last refuel's, or for a vehicle
  // without refuels the odometer its owner set.
  const lastReading = last.data?.[0]?.odometer ?? (last.data && vehicle && vehicle.current_odometer > 0 ? vehicle.current_odometer : undefined);
  // The last reading in the owner's unit, to the stored precision (a placeholder to type over).
  const lastShown = lastReading !== undefined ? inputNumber(kmToDistance(lastReading, units, 3)) : undefined;

  function onTriple(field: Triple, text: string) {
    const order = [field, ...edited.filter((f) => f !== field)].slice(0, 2);
    const next = { ...triple, [field]: text };
    if (order.length === 2) {
      const values = { quantity: parseDecimal(next.quantity), total: parseDecimal(next.total), price: parseDecimal(next.price) };
      const third = fillThird(values, [order[0]!, order[1]!]);
      if (third) next[third.field] = inputNumber(third.value);
      if (third) touch(third.field);
    }
    touch(field);
    setEdited(order);
    setTriple(next);
  }

  function fail(found: FieldError[]) {
    setErrors(found);
    dismiss();
    form.reveal();
    return false;
  }

  // One save at a time: a second click while the first asks the service
  // for the refuel before it would queue the refuel twice.
  const inFlight = useRef(false);
  async function save(another: boolean) {
    if (inFlight.current) return false;
    inFlight.current = true;
    try {
      return await saveOnce(another);
    } finally {
      inFlight.current = false;
    }
  }

  async function saveOnce(another: boolean) {
    setErrors([]);
    dismiss();
    // Every bad field at once, in the form's order: the summary lists them all.
    const bad: FieldError[] = [];
    // Without a vehicle there is no picker to point at: the summary says it.
    if (!vehicle) bad.push({ id: vehicles && vehicles.length > 0 ? 'vehicle' : null, message: t('add.errVehicle') });
    const at = fromLocalInput(when);
    if (!at) bad.push({ id: 'when', message: t('add.errWhen', writeLike()) });
    // A reading: "16.480" in de-DE is 16480, never 16,48 (lib/numbers.ts).
    const typedOdo = readNumber(odometer, 'reading');
    if (typedOdo === null) bad.push({ id: 'odometer', message: t('add.errOdometer', { unit: dist, example: numberExample('reading') }) });
    const q = parseDecimal(triple.quantity);
    const amount = parseDecimal(triple.total);
    const p = parseDecimal(triple.price);
    const quantity = q ?? (amount !== null && p !== null ? fillThird({ quantity: q, total: amount, price: p }, ['total', 'price'])?.value ?? null : null);
    const total = amount ?? (q !== null && p !== null ? fillThird({ quantity: q, total: amount, price: p }, ['quantity', 'price'])?.value ?? null : null);
    const liters = quantity === null ? null : quantityToMetric(quantity, unitOf(en), units);
    if (liters === null || new Big(liters).lte(0)) bad.push({ id: 'quantity', message: t('add.errQuantity', { unit, example: numberExample('decimal', undefined, ambiguousOf(triple.quantity, triple.total, triple.price)) }) });
    if (total === null) bad.push({ id: 'total', message: t('add.errTotal', { example: numberExample('decimal', undefined, ambiguousOf(triple.total, triple.price)) }) });
    // Paid abroad: the vehicle's amounts are in its owner's currency, what was charged in it is needed.
    const home = currencyOf(vehicle, homeCurrency());
    const abroad = paidIn !== '' && paidIn !== home;
    const charged = abroad ? parseDecimal(homeAmount) : null;
    if (abroad && charged === null) bad.push({ id: 'home-amount', message: t('add.errHomeAmount', { currency: home, example: numberExample('decimal', undefined, homeAmount) }) });
    if (bad.length > 0 || !vehicle || !at || typedOdo === null || quantity === null || liters === null || total === null) return fail(bad);
    // What the service stores: km and metric quantities, at its 3 places (lib/units.ts).
    const odo = distanceToKm(typedOdo, units);
    // A refuel entered later for an earlier day is held against the one
    // before it in time, not the newest (asked for; offline the newest
    // stands in). Older than every refuel, it has none to be held against.
    const newest = last.data?.[0];
    let before: { odometer: number | string; when: string } | undefined =
      lastReading === undefined ? undefined : { odometer: lastReading, when: '' };
    if (newest && Date.parse(at) < Date.parse(newest.refuel_time)) {
      try {
        const [prev] = await fuel.refuelBefore(vehicle.id, at);
        before = prev && { odometer: prev.odometer, when: prev.refuel_time };
      } catch {
        // No answer: the newest reading is the check.
      }
    }
    if (before && new Big(odo).lt(before.odometer)) {
      const value = `${fmtNumber(typedOdo, PLACES.odometer)} ${dist}`;
      const earlier = `${fmtNumber(kmToDistance(before.odometer, units), PLACES.odometer)} ${dist}`;
      const asked = before.when
        ? window.confirm(t('add.lowerThanBefore', { value, last: earlier, date: fmtDateTime(before.when) }))
        : window.confirm(t('add.lowerConfirm', { value, last: earlier }));
      if (!asked) return fail([{ id: 'odometer', message: before.when ? t('add.errLowerBefore') : t('add.errLower') }]);
    }
    const key = uuid();
    const input = {
      vehicle_id: vehicle.id,
      refuel_time: at,
      odometer: new Dec(odo),
      fuel_type: en,
      energy: en,
      liters: new Dec(liters),
      total_amount: new Dec(total),
      station_name: station.trim(),
      is_full: full,
      missed_previous: missed,
      remark: notes.trim(),
      ...(abroad && charged !== null ? { currency: paidIn, home_amount: new Dec(charged) } : {}),
    };
    setSaving(true);
    try {
      await outbox.add({
        key,
        method: 'POST',
        path: paths.createRefuel,
        body: jsonWithDecimals(input),
        owner: (await sessions.current())?.user?.id,
        summary: { vehicle_id: vehicle.id, refuel_time: at, odometer: odo, liters, total_amount: total, energy: en, unit: unitOf(en), is_full: full, station_name: input.station_name,
          ...(abroad ? { currency: paidIn } : {}) },
      });
      const r = await sync();
      if (r.rejected.includes(key)) {
        // Sent now and refused: the owner is here to fix it, so it does not wait in the outbox.
        const item = (await outbox.items()).find((i) => i.key === key);
        await outbox.discard(key);
        return fail(fromService(item?.message ?? t('add.refusedDefault'), serviceFields(), (message) => t('add.notSaved', { message })));
      }
      // What was saved, in view with its Undo (components/status.tsx): the amount as paid, the quantity as typed.
      // A no-break space: never "41,50 | l" across two lines.
      const what = t('add.what', { quantity: `${fmtNumber(quantity, PLACES.quantity)}\u00a0${unit}`, amount: fmtMoney(total, 0, abroad ? paidIn : home), date: fmtDate(at) });
      let said = r.sent.includes(key) ? t('add.saved', { what }) : r.unauthorized ? t('add.queuedSession', { what }) : t('add.queuedOffline', { what });
      if (files.length > 0) {
        const { queueWithRecord } = await import('../components/attachments');
        said = [said, ...(await queueWithRecord(files, 'refuels', key, r.sent.includes(key)))].join(' ');
        setFiles([]);
      }
      announce({ text: said, action: { label: t('status.undo'), run: () => undoRefuel(key, what) } });
      // A reviewed draft is a record now.
      if (draft) {
        void import('../offline/drafts').then((m) => m.removeDraft(draft));
        setDraft(null);
        navigate('/add', true);
      }
      setRead(NO_MARKS);
      scanned.current = null;
      setSaves((n) => n + 1);
      last.reload();
      setTriple({ quantity: '', total: '', price: '' });
      setEdited([]);
      setOdometer('');
      setNotes('');
      setMissed(false);
      setFull(true);
      setHomeAmount('');
      if (!another) {
        setPaidIn('');
        setStation('');
        setWhen(localInputValue(new Date()));
      }
      focusInView(odometerRef.current);
      return true;
    } finally {
      setSaving(false);
    }
  }

  const homeCode = currencyOf(vehicle, homeCurrency());
  const paidCurrency = paidIn || homeCode;

  /** onScan puts what a receipt read into the form; its photo becomes one of the refuel's files. */
  function onScan(f: Fill<RefuelValues>, photo: File, d: Draft | null) {
    const v = f.values;
    if (d?.vehicle_id != null && vehicles?.some((x) => x.id === d.vehicle_id)) choose(d.vehicle_id);
    if (v.when) setWhen(v.when);
    if (v.odometer) setOdometer(v.odometer);
    if (v.energy) setEnergy(v.energy);
    setTriple((x) => ({ quantity: v.quantity ?? x.quantity, total: v.total ?? x.total, price: v.price ?? x.price }));
    // Changing one of the three then recomputes the price from the quantity and total read.
    setEdited((['total', 'quantity'] as const).filter((k) => v[k]));
    if (v.station) setStation(v.station);
    if (v.paidIn) setPaidIn(v.paidIn);
    const { paidIn: paid, ...marks } = f.marks;
    setRead({ marks: { ...marks, ...(paid ? { 'paid-in': paid } : {}) }, words: f.words });
    const prev = scanned.current;
    scanned.current = photo;
    setFiles((fs) => [...fs.filter((x) => x !== prev), photo]);
    setDraft(d?.id ?? null);
  }

  return (
    <>
      <h1 tabIndex={-1}>{t('nav.add')}</h1>
      <AsOf asOf={vehiclesAsOf} />
      <ErrorText error={vehiclesError} />
      {vehicles && vehicles.length === 0 && <NoVehicle />}
      <form
        class="form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const another = (e.submitter as HTMLButtonElement | null)?.value === 'another';
          void save(another);
        }}
      >
        <ErrorSummary form={form} />
        {vehicles && vehicles.length > 0 && <ScanRefuel key={saves} id="scan" vehicleId={chosen} draft={draftAsked} onFill={onScan}
          onDiscard={() => {
            // The draft's form goes with it: what it filled, and its photo.
            setDraft(null); setRead(NO_MARKS); setFiles((fs) => fs.filter((x) => x !== scanned.current));
            setTriple({ quantity: '', total: '', price: '' }); setEdited([]); setOdometer(''); setStation(''); setPaidIn(''); setEnergy(null);
            setWhen(localInputValue(new Date())); setSaves((n) => n + 1); navigate('/add', true);
          }}
          context={{ energy: en, units, home: homeCode, when, currencies: currencyCodes(homeCode) }} />}
        {vehicles && vehicles.length > 0 && (
          <VehiclePicker vehicles={vehicles} value={chosen} form={form} onChange={(id) => { choose(id); setEnergy(null); }} />
        )}
        <div class={fieldClass(read, 'when')}>
          <label for="when">{t('add.dateTime')}</label>
          <DateField id="when" withTime required value={when} control={form.control('when', markId(read, 'when'))} onChange={(v) => { setWhen(v); touch('when'); }} />
          <ReadMark r={read} id="when" />
          <FieldMessage form={form} id="when" />
        </div>
        <div class={fieldClass(read, 'odometer')}>
          <label for="odometer">{t('add.odometer')}</label>
          <div class="with-unit">
            <input id="odometer" ref={odometerRef} inputMode="decimal" autoComplete="off" required value={odometer}
              placeholder={lastShown}
              {...form.control('odometer', 'odometer-unit', markId(read, 'odometer'))}
              onInput={(e) => { setOdometer(e.currentTarget.value); touch('odometer'); }} />
            <span id="odometer-unit" class="unit">{dist}</span>
          </div>
          <ReadMark r={read} id="odometer" />
          <FieldMessage form={form} id="odometer" />
        </div>
        <div class={fieldClass(read, 'energy')}>
          <label for="energy">{t('add.energy')}</label>
          <select id="energy" value={en} {...form.control('energy', markId(read, 'energy'))} onChange={(e) => { setEnergy(e.currentTarget.value as Energy); touch('energy'); }}>
            {ENERGIES.map((x) => <option key={x} value={x}>{`${energyName(x)} (${quantityLabel(unitOf(x), units)})`}</option>)}
          </select>
          <ReadMark r={read} id="energy" />
          <FieldMessage form={form} id="energy" />
        </div>
        <div class={fieldClass(read, 'quantity')}>
          <label for="quantity">{t('add.quantity')}</label>
          <div class="with-unit">
            <input id="quantity" inputMode="decimal" autoComplete="off" value={triple.quantity}
              {...form.control('quantity', 'quantity-unit', markId(read, 'quantity'))}
              onInput={(e) => onTriple('quantity', e.currentTarget.value)} />
            <span id="quantity-unit" class="unit">{unit}</span>
          </div>
          <ReadMark r={read} id="quantity" />
          <FieldMessage form={form} id="quantity" />
        </div>
        <div class={fieldClass(read, 'total')}>
          <label for="total">{t('add.total')}</label>
          <div class="with-unit">
            <input id="total" inputMode="decimal" autoComplete="off" value={triple.total}
              {...form.control('total', 'total-unit', markId(read, 'total'))}
              onInput={(e) => onTriple('total', e.currentTarget.value)} />
            <span id="total-unit" class="unit">{currencyLabel(paidCurrency)}</span>
          </div>
          <ReadMark r={read} id="total" />
          <FieldMessage form={form} id="total" />
        </div>
        <div class={fieldClass(read, 'price')}>
          <label for="price">{t('add.price')}</label>
          <div class="with-unit">
            <input id="price" inputMode="decimal" autoComplete="off" value={triple.price}
              {...form.control('price', 'price-unit', markId(read, 'price'))}
              onInput={(e) => onTriple('price', e.currentTarget.value)} />
            <span id="price-unit" class="unit">{t('unit.pricePer', { currency: currencyLabel(paidCurrency), unit })}</span>
          </div>
          <ReadMark r={read} id="price" />
        </div>
        <details class="abroad" open={paidIn !== '' || undefined}>
          <summary>{t('add.abroad')}</summary>
          <div class={fieldClass(read, 'paid-in')}>
            <label for="paid-in">{t('add.abroadCurrency')}</label>
            <select id="paid-in" value={paidIn || homeCode} {...form.control('paid-in', markId(read, 'paid-in'))} onChange={(e) => { setPaidIn(e.currentTarget.value === homeCode ? '' : e.currentTarget.value); touch('paid-in'); }}>
              {currencyCodes(homeCode).map((c) => <option key={c} value={c}>{c}</option>)}
            </select>
            <ReadMark r={read} id="paid-in" />
            <FieldMessage form={form} id="paid-in" />
          </div>
          {paidIn !== '' && (
            <div class="field">
              <label for="home-amount">{t('add.homeAmount')}</label>
              <div class="with-unit">
                <input id="home-amount" inputMode="decimal" autoComplete="off" value={homeAmount}
                  {...form.control('home-amount', 'home-unit')}
                  onInput={(e) => setHomeAmount(e.currentTarget.value)} />
                <span id="home-unit" class="unit">{currencyLabel(homeCode)}</span>
              </div>
              <FieldMessage form={form} id="home-amount" />
            </div>
          )}
          <p class="hint">{t('add.abroadHint')}</p>
        </details>
        <p class="hint">{t('add.hint', { example: numberExample('decimal') })}</p>
        <div class="check">
          <input id="full" type="checkbox" checked={full} onChange={(e) => setFull(e.currentTarget.checked)} />
          <label for="full">{t('add.full')}</label>
        </div>
        <div class="check">
          <input id="missed" type="checkbox" checked={missed} onChange={(e) => setMissed(e.currentTarget.checked)} />
          <label for="missed">{t('add.missed')}</label>
        </div>
        <div class={fieldClass(read, 'station')}>
          <label for="station">{t('add.station')}</label>
          <input id="station" maxLength={128} autoComplete="off" value={station} {...form.control('station', markId(read, 'station'))} onInput={(e) => { setStation(e.currentTarget.value); touch('station'); }} />
          <ReadMark r={read} id="station" />
          <FieldMessage form={form} id="station" />
        </div>
        <div class="field">
          <label for="notes">{t('add.notes')}</label>
          <textarea id="notes" maxLength={512} rows={2} value={notes} {...form.control('notes')} onInput={(e) => setNotes(e.currentTarget.value)} />
          <FieldMessage form={form} id="notes" />
        </div>
        <ChosenFiles id="refuel-files" owner="refuels" files={files} onChange={setFiles} />
        <div class="buttons">
          <button type="submit" value="save" disabled={saving}>{t('add.save')}</button>
          <button type="submit" value="another" class="secondary" disabled={saving}>{t('add.saveAnother')}</button>
        </div>
      </form>
    </>
  );
}

/** undoRefuel removes the refuel just saved (from the outbox, or from the server once sent) and says so. */
async function undoRefuel(key: string, what: string): Promise<string> {
  const done = await undoCreate(outbox, key, (id) => fuel.deleteRefuel(Number(id)));
  return done === 'unknown' ? t('add.undoUnknown') : t('add.undone', { what });
}

/** currencyCodes: the ISO 4217 codes the browser knows, the home one among them. */
function currencyCodes(home: string): string[] {
  let list: string[];
  try {
    list = Intl.supportedValuesOf('currency');
  } catch {
    list = ['CHF', 'CNY', 'EUR', 'GBP', 'JPY', 'USD'];
  }
  return list.includes(home) ? list : [...list, home].sort();
}
