import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { VehicleContext } from '../App';
import { ENERGY_NAMES, fuel, paths, unitLabel, type Energy, type EnergyStatistics, type ImportErrorBody, type ImportResult, type MonthStatistics, type Statistics as Stats } from '../api/fuel';
import { ApiError, download } from '../api/http';
import { useOnline, useResource } from '../hooks';
import { fmtDateTime, fmtNumber, timeZone } from '../lib/format';
import { AsOf, ErrorText, Status, VehiclePicker } from '../components/common';
import type { Series } from '../components/chart';

export function Statistics({ vehicles, vehiclesAsOf, chosen, choose, user }: VehicleContext) {
  const stats = useResource<Stats>(chosen === null ? null : paths.statistics(chosen));
  const [energyPick, setEnergyPick] = useState<Energy | null>(null);
  const s = stats.data;
  const energies = s?.by_energy.map((e) => e.energy) ?? [];
  const energy = energyPick && energies.includes(energyPick) ? energyPick : (s?.main_energy ?? null);
  const monthly = useResource<MonthStatistics[]>(chosen !== null && energy ? paths.monthly(chosen, energy, timeZone) : null);
  const unit = unitLabel(s?.by_energy.find((e) => e.energy === energy)?.unit ?? 'l');
  const months = monthly.data ?? [];
  // Which charts show as tables: kept here, so choosing another energy (the
  // charts unmount while its months load) keeps the owner's choice.
  const [tables, setTables] = useState<Record<string, boolean>>({});
  const tableProps = (name: string) => ({ table: tables[name] ?? false, onToggle: () => setTables((t) => ({ ...t, [name]: !t[name] })) });

  return (
    <>
      <h1 tabIndex={-1}>Statistics</h1>
      <AsOf asOf={stats.asOf ?? monthly.asOf ?? vehiclesAsOf} />
      {vehicles && vehicles.length > 0 && <VehiclePicker vehicles={vehicles} value={chosen} onChange={choose} />}
      {vehicles && vehicles.length === 0 && <p>No vehicle yet: add one on the <a href="/vehicles">Vehicles</a> page.</p>}
      <ErrorText error={stats.error ?? monthly.error} />
      {s && (
        <section aria-labelledby="cards-h">
          <h2 id="cards-h">Summary</h2>
          <div class="cards">
            <Card label="Refuels" value={fmtNumber(s.total_records, 0)} />
            <Card label="Total spent" value={fmtNumber(s.total_amount)} />
            <Card label="Distance" value={`${fmtNumber(s.total_distance, 1)} km`} />
            {s.last_refuel_time && <Card label="Last refuel" value={fmtDateTime(s.last_refuel_time)} />}
          </div>
          {s.by_energy.map((e) => <EnergyCards key={e.energy} e={e} several={s.by_energy.length > 1} />)}
        </section>
      )}
      {s && s.total_records > 0 && energy && (
        <section aria-labelledby="charts-h">
          <h2 id="charts-h">By month</h2>
          {energies.length > 1 && (
            <div class="field">
              <label for="chart-energy">Energy</label>
              <select id="chart-energy" value={energy} onChange={(e) => setEnergyPick(e.currentTarget.value as Energy)}>
                {energies.map((x) => <option key={x} value={x}>{ENERGY_NAMES[x]}</option>)}
              </select>
            </div>
          )}
          <p class="hint">Calendar months in {timeZone}.</p>
          {months.length > 0 && (
            <>
              <ChartBlock title={`Consumption (${unit}/100 km)`} name="Consumption" {...tableProps('Consumption')} labels={months.map((m) => m.month)} values={months.map((m) => m.consumption)} digits={2} />
              <ChartBlock title={`Price per unit (per ${unit})`} name="Price per unit" {...tableProps('Price per unit')} labels={months.map((m) => m.month)} values={months.map((m) => m.avg_price)} digits={4} />
              <ChartBlock title="Monthly cost" name="Cost" {...tableProps('Cost')} labels={months.map((m) => m.month)} values={months.map((m) => m.amount)} digits={2} />
            </>
          )}
        </section>
      )}
      {chosen !== null && <Csv vehicleId={chosen} withToken={user !== null} onImported={() => { stats.reload(); monthly.reload(); }} />}
    </>
  );
}

// Each card is a group named by its label, and each energy's cards a group
// named by the energy, so the figures can be found by name, not by layout.
function Card({ label, value }: { label: string; value: string }) {
  const id = useId();
  return (
    <div class="card" role="group" aria-labelledby={id}>
      <span class="card-label" id={id}>{label}</span>
      <span class="card-value">{value}</span>
    </div>
  );
}

function EnergyCards({ e, several }: { e: EnergyStatistics; several: boolean }) {
  const u = unitLabel(e.unit);
  const id = useId();
  const name = ENERGY_NAMES[e.energy];
  return (
    <div class="energy-cards" role="group" {...(several ? { 'aria-labelledby': id } : { 'aria-label': name })}>
      {several && <h3 id={id}>{name}</h3>}
      <div class="cards">
        {several && <Card label="Refuels" value={fmtNumber(e.total_records, 0)} />}
        <Card label={several ? 'Quantity' : `${name} quantity`} value={`${fmtNumber(e.total_quantity, 3)} ${u}`} />
        {several && <Card label="Spent" value={fmtNumber(e.total_amount)} />}
        <Card label="Average price" value={`${fmtNumber(e.avg_price, 4)} per ${u}`} />
        <Card label="Average consumption" value={e.consumption_samples > 0 ? `${fmtNumber(e.avg_consumption)} ${u}/100 km` : 'not enough full fills'} />
        <Card label="Cost per km" value={e.consumption_samples > 0 ? fmtNumber(e.cost_per_km, 4) : '–'} />
      </div>
    </div>
  );
}

type ChartModule = typeof import('../components/chart');
let chartModule: Promise<ChartModule> | null = null;

interface ChartProps {
  title: string;
  name: string;
  labels: string[];
  values: number[];
  digits: number;
  table: boolean;
  onToggle: () => void;
}

function ChartBlock({ title, name, labels, values, digits, table, onToggle }: ChartProps) {
  const [failed, setFailed] = useState(false);
  const el = useRef<HTMLDivElement>(null);
  const id = name.toLowerCase().replace(/\W+/g, '-');
  useEffect(() => {
    if (table || !el.current) return;
    let cleanup: (() => void) | undefined;
    let live = true;
    chartModule ??= import('../components/chart');
    chartModule.then(
      (m) => {
        if (live && el.current) cleanup = m.drawChart(el.current, { labels, values, name } satisfies Series);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      cleanup?.();
    };
  }, [table, labels.join(), values.join()]);
  const showTable = table || failed;
  return (
    <figure class="chart" aria-labelledby={`${id}-cap`}>
      <figcaption id={`${id}-cap`}>{title}</figcaption>
      {showTable ? (
        <table>
          <thead><tr><th scope="col">Month</th><th scope="col">{name}</th></tr></thead>
          <tbody>
            {labels.map((l, i) => <tr key={l}><th scope="row">{l}</th><td>{fmtNumber(values[i] ?? 0, digits)}</td></tr>)}
          </tbody>
        </table>
      ) : (
        <div ref={el} class="plot" role="img" aria-label={`${title}: chart of ${labels.length} months. Use Show as table for the figures.`} />
      )}
      {!failed && (
        <button type="button" class="secondary" onClick={onToggle}>{table ? 'Show as chart' : 'Show as table'}</button>
      )}
    </figure>
  );
}

function Csv({ vehicleId, withToken, onImported }: { vehicleId: number; withToken: boolean; onImported: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<ImportResult | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<ImportErrorBody | null>(null);
  const [busy, setBusy] = useState(false);
  const online = useOnline();

  async function run(dryRun: boolean) {
    if (!file) return setError({ code: 'INVALID_ARGUMENT', message: 'CSV file: choose a file first.' });
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const r = await fuel.importCsv(vehicleId, file, dryRun);
      if (dryRun) setPreview(r);
      else {
        setPreview(null);
        setDone(`Imported ${r.imported} refuels; ${r.skipped} already stored were skipped.`);
        onImported();
      }
    } catch (e) {
      setPreview(null);
      const body = e instanceof ApiError ? (e.body as ImportErrorBody | undefined) : undefined;
      setError(body && typeof body.message === 'string' ? body : { code: 'ERROR', message: (e as Error).message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="csv-h">
      <h2 id="csv-h">CSV</h2>
      <p>
        <a href={paths.csv(vehicleId)} download onClick={(e) => {
          // With accounts the file needs the bearer token, which a plain link cannot send.
          if (!withToken) return;
          e.preventDefault();
          setError(null);
          download(paths.csv(vehicleId), `refuels-${vehicleId}.csv`).catch((err: Error) => setError({ code: 'EXPORT', message: `Export: ${err.message}` }));
        }}>Export CSV</a>
      </p>
      <div class="field">
        <label for="csv-file">CSV file to import</label>
        <input id="csv-file" type="file" accept=".csv,text/csv" onChange={(e) => { setFile(e.currentTarget.files?.[0] ?? null); setPreview(null); setDone(null); setError(null); }} />
      </div>
      <p class="hint">This app's export, Fuelly and LubeLogger files are read. Nothing is stored before you confirm the preview.</p>
      {!online && <p class="hint">Importing needs a connection.</p>}
      <div class="buttons">
        <button type="button" class="secondary" disabled={busy || !file || !online} onClick={() => void run(true)}>Preview import</button>
      </div>
      {preview && (
        <div class="preview" role="status">
          <p>{preview.rows} rows read: {preview.imported} would be imported, {preview.skipped} are already stored and would be skipped.</p>
          <button type="button" disabled={busy || preview.imported === 0} onClick={() => void run(false)}>Import {preview.imported} refuels</button>
        </div>
      )}
      {done && <Status>{done}</Status>}
      {error && (
        <div class="error" role="alert">
          <p>{error.message}</p>
          {error.errors && error.errors.length > 0 && (
            <ul>{error.errors.slice(0, 50).map((x) => <li key={x.row}>Row {x.row}: {x.reason}</li>)}</ul>
          )}
        </div>
      )}
    </section>
  );
}
