// The start page: a small dashboard of the chosen vehicle (the default one
// until another is picked): its last refuel, how its consumption went over
// the last months, what its fuel cost this month, and the way to add a
// refuel. Every figure is read through useResource, so offline the page
// shows what was last fetched, marked "as of".
import Big from 'big.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { VehicleContext } from './context';
import { canWriteRefuels, currencyOf, paths, type RefuelRecord, type Statistics as Stats } from '../api/fuel';
import { useMonthly, useOnline, useResource } from '../hooks';
import { outbox } from '../offline/sync';
import { recordsWaiting } from '../offline/outbox';
import { fmtDateTime, fmtMoney, fmtMonth, fmtNumber, homeCurrency, monthOf } from '../lib/format';
import { prefs as activePrefs, units as activeUnits } from '../lib/preferences';
import { CONSUMPTION_PLACES, PLACES, consumptionUnitOf, convertConsumption, metricToQuantity } from '../lib/units';
import { consumptionLabel, fmtDistance, quantityLabel } from '../lib/labels';
import { AsOf, ErrorText } from '../components/messages';
import { VehiclePicker } from '../components/vehicle-picker';
import { Icon } from '../components/icons';
import { levelRange } from '../lib/ticks';
import { lazyComponent } from '../components/lazy';
import { t, tn } from '../i18n';

// Loaded with the strings of costs, not with the first screen.
const DueReminders = lazyComponent(() => import('./DueReminders').then((m) => m.DueReminders), { quiet: true });
// Receipts photographed offline, to review (a chunk of the scan's: components/receipt-scan.tsx).
const DraftsToReview = lazyComponent(() => import('../components/receipt-scan').then((m) => m.DraftsToReview), { quiet: true });

/** How many months the consumption trend shows. */
const TREND_MONTHS = 6;

/** useRecordsWaiting: how many of the user's records wait on this device to be sent (recordsWaiting). */
function useRecordsWaiting(user: number | undefined): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    const update = () => void outbox.items().then((all) => setN(recordsWaiting(all, user)));
    update();
    return outbox.subscribe(update);
  }, [user]);
  return n;
}

export function Home({ vehicles, vehiclesAsOf, vehiclesError, chosen, choose, user }: VehicleContext) {
  const vehicle = vehicles?.find((v) => v.id === chosen);
  const last = useResource<RefuelRecord[]>(chosen === null ? null : paths.lastRefuel(chosen));
  const stats = useResource<Stats>(chosen === null ? null : paths.statistics(chosen));
  // Calendar months in the owner's time zone, as on Statistics.
  const zone = activePrefs().time_zone;
  const energies = stats.data?.by_energy.map((e) => e.energy) ?? [];
  const monthly = useMonthly(chosen, energies, zone, stats.data);
  const u = activeUnits();
  const online = useOnline();
  const waiting = useRecordsWaiting(user?.id);
  const r = last.data?.[0];
  const asOf = last.asOf ?? stats.asOf ?? monthly.asOf ?? vehiclesAsOf;
  const canAdd = vehicles?.some(canWriteRefuels) ?? false;
  // The vehicle's money is in its owner's currency; a refuel paid abroad shows what was paid there too.
  const cur = currencyOf(vehicle, homeCurrency());
  const abroad = r?.currency && r.home_amount != null ? r.currency : null;

  // The consumption trend: the main energy's last months that have a figure.
  const main = stats.data?.main_energy ?? null;
  const mainMonths = main === null ? [] : (monthly.data?.[energies.indexOf(main)] ?? []);
  const mainUnit = stats.data?.by_energy.find((e) => e.energy === main)?.unit ?? 'l';
  const cu = consumptionUnitOf(mainUnit, u);
  const trend = mainMonths
    .map((m) => ({ month: m.month, value: convertConsumption(m.consumption, cu) }))
    .filter((m): m is { month: string; value: string } => m.value !== null)
    .slice(-TREND_MONTHS);

  // This month's fuel, all energies together, in the owner's currency.
  const thisMonth = monthOf(new Date(), zone);
  const monthRows = monthly.data?.flat().filter((m) => m.month === thisMonth) ?? [];
  const monthCost = monthRows.reduce((sum, m) => sum.plus(String(m.amount)), new Big(0));
  const monthRefuels = monthRows.reduce((n, m) => n + m.records, 0);
  // Each energy's series repeats the month's other costs: read once.
  const monthOther = monthRows.find((m) => m.expenses_amount !== undefined)?.expenses_amount;

  return (
    <>
      <h1 tabIndex={-1}>{t('nav.home')}</h1>
      {/* Offline with records waiting: what the figures below do not count yet, and since when they are. */}
      {!online && waiting > 0 ? (
        <p class="asof" role="status">{tn('home.offlineWaiting', waiting)}{asOf ? ` ${t('home.figuresAsOf', { when: fmtDateTime(asOf) })}` : ''}</p>
      ) : <AsOf asOf={asOf} />}
      <ErrorText error={vehiclesError ?? last.error ?? stats.error ?? monthly.error} />
      {vehicles && vehicles.length === 0 && (
        <section class="dash-empty">
          <p>{t('home.noVehicle')}</p>
          <a class="button big" href="/vehicles?add">{t('home.addVehicle')}</a>
        </section>
      )}
      {vehicles && vehicles.length > 1 && <VehiclePicker vehicles={vehicles} value={chosen} onChange={choose} />}
      {vehicles && vehicles.length === 1 && vehicle && <p class="dash-vehicle">{vehicle.name}</p>}
      {canAdd && (
        <a class="button big add-action" href="/add"><Icon name="add" />{t('nav.add')}</a>
      )}
      {last.data && last.data.length === 0 && <p>{t('home.noRefuels')}</p>}
      <DraftsToReview user={user?.id} />
      {/* Reminders (a service due, an inspection), above the figures. */}
      {chosen !== null && vehicles && vehicles.length > 0 && <DueReminders vehicleId={chosen} />}
      {r && (
        <section class="dash" aria-labelledby="dash-last">
          <h2 id="dash-last">{t('home.lastRefuel')}</h2>
          <dl class="figures">
            <div><dt>{t('home.when')}</dt><dd>{fmtDateTime(r.refuel_time)}</dd></div>
            <div><dt>{t('home.quantity')}</dt><dd>{`${fmtNumber(metricToQuantity(r.liters, r.unit, u), PLACES.quantity)} ${quantityLabel(r.unit, u)}`}</dd></div>
            <div><dt>{t('home.cost')}</dt><dd>{abroad
              ? `${fmtMoney(r.total_amount, 0, abroad)} · ${t('history.chargedAtHome', { amount: fmtMoney(r.home_amount!, 0, cur) })}`
              : fmtMoney(r.total_amount, 0, cur)}</dd></div>
            <div><dt>{t('home.odometer')}</dt><dd>{fmtDistance(r.odometer, u)}</dd></div>
          </dl>
          <a href="/history">{t('home.allRefuels')}</a>
        </section>
      )}
      {r && monthly.data && (
        <section class="dash" aria-labelledby="dash-month">
          <h2 id="dash-month">{t('home.thisMonth', { month: fmtMonth(thisMonth, 'long') })}</h2>
          <dl class="figures">
            <div><dt>{t('home.fuelCost')}</dt><dd>{fmtMoney(monthCost.toString(), 0, cur)}</dd></div>
            <div><dt>{t('home.refuels')}</dt><dd>{fmtNumber(monthRefuels, 0)}</dd></div>
            {monthOther !== undefined && <div><dt>{t('home.otherCosts')}</dt><dd>{fmtMoney(monthOther, 0, cur)}</dd></div>}
          </dl>
          {monthOther !== undefined && <a href="/costs">{t('home.allCosts')}</a>}
        </section>
      )}
      {r && monthly.data && (
        <section class="dash" aria-labelledby="dash-trend">
          <h2 id="dash-trend">{t('home.consumption', { unit: consumptionLabel(mainUnit, u) })}</h2>
          {trend.length === 0 ? <p class="hint">{t('home.noConsumption')}</p> : (
            <>
              <Sparkline values={trend.map((m) => Number(m.value))} />
              <ol class="trend" aria-label={tn('home.trendLabel', trend.length)}>
                {trend.map((m) => (
                  <li key={m.month}><span class="trend-month">{fmtMonth(m.month, 'short')}</span> {fmtNumber(m.value, CONSUMPTION_PLACES[cu])}</li>
                ))}
              </ol>
            </>
          )}
          <a href="/statistics">{t('home.allStatistics')}</a>
        </section>
      )}
    </>
  );
}

/**
 * Sparkline: the trend's shape; decorative, the figures are in the list
 * beside it. As wide as its card (drawn at the width it is shown at, so
 * its dots stay round), its height fixed.
 */
function Sparkline({ values }: { values: number[] }) {
  const box = useRef<SVGSVGElement>(null);
  const [w, setW] = useState(320);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const width = Math.round(el.getBoundingClientRect().width);
      if (width > 0) setW(width);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const o = new ResizeObserver(measure);
    o.observe(el);
    return () => o.disconnect();
  }, []);
  const h = 48;
  const pad = 6;
  // From zero, as the charts of Statistics: a change of 0.1 L/100 km is not drawn as a cliff.
  const [lo, hi] = levelRange(values);
  const x = (i: number) => (values.length === 1 ? w / 2 : pad + (i * (w - 2 * pad)) / (values.length - 1));
  const y = (v: number) => pad + ((hi - v) * (h - 2 * pad)) / (hi - lo);
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return (
    <svg ref={box} class="sparkline" viewBox={`0 0 ${w} ${h}`} height={h} aria-hidden="true" focusable="false">
      {/* The zero line the trend stands on. */}
      <line x1={pad} y1={y(0)} x2={w - pad} y2={y(0)} stroke="currentColor" stroke-opacity="0.3" stroke-width="1" />
      <polyline points={points} fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" stroke-linecap="round" />
      {values.map((v, i) => <circle key={i} cx={x(i)} cy={y(v)} r={i === values.length - 1 ? 3.5 : 2} fill="currentColor" />)}
    </svg>
  );
}
