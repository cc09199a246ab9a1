import { useState } from 'preact/hooks';
import type { VehicleContext } from '../App';
import { FUEL_TYPES, FUEL_TYPE_NAMES, fuel, type FuelType, type Vehicle, type VehicleFields } from '../api/fuel';
import { Dec, parseDecimal } from '../lib/decimal';
import { fmtNumber } from '../lib/format';
import { useOnline } from '../hooks';
import { AsOf, ErrorText, Status } from '../components/common';

export function Vehicles({ vehicles, vehiclesAsOf, vehiclesError, reloadVehicles }: VehicleContext) {
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const online = useOnline();

  async function act(what: () => Promise<unknown>, done: string) {
    setError(null);
    setMessage(null);
    try {
      await what();
      setMessage(done);
      reloadVehicles();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <>
      <h1 tabIndex={-1}>Vehicles</h1>
      <AsOf asOf={vehiclesAsOf} />
      <ErrorText error={vehiclesError ?? error} />
      {message && <Status>{message}</Status>}
      {!online && <p class="hint">Changing vehicles needs a connection.</p>}
      {editing === 'new' ? (
        <VehicleForm onCancel={() => setEditing(null)}
          onSave={async (f) => { await fuel.createVehicle(f); setEditing(null); setMessage('Vehicle added.'); reloadVehicles(); }} />
      ) : (
        <button type="button" onClick={() => { setMessage(null); setEditing('new'); }} disabled={!online}>Add vehicle</button>
      )}
      {vehicles && vehicles.length === 0 && <p>No vehicle yet.</p>}
      <ul class="records" aria-label="Vehicles">
        {vehicles?.map((v) => (
          <li key={v.id} class="record" aria-labelledby={`veh-${v.id}`}>
            {editing === v.id ? (
              <VehicleForm vehicle={v} onCancel={() => setEditing(null)}
                onSave={async (f) => { await fuel.updateVehicle(v.id, f); setEditing(null); setMessage('Vehicle updated.'); reloadVehicles(); }} />
            ) : (
              <>
                <h2 id={`veh-${v.id}`}>{v.name}{v.default_vehicle && <span class="badge"> Default</span>}</h2>
                <dl>
                  {(v.brand || v.model) && <div><dt>Model</dt><dd>{[v.brand, v.model].filter(Boolean).join(' ')}</dd></div>}
                  {v.plate_number && <div><dt>Plate</dt><dd>{v.plate_number}</dd></div>}
                  <div><dt>Fuel type</dt><dd>{FUEL_TYPE_NAMES[v.fuel_type] ?? v.fuel_type}</dd></div>
                  {v.tank_capacity > 0 && <div><dt>Tank</dt><dd>{fmtNumber(v.tank_capacity)} L</dd></div>}
                </dl>
                <div class="buttons">
                  <button type="button" class="secondary" disabled={!online} onClick={() => { setMessage(null); setEditing(v.id); }}>Edit</button>
                  {!v.default_vehicle && (
                    <button type="button" class="secondary" disabled={!online}
                      onClick={() => void act(() => fuel.makeDefault(v.id), `${v.name} is now the default vehicle.`)}>Make default</button>
                  )}
                  <button type="button" class="danger" disabled={!online}
                    onClick={() => {
                      if (window.confirm(`Delete ${v.name} and all its refuels?`)) void act(() => fuel.deleteVehicle(v.id), 'Vehicle deleted.');
                    }}>Delete</button>
                </div>
              </>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

function VehicleForm({ vehicle, onSave, onCancel }: { vehicle?: Vehicle; onSave: (f: VehicleFields) => Promise<void>; onCancel: () => void }) {
  const [name, setName] = useState(vehicle?.name ?? '');
  const [brand, setBrand] = useState(vehicle?.brand ?? '');
  const [model, setModel] = useState(vehicle?.model ?? '');
  const [plate, setPlate] = useState(vehicle?.plate_number ?? '');
  const [fuelType, setFuelType] = useState<FuelType>(vehicle?.fuel_type ?? 'gasoline');
  const [tank, setTank] = useState(vehicle && vehicle.tank_capacity > 0 ? String(vehicle.tank_capacity) : '');
  const [isDefault, setIsDefault] = useState(vehicle?.default_vehicle ?? false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const p = vehicle ? `v${vehicle.id}` : 'vnew';

  async function submit(e: Event) {
    e.preventDefault();
    setError(null);
    if (!name.trim()) return setError('Name: enter a name for the vehicle.');
    let tankDec: Dec | undefined;
    if (tank.trim()) {
      const t = parseDecimal(tank);
      if (t === null) return setError('Tank capacity: enter a number of litres.');
      tankDec = new Dec(t);
    }
    setBusy(true);
    try {
      await onSave({ name: name.trim(), brand: brand.trim(), model: model.trim(), plate_number: plate.trim(), fuel_type: fuelType, tank_capacity: tankDec ?? new Dec('0'), default_vehicle: isDefault });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="form" onSubmit={(e) => void submit(e)} aria-label={vehicle ? `Edit ${vehicle.name}` : 'New vehicle'}>
      <div class="field"><label for={`${p}-name`}>Name</label>
        <input id={`${p}-name`} maxLength={64} required value={name} onInput={(e) => setName(e.currentTarget.value)} /></div>
      <div class="field"><label for={`${p}-brand`}>Brand</label>
        <input id={`${p}-brand`} maxLength={64} value={brand} onInput={(e) => setBrand(e.currentTarget.value)} /></div>
      <div class="field"><label for={`${p}-model`}>Model</label>
        <input id={`${p}-model`} maxLength={64} value={model} onInput={(e) => setModel(e.currentTarget.value)} /></div>
      <div class="field"><label for={`${p}-plate`}>Plate number</label>
        <input id={`${p}-plate`} maxLength={32} value={plate} onInput={(e) => setPlate(e.currentTarget.value)} /></div>
      <div class="field"><label for={`${p}-fuel`}>Fuel type</label>
        <select id={`${p}-fuel`} value={fuelType} onChange={(e) => setFuelType(e.currentTarget.value as FuelType)}>
          {FUEL_TYPES.map((f) => <option key={f} value={f}>{FUEL_TYPE_NAMES[f]}</option>)}
        </select></div>
      <div class="field"><label for={`${p}-tank`}>Tank capacity</label>
        <div class="with-unit"><input id={`${p}-tank`} inputMode="decimal" value={tank} onInput={(e) => setTank(e.currentTarget.value)} />
          <span class="unit">L</span></div></div>
      <div class="check"><input id={`${p}-default`} type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.currentTarget.checked)} />
        <label for={`${p}-default`}>Default vehicle</label></div>
      <ErrorText error={error} />
      <div class="buttons">
        <button type="submit" disabled={busy}>Save vehicle</button>
        <button type="button" class="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
