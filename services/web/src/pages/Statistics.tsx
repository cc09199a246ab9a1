import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { VehicleContext } from './context';
import { currencyOf, defaultEnergy, fuel, paths, type Energy, type EnergyStatistics, type ImportErrorBody, type ImportResult, type MonthStatistics, type Statistics as Stats } from '../api/fuel';
import { ApiError, download } from '../api/http';
import { useMonthly, useOnline, useResource } from '../hooks';
import { CostCards } from './StatisticsCosts';
import { MONEY_EXTRA, fmtDateTime, fmtMoney, fmtNumber, fmtPrice, homeCurrency } from '../lib/format';
import { AsOf, ErrorText, Status } from '../components/messages';
import { NoVehicle, VehiclePicker } from '../components/vehicle-picker';
import { t, tn, type MessageKey } from '../i18n';
import { prefs as activePrefs, units as activeUnits } from '../lib/preferences';
import {
  CONSUMPTION_PLACES, PLACES, consumptionUnitOf, convertConsumption, costPerDistance, metricToQuantity, pricePerOwnerUnit, recordPrice, type Units,
} from '../lib/units';
import { consumptionLabel, distanceLabel, energyName, fmtDistance, quantityLabel } from '../lib/labels';
import type { Series } from '../components/chart';
import { FilePicker } from '../components/file-picker';

export function Statistics({ vehicles, vehiclesAsOf, chosen, choose, user }: VehicleContext) {
  const stats = useResource<Stats>(chosen === null ? null : paths.statistics(chosen));
  const [energyPick, setEnergyPick] = useState<Energy | null>(null);
  const s = stats.data;
  const energies = s?.by_energy.map((e) => e.energy) ?? [];
  const energy = energyPick && energies.includes(energyPick) ? energyPick : (s?.main_energy ?? null);
  // Calendar months in the owner's time zone (a preference; the browser's until one is chosen).
  const zone = activePrefs().time_zone;
  const monthly = useResource<MonthStatistics[]>(chosen !== null && energy ? paths.monthly(chosen, energy, zone) : null);
  const u = activeUnits();
  // The vehicle's money is in its owner's currency (a shared vehicle's may not be the user's).
  const cur = currencyOf(vehicles?.find((v) => v.id === chosen), homeCurrency());
  const energyUnit = s?.by_energy.find((e) => e.energy === energy)?.unit ?? 'l';
  const unit = quantityLabel(energyUnit, u);
  const cu = consumptionUnitOf(energyUnit, u);
  const months = monthly.data ?? [];
  // The service's monthly figures converted one by one; a month without a
  // consumption sample (the service's 0) is null: a gap in the chart, "–" in its table.
  const monthConsumption = months.map((m) => convertConsumption(m.consumption, cu));
  const monthPrice = months.map((m) => pricePerOwnerUnit(m.avg_price, m.unit, u));
  // Which charts show as tables: kept here, so choosing another energy (the
  // charts unmount while its months load) keeps the owner's choice.
  const [tables, setTables] = useState<Record<string, boolean>>({});
  const tableProps = (name: string) => ({ table: tables[name] ?? false, onToggle: () => setTables((t) => ({ ...t, [name]: !t[name] })) });
  // Every energy's months, for the fuel of all of them against the other costs.
  // A vehicle with expenses and no refuel yet: its months come with its default energy's series.
  const chosenVehicle = vehicles?.find((v) => v.id === chosen);
  const costEnergies = energies.length > 0 ? energies : s && (s.expenses_amount ?? 0) > 0 && chosenVehicle ? [defaultEnergy(chosenVehicle.fuel_type)] : [];
  const allMonthly = useMonthly(chosen, costEnergies, zone, s);

  return (
    <>
      <h1 tabIndex={-1}>{t('nav.statistics')}</h1>
      <AsOf asOf={stats.asOf ?? monthly.asOf ?? vehiclesAsOf} />
      {vehicles && vehicles.length > 0 && <VehiclePicker vehicles={vehicles} value={chosen} onChange={choose} />}
      {vehicles && vehicles.length === 0 && <NoVehicle />}
      <ErrorText error={stats.error ?? monthly.error} />
      {s && (
        <section aria-labelledby="cards-h">
          <h2 id="cards-h">{t('stats.summary')}</h2>
          <div class="cards">
            <Card label={t('stats.refuels')} value={fmtNumber(s.total_records, 0)} note={t('stats.note.refuels')} />
            <Card label={t('stats.totalSpent')} value={fmtMoney(s.total_amount, 0, cur)} note={t('stats.note.totalSpent')} />
            <Card label={t('stats.distance')} value={fmtDistance(s.total_distance, u)} note={t('stats.note.distance')} />
            {s.last_refuel_time && <Card label={t('stats.lastRefuel')} value={fmtDateTime(s.last_refuel_time)} note={t('stats.note.lastRefuel')} />}
            {/* With several energies, what driving costs on all of them: each energy's money per km driven, added up. */}
            {s.by_energy.length > 1 && s.combined_cost_per_km !== undefined && (
              <Card label={t('stats.combinedCostPer', { unit: distanceLabel(u) })}
                value={s.combined_cost_per_km > 0 ? fmtMoney(costPerDistance(s.combined_cost_per_km, u), MONEY_EXTRA.costPerDistance, cur) : '–'}
                note={s.combined_cost_per_km > 0 ? t('stats.note.combinedCost') : t('stats.note.combinedUnknown')} />
            )}
          </div>
          {s.by_energy.map((e) => <EnergyCards key={e.energy} e={e} u={u} cur={cur} several={s.by_energy.length > 1} />)}
        </section>
      )}
      {s && <CostCards s={s} monthly={allMonthly.data} u={u} cur={cur} {...tableProps('Fuel and other costs')} />}
      {s && s.total_records > 0 && energy && (
        <section aria-labelledby="charts-h">
          <h2 id="charts-h">{t('stats.byMonth')}</h2>
          {energies.length > 1 && (
            <div class="field">
              <label for="chart-energy">{t('stats.energy')}</label>
              <select id="chart-energy" value={energy} onChange={(e) => setEnergyPick(e.currentTarget.value as Energy)}>
                {energies.map((x) => <option key={x} value={x}>{energyName(x)}</option>)}
              </select>
            </div>
          )}
          <p class="hint">{t('stats.monthsIn', { zone })}</p>
          {months.length > 0 && (
            <>
              <ChartBlock id="consumption" title={energies.length > 1 ? t(`stats.all.${cu}`) : t('stats.consumptionChart', { unit: consumptionLabel(energyUnit, u) })} name={energies.length > 1 ? t(`stats.all.${cu}`) : t('stats.consumptionName')} {...tableProps('Consumption')} labels={months.map((m) => m.month)} values={monthConsumption} format={(v) => fmtNumber(v, CONSUMPTION_PLACES[cu])} />
              <ChartBlock id="price" title={t('stats.priceChart', { unit: t('unit.per', { unit }) })} name={t('stats.priceName')} {...tableProps('Price per unit')} labels={months.map((m) => m.month)} values={monthPrice} format={(v) => fmtMoney(v, MONEY_EXTRA.price, cur)} />
              <ChartBlock id="cost" title={t('stats.costChart')} name={t('stats.costName')} {...tableProps('Cost')} labels={months.map((m) => m.month)} values={months.map((m) => String(m.amount))} format={(v) => fmtMoney(v, 0, cur)} />
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
// Under the value, a line says what the number is (described by it).
function Card({ label, value, note }: { label: string; value: string; note: string }) {
  const id = useId();
  return (
    <div class="card" role="group" aria-labelledby={id} aria-describedby={`${id}-note`}>
      <span class="card-label" id={id}>{label}</span>
      <span class="card-value">{value}</span>
      <span class="card-note" id={`${id}-note`}>{note}</span>
    </div>
  );
}

function EnergyCards({ e, u, cur, several }: { e: EnergyStatistics; u: Units; cur: string; several: boolean }) {
  const q = quantityLabel(e.unit, u);
  const id = useId();
  const name = energyName(e.energy);
  const cu = consumptionUnitOf(e.unit, u);
  // The distance-weighted figures (all sampled fuel over all sampled
  // distance), as the monthly chart and other fuel trackers compute them;
  // statistics cached offline from a service without weighted_cost_per_km
  // show the mean cost of the samples until the next fetch. A sample's
  // distance counts every km driven between this energy's full records, on
  // any energy: with several energies (a plug-in hybrid) the figures are
  // per km driven on all of them, and say so; the km driven on each energy
  // alone are not recorded.
  const consumption = e.consumption_samples > 0 ? convertConsumption(e.weighted_consumption, cu) : null;
  const costPerKm = e.weighted_cost_per_km ?? e.cost_per_km;
  const over = e.sampled_distance !== undefined && e.sampled_distance > 0 ? fmtDistance(e.sampled_distance, u) : null;
  // The price paid per unit: all the money over all the quantity, in decimal;
  // the contract's avg_price (the mean of the fills' unit prices) only without a quantity.
  const paid = recordPrice(e.total_amount, e.total_quantity, e.unit, u);
  const sampledNote = (single: MessageKey, all: MessageKey) =>
    e.consumption_samples === 0 ? t('stats.note.needsFullFills')
      : over === null ? t(several ? 'stats.note.allEnergies' : 'stats.note.fullToFull')
        : t(several ? all : single, { distance: over });
  return (
    <div class="energy-cards" role="group" {...(several ? { 'aria-labelledby': id } : { 'aria-label': name })}>
      {several && <h3 id={id}>{name}</h3>}
      <div class="cards">
        {several && <Card label={t('stats.refuels')} value={fmtNumber(e.total_records, 0)} note={t('stats.note.energyRefuels')} />}
        <Card label={several ? t('stats.quantity') : t('stats.energyQuantity', { energy: name })} value={`${fmtNumber(metricToQuantity(e.total_quantity, e.unit, u), PLACES.quantity)} ${q}`}
          note={t('stats.note.quantity')} />
        {several && <Card label={t('stats.spent')} value={fmtMoney(e.total_amount, 0, cur)} note={t('stats.note.spent')} />}
        {/* One price: the one paid (a mean of the fills' prices beside it read as a second, slightly different price). */}
        {paid !== null
          ? <Card label={t('stats.paidPrice')} value={fmtPrice(paid, q, cur)} note={t('stats.note.paidPrice')} />
          : <Card label={t('stats.avgPrice')} value={fmtPrice(pricePerOwnerUnit(e.avg_price, e.unit, u), q, cur)} note={t('stats.note.avgPrice')} />}
        <Card label={several ? t(`stats.all.${cu}`) : t('stats.avgConsumption')}
          value={consumption !== null ? `${fmtNumber(consumption, CONSUMPTION_PLACES[cu])} ${consumptionLabel(e.unit, u)}` : t('stats.notEnough')}
          note={sampledNote('stats.note.consumption', 'stats.note.consumptionAll')} />
        <Card label={several ? t('stats.costPerAll', { unit: distanceLabel(u) }) : t('stats.costPer', { unit: distanceLabel(u) })}
          value={e.consumption_samples > 0 ? fmtMoney(costPerDistance(costPerKm, u), MONEY_EXTRA.costPerDistance, cur) : '–'}
          note={sampledNote('stats.note.cost', 'stats.note.costAll')} />
      </div>
    </div>
  );
}

type ChartModule = typeof import('../components/chart');
let chartModule: Promise<ChartModule> | null = null;

interface ChartProps {
  /** A stable id (the title changes with the language and units). */
  id: string;
  title: string;
  name: string;
  labels: string[];
  /** Decimal strings, already in the owner's units; null for a month without the figure (a gap, "–"). */
  values: (string | null)[];
  /** How a value reads in the table (a number, or money in the owner's currency). */
  format: (v: string) => string;
  table: boolean;
  onToggle: () => void;
}

function ChartBlock({ id, title, name, labels, values, format, table, onToggle }: ChartProps) {
  const [failed, setFailed] = useState(false);
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (table || !el.current) return;
    let cleanup: (() => void) | undefined;
    let live = true;
    chartModule ??= import('../components/chart');
    chartModule.then(
      (m) => {
        // uPlot draws numbers; the figures themselves are in the table.
        if (live && el.current) cleanup = m.drawChart(el.current, { months: labels, values: values.map((v) => (v === null ? null : Number(v))), name } satisfies Series);
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
          <thead><tr><th scope="col">{t('stats.month')}</th><th scope="col">{name}</th></tr></thead>
          <tbody>
            {labels.map((l, i) => <tr key={l}><th scope="row">{l}</th><td>{values[i] == null ? '–' : format(values[i])}</td></tr>)}
          </tbody>
        </table>
      ) : (
        <div ref={el} class="plot" role="img" aria-label={tn('stats.chartLabel', labels.length, { title })} />
      )}
      {!failed && (
        <button type="button" class="secondary" onClick={onToggle}>{table ? t('stats.showChart') : t('stats.showTable')}</button>
      )}
    </figure>
  );
}

function Csv({ vehicleId, withToken, onImported }: { vehicleId: number; withToken: boolean; onImported: () => void }) {
  const zone = activePrefs().time_zone;
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<ImportResult | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<ImportErrorBody | null>(null);
  const [busy, setBusy] = useState(false);
  const online = useOnline();

  async function run(dryRun: boolean) {
    if (!file) return setError({ code: 'INVALID_ARGUMENT', message: t('csv.chooseFirst') });
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const r = await fuel.importCsv(vehicleId, file, dryRun, zone);
      if (dryRun) setPreview(r);
      else {
        setPreview(null);
        setDone(t('csv.imported', { imported: fmtNumber(r.imported, 0), skipped: fmtNumber(r.skipped, 0) }));
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
      <h2 id="csv-h">{t('csv.heading')}</h2>
      <ul class="links">
        {[
          // Times in the owner's zone, guessed or saved (the service knows only a saved one).
          { path: paths.csv(vehicleId, zone), label: t('csv.export') },
          { path: paths.csvSpreadsheet(vehicleId, zone), label: t('csv.exportSpreadsheet') },
        ].map(({ path, label }) => (
          <li key={path}>
            <a href={path} download onClick={(e) => {
              // With accounts the file needs the bearer token, which a plain link cannot send.
              if (!withToken) return;
              e.preventDefault();
              setError(null);
              download(path, `refuels-${vehicleId}.csv`).catch((err: Error) => setError({ code: 'EXPORT', message: t('csv.exportError', { message: err.message }) }));
            }}>{label}</a>
          </li>
        ))}
      </ul>
      <div class="field">
        <label for="csv-file">{t('csv.file')}</label>
        <FilePicker id="csv-file" accept=".csv,text/csv" chosen={file ? [file] : null}
          onChange={(e) => { setFile(e.currentTarget.files?.[0] ?? null); setPreview(null); setDone(null); setError(null); }} />
      </div>
      <p class="hint">{t('csv.hint')}</p>
      {!online && <p class="hint">{t('csv.needsConnection')}</p>}
      <div class="buttons">
        <button type="button" class="secondary" disabled={busy || !file || !online} onClick={() => void run(true)}>{t('csv.preview')}</button>
      </div>
      {preview && (
        <div class="preview" role="status">
          <p>{t('csv.previewText', { rows: fmtNumber(preview.rows, 0), imported: fmtNumber(preview.imported, 0), skipped: fmtNumber(preview.skipped, 0) })}</p>
          {preview.encoding !== 'utf-8' && <p>{t('csv.encoding', { encoding: preview.encoding })}</p>}
          <button type="button" disabled={busy || preview.imported === 0} onClick={() => void run(false)}>{t('csv.import', { n: fmtNumber(preview.imported, 0) })}</button>
        </div>
      )}
      {done && <Status>{done}</Status>}
      {error && (
        <div class="error" role="alert">
          <p>{error.message}</p>
          {error.errors && error.errors.length > 0 && (
            <ul>{error.errors.slice(0, 50).map((x) => <li key={x.row}>{t('csv.row', { row: x.row, reason: x.reason })}</li>)}</ul>
          )}
        </div>
      )}
    </section>
  );
}
