import { useEffect, useRef, useState } from 'preact/hooks';
import type { VehicleContext } from './context';
import { FUEL_TYPES, fuel, owns, type FuelType, type MemberRole, type Vehicle, type VehicleFields } from '../api/fuel';
import Big from 'big.js';
import { Dec, parseDecimal } from '../lib/decimal';
import { inputNumber, numberExample, readNumber } from '../lib/numbers';
import { fmtNumber } from '../lib/format';
import { useAction, useOnline, useResource, useServerData } from '../hooks';
import type { DocumentInfo } from '../api/docqa';
import { chosenLinks, linkedManuals, livingLinks } from '../lib/manuals';
import { AsOf, Badge, ErrorText, Status } from '../components/messages';
import { announce, dismiss } from '../components/status';
import { ErrorSummary, FieldMessage, focusInView, fromService, useFormErrors, type FieldError } from '../components/form-errors';
import { vehicleAsBefore } from '../api/restore';
import { t } from '../i18n';
import { units as activeUnits } from '../lib/preferences';
import { PLACES, distanceToKm, kmToDistance, metricToQuantity, quantityToMetric } from '../lib/units';
import { distanceLabel, fmtDistance, fuelTypeName, quantityLabel } from '../lib/labels';
import { lazyComponent } from '../components/lazy';

// A vehicle's specifications card (its manuals' oil, tyre pressures, ...), in a chunk of its own.
const Specifications = lazyComponent(() => import('../components/Specifications').then((m) => m.Specifications), { quiet: true });

export function Vehicles({ vehicles, vehiclesAsOf, vehiclesError, reloadVehicles, user }: VehicleContext) {
  // /vehicles?add (Home's "Add a vehicle"): the new vehicle's form at once, one tap from Home, not two.
  const [editing, setEditing] = useState<number | 'new' | null>(() => (new URLSearchParams(location.search).has('add') && navigator.onLine ? 'new' : null));
  useEffect(() => {
    if (location.search !== '') history.replaceState(history.state, '', location.pathname);
  }, []);
  const [sharing, setSharing] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const online = useOnline();
  // The user's manuals (docqa), to link and to name a vehicle's.
  const docs = useResource<DocumentInfo[]>('/api/documents');
  // Refuels move a vehicle's odometer: read the vehicles afresh on each visit.
  useEffect(reloadVehicles, [reloadVehicles]);

  async function act(what: () => Promise<unknown>, done: string) {
    setError(null);
    dismiss();
    try {
      await what();
      announce(done);
      reloadVehicles();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <>
      <h1 tabIndex={-1}>{t('nav.vehicles')}</h1>
      <AsOf asOf={vehiclesAsOf} />
      <ErrorText error={vehiclesError ?? error} />
      {!online && <p class="hint">{t('vehicles.needsConnection')}</p>}
      {editing === 'new' ? (
        <VehicleForm docs={docs.data} onCancel={() => setEditing(null)}
          onSave={async (f) => {
            const made = await fuel.createVehicle(f);
            setEditing(null);
            // A new vehicle's Undo deletes it (it has no records yet, or the owner's first few).
            announce({ text: t('vehicles.added', { name: made.name }), action: { label: t('status.undo'), run: async () => {
              await fuel.deleteVehicle(made.id);
              reloadVehicles();
              return t('vehicles.addUndone', { name: made.name });
            } } });
            reloadVehicles();
          }} />
      ) : (
        <button type="button" onClick={() => setEditing('new')} disabled={!online}>{t('vehicles.add')}</button>
      )}
      {vehicles && vehicles.length === 0 && <p>{t('vehicles.none')}</p>}
      <ul class="records" aria-label={t('vehicles.list')}>
        {vehicles?.map((v) => (
          <li key={v.id} class="record" aria-labelledby={`veh-${v.id}`}>
            {editing === v.id ? (
              <VehicleForm vehicle={v} docs={docs.data} onCancel={() => setEditing(null)}
                onSave={async (f) => {
                  const saved = await fuel.updateVehicle(v.id, f);
                  setEditing(null);
                  // Undo when one PUT puts the vehicle back (api/restore.ts), else Edit it again.
                  const before = vehicleAsBefore(v, f);
                  announce({
                    text: odometerAbove(f, saved) ?? t('vehicles.updated', { name: saved.name }),
                    action: before
                      ? { label: t('status.undo'), run: async () => {
                        await fuel.updateVehicle(v.id, before);
                        reloadVehicles();
                        return t('vehicles.updateUndone', { name: v.name });
                      } }
                      : { label: t('common.edit'), run: () => {
                        setEditing(v.id);
                        return null;
                      } },
                  });
                  reloadVehicles();
                }} />
            ) : (
              <>
                <h2 id={`veh-${v.id}`}>
                  {v.name}
                  {v.default_vehicle && <Badge>{t('vehicles.default')}</Badge>}
                  {!owns(v) && <Badge>{v.role === 'editor' ? t('vehicles.sharedEditor') : t('vehicles.sharedViewer')}</Badge>}
                </h2>
                <dl>
                  {(v.brand || v.model) && <div><dt>{t('vehicles.model')}</dt><dd>{[v.brand, v.model].filter(Boolean).join(' ')}</dd></div>}
                  {v.plate_number && <div><dt>{t('vehicles.plate')}</dt><dd>{v.plate_number}</dd></div>}
                  <div><dt>{t('vehicles.fuelType')}</dt><dd>{FUEL_TYPES.includes(v.fuel_type) ? fuelTypeName(v.fuel_type) : v.fuel_type}</dd></div>
                  {v.current_odometer > 0 && <div><dt>{t('vehicles.odometer')}</dt><dd>{fmtDistance(v.current_odometer, activeUnits())}</dd></div>}
                  {linkedManuals(v, docs.data).length > 0 && (
                    <div><dt>{t('vehicles.manuals')}</dt><dd>{linkedManuals(v, docs.data).map((d) => d.title.trim() || d.fileName).join(', ')}</dd></div>
                  )}
                  {v.tank_capacity > 0 && <div><dt>{t('vehicles.tank')}</dt><dd>{`${fmtNumber(metricToQuantity(v.tank_capacity, 'l', activeUnits()), PLACES.quantity)} ${quantityLabel('l', activeUnits())}`}</dd></div>}
                </dl>
                {owns(v) && <div class="buttons">
                  <button type="button" class="secondary" disabled={!online} onClick={() => setEditing(v.id)}>{t('common.edit')}</button>
                  {!v.default_vehicle && (
                    <button type="button" class="secondary" disabled={!online}
                      onClick={() => void act(() => fuel.makeDefault(v.id), t('vehicles.nowDefault', { name: v.name }))}>{t('vehicles.makeDefault')}</button>
                  )}
                  <button type="button" class="danger" disabled={!online}
                    onClick={() => {
                      if (window.confirm(t('vehicles.deleteConfirm', { name: v.name }))) void act(() => fuel.deleteVehicle(v.id), t('vehicles.deleted'));
                    }}>{t('common.delete')}</button>
                  {user && (
                    <button type="button" class="secondary" aria-expanded={sharing === v.id} disabled={!online}
                      onClick={() => setSharing(sharing === v.id ? null : v.id)}>{t('vehicles.share')}</button>
                  )}
                </div>}
                {linkedManuals(v, docs.data).length > 0 && <Specifications vehicleId={v.id} manuals={linkedManuals(v, docs.data)} withToken={user !== null} />}
                {user && sharing === v.id && owns(v) && <Sharing vehicle={v} online={online} />}
              </>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * odometerAbove: the message for an odometer set below a refuel's reading,
 * which the service keeps but answers the reading for; null otherwise.
 */
function odometerAbove(sent: VehicleFields, saved: Vehicle): string | null {
  if (!sent.current_odometer || !new Big(saved.current_odometer).gt(sent.current_odometer.value)) return null;
  return t('vehicles.odometerAbove', { name: saved.name, value: fmtDistance(saved.current_odometer, activeUnits()) });
}

/** ManualPicker: the user's manuals as check boxes; the ticked ones are the vehicle's. */
function ManualPicker({ id, docs, ticked, onChange }: { id: string; docs: DocumentInfo[] | undefined; ticked: ReadonlySet<string>; onChange: (next: Set<string>) => void }) {
  return (
    <fieldset id={id} class="manual-picker" tabIndex={-1}>
      <legend>{t('vehicles.manuals')}</legend>
      {!docs && <p class="hint">{t('vehicles.manualsOffline')}</p>}
      {docs && docs.length === 0 && <p class="hint">{t('vehicles.manualsNone')}</p>}
      {docs && docs.length > 0 && <p class="hint">{t('vehicles.manualsHint')}</p>}
      {docs?.map((d) => (
        <div class="check" key={d.fileMd5}>
          <input id={`${id}-${d.fileMd5}`} type="checkbox" checked={ticked.has(d.fileMd5)} onChange={(e) => {
            const next = new Set(ticked);
            if (e.currentTarget.checked) next.add(d.fileMd5);
            else next.delete(d.fileMd5);
            onChange(next);
          }} />
          <label for={`${id}-${d.fileMd5}`}>{d.title.trim() || d.fileName}</label>
        </div>
      ))}
    </fieldset>
  );
}

function VehicleForm({ vehicle, docs, onSave, onCancel }: { vehicle?: Vehicle; docs: DocumentInfo[] | undefined; onSave: (f: VehicleFields) => Promise<void>; onCancel: () => void }) {
  const [name, setName] = useState(vehicle?.name ?? '');
  const [brand, setBrand] = useState(vehicle?.brand ?? '');
  const [model, setModel] = useState(vehicle?.model ?? '');
  const [plate, setPlate] = useState(vehicle?.plate_number ?? '');
  const [fuelType, setFuelType] = useState<FuelType>(vehicle?.fuel_type ?? 'gasoline');
  const u = activeUnits();
  // Shown in the owner's number format ("55,5" in de-DE), as typed back.
  const initialTank = vehicle && vehicle.tank_capacity > 0 ? inputNumber(metricToQuantity(vehicle.tank_capacity, 'l', u, 3)) : '';
  const [tank, setTank] = useState(initialTank);
  const initialOdometer = vehicle && vehicle.current_odometer > 0 ? inputNumber(kmToDistance(vehicle.current_odometer, u, 3)) : '';
  const [odometer, setOdometer] = useState(initialOdometer);
  const [isDefault, setIsDefault] = useState(vehicle?.default_vehicle ?? false);
  const [ticked, setTicked] = useState<Set<string>>(() => new Set(vehicle?.manual_md5s ?? []));
  const [errors, setErrors] = useState<FieldError[]>([]);
  const form = useFormErrors(errors);
  const [busy, setBusy] = useState(false);
  const p = vehicle ? `v${vehicle.id}` : 'vnew';
  // Opened (by its button or a confirmation's Edit), the form is where the owner types next.
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => focusInView(first.current), []);
  const fail = (found: FieldError[]) => {
    setErrors(found);
    form.reveal();
  };

  async function submit(e: Event) {
    e.preventDefault();
    setErrors([]);
    const bad: FieldError[] = [];
    if (!name.trim()) bad.push({ id: `${p}-name`, message: t('vehicles.errName') });
    let tankDec: Dec | undefined;
    if (tank.trim()) {
      const typed = parseDecimal(tank);
      if (typed === null) bad.push({ id: `${p}-tank`, message: t('vehicles.errTank', { unit: quantityLabel('l', u), example: numberExample('decimal', undefined, tank) }) });
      // Unchanged: the stored liters, not a round trip through the owner's unit.
      else tankDec = new Dec(tank === initialTank && vehicle ? String(vehicle.tank_capacity) : quantityToMetric(typed, 'l', u));
    }
    // Sent only when the owner changed it: the value shown may be a refuel's
    // reading, which must not become the owner's own (it would outlive a
    // correction of that refuel).
    let odometerDec: Dec | undefined;
    if (odometer.trim() !== initialOdometer.trim()) {
      // A reading: "12.500" in de-DE is 12500 (lib/numbers.ts).
      const typed = odometer.trim() ? readNumber(odometer, 'reading') : '0';
      if (typed === null) bad.push({ id: `${p}-odo`, message: t('vehicles.errOdometer', { unit: distanceLabel(u), example: numberExample('reading') }) });
      else odometerDec = new Dec(distanceToKm(typed, u));
    }
    if (bad.length > 0) return fail(bad);
    setBusy(true);
    try {
      await onSave({
        name: name.trim(), brand: brand.trim(), model: model.trim(), plate_number: plate.trim(), fuel_type: fuelType,
        tank_capacity: tankDec ?? new Dec('0'), default_vehicle: isDefault, ...(odometerDec ? { current_odometer: odometerDec } : {}),
        // Without the list of manuals (offline, docqa down) the links stay as they are.
        ...(docs ? { manual_md5s: chosenLinks(vehicle ? livingLinks(vehicle, docs) : [], ticked, docs) } : {}),
      });
    } catch (err) {
      fail(fromService((err as Error).message, {
        name: { id: `${p}-name`, label: t('vehicles.name') },
        brand: { id: `${p}-brand`, label: t('vehicles.brand') },
        model: { id: `${p}-model`, label: t('vehicles.modelField') },
        plate_number: { id: `${p}-plate`, label: t('vehicles.plateField') },
        fuel_type: { id: `${p}-fuel`, label: t('vehicles.fuelType') },
        tank_capacity: { id: `${p}-tank`, label: t('vehicles.tankField') },
        current_odometer: { id: `${p}-odo`, label: t('vehicles.odometerField') },
        manual_md5s: { id: `${p}-manuals`, label: t('vehicles.manuals') },
      }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="form" noValidate onSubmit={(e) => void submit(e)} aria-label={vehicle ? t('vehicles.editForm', { name: vehicle.name }) : t('vehicles.newForm')}>
      <ErrorSummary form={form} />
      <div class="field"><label for={`${p}-name`}>{t('vehicles.name')}</label>
        <input id={`${p}-name`} ref={first} maxLength={64} required value={name} {...form.control(`${p}-name`)} onInput={(e) => setName(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-name`} /></div>
      <div class="field"><label for={`${p}-brand`}>{t('vehicles.brand')}</label>
        <input id={`${p}-brand`} maxLength={64} value={brand} {...form.control(`${p}-brand`)} onInput={(e) => setBrand(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-brand`} /></div>
      <div class="field"><label for={`${p}-model`}>{t('vehicles.modelField')}</label>
        <input id={`${p}-model`} maxLength={64} value={model} {...form.control(`${p}-model`)} onInput={(e) => setModel(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-model`} /></div>
      <div class="field"><label for={`${p}-plate`}>{t('vehicles.plateField')}</label>
        <input id={`${p}-plate`} maxLength={32} value={plate} {...form.control(`${p}-plate`)} onInput={(e) => setPlate(e.currentTarget.value)} />
        <FieldMessage form={form} id={`${p}-plate`} /></div>
      <div class="field"><label for={`${p}-fuel`}>{t('vehicles.fuelType')}</label>
        <select id={`${p}-fuel`} value={fuelType} {...form.control(`${p}-fuel`)} onChange={(e) => setFuelType(e.currentTarget.value as FuelType)}>
          {FUEL_TYPES.map((f) => <option key={f} value={f}>{fuelTypeName(f)}</option>)}
        </select>
        <FieldMessage form={form} id={`${p}-fuel`} /></div>
      <div class="field"><label for={`${p}-tank`}>{t('vehicles.tankField')}</label>
        <div class="with-unit"><input id={`${p}-tank`} inputMode="decimal" value={tank} {...form.control(`${p}-tank`, `${p}-tank-unit`)} onInput={(e) => setTank(e.currentTarget.value)} />
          <span id={`${p}-tank-unit`} class="unit">{quantityLabel('l', u)}</span></div>
        <FieldMessage form={form} id={`${p}-tank`} /></div>
      <div class="field"><label for={`${p}-odo`}>{t('vehicles.odometerField')}</label>
        <div class="with-unit"><input id={`${p}-odo`} inputMode="decimal" value={odometer} {...form.control(`${p}-odo`, `${p}-odo-hint`)}
          onInput={(e) => setOdometer(e.currentTarget.value)} />
          <span class="unit">{distanceLabel(u)}</span></div>
        <FieldMessage form={form} id={`${p}-odo`} />
        <p id={`${p}-odo-hint`} class="hint">{t('vehicles.odometerHint')}</p></div>
      <div class="check"><input id={`${p}-default`} type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.currentTarget.checked)} />
        <label for={`${p}-default`}>{t('vehicles.defaultField')}</label></div>
      <ManualPicker id={`${p}-manuals`} docs={docs} ticked={ticked} onChange={setTicked} />
      <FieldMessage form={form} id={`${p}-manuals`} />
      <div class="buttons">
        <button type="submit" disabled={busy}>{t('vehicles.save')}</button>
        <button type="button" class="secondary" onClick={onCancel}>{t('common.cancel')}</button>
      </div>
    </form>
  );
}

/** Sharing: whom the owner's vehicle is shared with, and sharing it with someone by name. */
function Sharing({ vehicle, online }: { vehicle: Vehicle; online: boolean }) {
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<MemberRole>('viewer');
  const list = useServerData(() => fuel.members(vehicle.id), online, vehicle.id);
  const members = list.data;
  // Each change is followed by the members as the service has them.
  const { busy, error, status, run: act } = useAction(list.reload);
  const p = `share-${vehicle.id}`;

  async function share(e: Event) {
    e.preventDefault();
    const name = username.trim();
    const roleName = role === 'editor' ? t('vehicles.roleEditor') : t('vehicles.roleViewer');
    // The answer's name is the account's own spelling of it.
    if (await act(() => fuel.share(vehicle.id, name, role), (m) => t('vehicles.shared', { name: m.username, vehicle: vehicle.name, role: roleName }))) setUsername('');
  }

  return (
    <section class="sharing" aria-labelledby={`${p}-heading`}>
      <h3 id={`${p}-heading`}>{t('vehicles.sharingHeading', { name: vehicle.name })}</h3>
      <p class="hint">{t('vehicles.sharingHint')}</p>
      <ErrorText error={error ?? list.error} />
      {status && <Status>{status}</Status>}
      {members && members.length === 0 && <p>{t('vehicles.notShared')}</p>}
      {members && members.length > 0 && (
        <ul class="members" aria-label={t('vehicles.members', { name: vehicle.name })}>
          {members.map((m) => (
            <li key={m.user_id}>
              <span>{`${m.username} · ${m.role === 'editor' ? t('vehicles.roleEditor') : t('vehicles.roleViewer')}`}</span>
              <button type="button" class="secondary" disabled={busy || !online}
                aria-label={t('vehicles.unshareLabel', { name: m.username })}
                onClick={() => void act(() => fuel.unshare(vehicle.id, m.user_id), () => t('vehicles.unshared', { name: m.username, vehicle: vehicle.name }))}>
                {t('vehicles.unshare')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="form" aria-labelledby={`${p}-heading`} onSubmit={(e) => void share(e)}>
        <div class="field">
          <label for={`${p}-user`}>{t('login.username')}</label>
          <input id={`${p}-user`} autocomplete="off" autocapitalize="none" spellcheck={false} required
            value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${p}-role`}>{t('vehicles.role')}</label>
          <select id={`${p}-role`} value={role} onChange={(e) => setRole(e.currentTarget.value as MemberRole)}>
            <option value="viewer">{t('vehicles.roleViewer')}</option>
            <option value="editor">{t('vehicles.roleEditor')}</option>
          </select>
        </div>
        <div class="buttons">
          <button type="submit" disabled={busy || !online}>{t('vehicles.shareButton')}</button>
        </div>
      </form>
    </section>
  );
}
