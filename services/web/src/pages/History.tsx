import { useEffect, useRef, useState } from 'preact/hooks';
import type { VehicleContext } from '../App';
import { fuel, paths, unitLabel, type EnergyUnit, type RefuelRecord } from '../api/fuel';
import { useOnline, useResource } from '../hooks';
import { outbox, sync } from '../offline/sync';
import type { OutboxItem } from '../offline/outbox';
import { spans, type Span } from '../lib/spans';
import { Dec, parseDecimal } from '../lib/decimal';
import { fmtDateTime, fmtNumber, fromLocalInput, localInputValue } from '../lib/format';
import { AsOf, ErrorText, Status, VehiclePicker } from '../components/common';

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
  const queued = useOutbox().filter((i) => i.summary.vehicle_id === chosen && (i.owner === undefined || user === null || i.owner === user.id));
  const [editing, setEditing] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
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

  async function remove(r: RefuelRecord) {
    if (!window.confirm(`Delete the refuel of ${fmtDateTime(r.refuel_time)}?`)) return;
    setError(null);
    try {
      await fuel.deleteRefuel(r.id);
      setMessage('Refuel deleted.');
      list.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <>
      <h1 tabIndex={-1}>History</h1>
      <AsOf asOf={list.asOf ?? vehiclesAsOf} />
      {vehicles && vehicles.length > 0 && <VehiclePicker vehicles={vehicles} value={chosen} onChange={choose} />}
      {vehicles && vehicles.length === 0 && <p>No vehicle yet: add one on the <a href="/vehicles">Vehicles</a> page.</p>}
      <ErrorText error={list.error ?? error} />
      {message && <Status>{message}</Status>}
      {queued.length > 0 && (
        <section aria-labelledby="queued-h">
          <h2 id="queued-h">Not yet on the server</h2>
          <ul class="records">
            {queued.map((i) => <QueuedItem key={i.key} item={i} />)}
          </ul>
        </section>
      )}
      {list.loading && !list.data && <p>Loading…</p>}
      {list.data && records.length === 0 && queued.length === 0 && <p>No refuel recorded for this vehicle yet.</p>}
      {records.length > 0 && (
        <ul class="records" aria-label="Refuels">
          {records.map((r) =>
            editing === r.id ? (
              <li key={r.id} class="record">
                <EditRefuel record={r} onDone={(saved) => { setEditing(null); if (saved) { setMessage('Refuel updated.'); list.reload(); } }} />
              </li>
            ) : (
              <RecordItem key={r.id} r={r} span={sp.get(r.id)} online={online}
                onEdit={() => { setMessage(null); setEditing(r.id); }} onDelete={() => void remove(r)} />
            ),
          )}
        </ul>
      )}
    </>
  );
}

function qty(v: number | string, unit: EnergyUnit): string {
  return `${fmtNumber(v, 3)} ${unitLabel(unit)}`;
}

function RecordItem({ r, span, online, onEdit, onDelete }: { r: RefuelRecord; span: Span | undefined; online: boolean; onEdit: () => void; onDelete: () => void }) {
  const hid = `rec-${r.id}`;
  return (
    <li class="record" aria-labelledby={hid}>
      <h3 id={hid}>{fmtDateTime(r.refuel_time)}</h3>
      <dl>
        <div><dt>Odometer</dt><dd>{fmtNumber(r.odometer, 1)} km</dd></div>
        <div><dt>Quantity</dt><dd>{qty(r.liters, r.unit)}{r.is_full ? ' (full)' : ' (partial)'}</dd></div>
        <div><dt>Total</dt><dd>{fmtNumber(r.total_amount)}</dd></div>
        <div><dt>Price per unit</dt><dd>{fmtNumber(r.price_per_liter, 4)} per {unitLabel(r.unit)}</dd></div>
        {span?.distance != null && <div><dt>Distance since previous</dt><dd>{fmtNumber(span.distance, 1)} km</dd></div>}
        {span?.consumption != null && <div><dt>Consumption</dt><dd>{fmtNumber(span.consumption)} {unitLabel(r.unit)}/100 km</dd></div>}
        {r.missed_previous && <div><dt>Note</dt><dd>a fill-up before this was missed</dd></div>}
        {r.station_name && <div><dt>Station</dt><dd>{r.station_name}</dd></div>}
        {r.remark && <div><dt>Notes</dt><dd>{r.remark}</dd></div>}
      </dl>
      <div class="buttons">
        <button type="button" class="secondary" onClick={onEdit} disabled={!online}>Edit</button>
        <button type="button" class="danger" onClick={onDelete} disabled={!online}>Delete</button>
      </div>
    </li>
  );
}

function QueuedItem({ item }: { item: OutboxItem }) {
  const s = item.summary;
  const attention = item.state === 'attention';
  return (
    <li class={attention ? 'record attention' : 'record waiting'}>
      <h3>{fmtDateTime(s.refuel_time)}</h3>
      <p class="badge">{attention ? 'Needs attention' : 'Waiting to sync'}</p>
      {attention && <p class="error">The server refused it: {item.message}</p>}
      <dl>
        <div><dt>Odometer</dt><dd>{fmtNumber(s.odometer, 1)} km</dd></div>
        <div><dt>Quantity</dt><dd>{qty(s.liters, s.unit as EnergyUnit)}{s.is_full ? ' (full)' : ' (partial)'}</dd></div>
        <div><dt>Total</dt><dd>{fmtNumber(s.total_amount)}</dd></div>
      </dl>
      {attention && (
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => void outbox.retry(item.key).then(sync)}>Send again</button>
          <button type="button" class="danger" onClick={() => void outbox.discard(item.key)}>Discard</button>
        </div>
      )}
    </li>
  );
}

function EditRefuel({ record, onDone }: { record: RefuelRecord; onDone: (saved: boolean) => void }) {
  const [when, setWhen] = useState(localInputValue(new Date(record.refuel_time)));
  const [odometer, setOdometer] = useState(String(record.odometer));
  const [quantity, setQuantity] = useState(String(record.liters));
  const [total, setTotal] = useState(String(record.total_amount));
  const [full, setFull] = useState(record.is_full);
  const [station, setStation] = useState(record.station_name);
  const [notes, setNotes] = useState(record.remark);
  const [error, setError] = useState<string | null>(null);
  const p = `edit-${record.id}`;

  async function submit(e: Event) {
    e.preventDefault();
    const at = fromLocalInput(when);
    const odo = parseDecimal(odometer), q = parseDecimal(quantity), t = parseDecimal(total);
    if (!at) return setError('Date and time: enter a date and a time.');
    if (odo === null) return setError('Odometer: enter a number.');
    if (q === null) return setError('Quantity: enter a number.');
    if (t === null) return setError('Total amount: enter a number.');
    try {
      await fuel.updateRefuel(record.id, {
        refuel_time: at, odometer: new Dec(odo), liters: new Dec(q), total_amount: new Dec(t),
        is_full: full, station_name: station.trim(), remark: notes.trim(),
      });
      onDone(true);
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <form class="form" onSubmit={(e) => void submit(e)} aria-label="Edit refuel">
      <div class="field"><label for={`${p}-when`}>Date and time</label>
        <input id={`${p}-when`} type="datetime-local" value={when} onInput={(e) => setWhen(e.currentTarget.value)} /></div>
      <div class="field"><label for={`${p}-odo`}>Odometer</label>
        <input id={`${p}-odo`} inputMode="decimal" value={odometer} onInput={(e) => setOdometer(e.currentTarget.value)} /></div>
      <div class="field"><label for={`${p}-q`}>Quantity</label>
        <div class="with-unit"><input id={`${p}-q`} inputMode="decimal" value={quantity} onInput={(e) => setQuantity(e.currentTarget.value)} />
          <span class="unit">{unitLabel(record.unit)}</span></div></div>
      <div class="field"><label for={`${p}-t`}>Total amount</label>
        <input id={`${p}-t`} inputMode="decimal" value={total} onInput={(e) => setTotal(e.currentTarget.value)} /></div>
      <div class="check"><input id={`${p}-full`} type="checkbox" checked={full} onChange={(e) => setFull(e.currentTarget.checked)} />
        <label for={`${p}-full`}>Full tank</label></div>
      <div class="field"><label for={`${p}-st`}>Station</label>
        <input id={`${p}-st`} value={station} onInput={(e) => setStation(e.currentTarget.value)} /></div>
      <div class="field"><label for={`${p}-n`}>Notes</label>
        <textarea id={`${p}-n`} rows={2} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} /></div>
      <ErrorText error={error} />
      <div class="buttons">
        <button type="submit">Save changes</button>
        <button type="button" class="secondary" onClick={() => onDone(false)}>Cancel</button>
      </div>
    </form>
  );
}
