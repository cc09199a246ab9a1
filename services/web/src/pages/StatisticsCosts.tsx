// The whole cost on Statistics: fuel, other costs, their total and the total
// per distance driven, the other costs by category, and a monthly chart of
// fuel against other costs (every energy's fuel summed, in decimal).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { MonthStatistics, Statistics as Stats } from '../api/fuel';
import type { Category } from '../api/costs';
import { byCategory, fuelAndOther, wholeCostPerKm } from '../lib/costs';
import { MONEY_EXTRA, fmtMoney } from '../lib/format';
import { costPerDistance, type Units } from '../lib/units';
import { distanceLabel, fmtDistance } from '../lib/labels';
import { t, tn } from '../i18n';
import { tk } from '../i18n/costs';
import { CategoryIcon } from '../components/category-icons';
import type { Series } from '../components/chart';

function Card({ id, label, value, note }: { id: string; label: string; value: string; note: string }) {
  return (
    <div class="card" role="group" aria-labelledby={id} aria-describedby={`${id}-note`}>
      <span class="card-label" id={id}>{label}</span>
      <span class="card-value">{value}</span>
      <span class="card-note" id={`${id}-note`}>{note}</span>
    </div>
  );
}

interface Props {
  s: Stats;
  /** Every energy's monthly series (undefined while loading). */
  monthly: MonthStatistics[][] | undefined;
  u: Units;
  cur: string;
  table: boolean;
  onToggle: () => void;
}

export function CostCards({ s, monthly, u, cur, table, onToggle }: Props) {
  if (s.expenses_amount === undefined) return null;
  // Fuel per km plus other costs per km (lib/costs.ts: the service's total_cost_per_km counts the first fill).
  const perKm = wholeCostPerKm(s);
  const perDistance = (v: string) => fmtMoney(costPerDistance(v, u), MONEY_EXTRA.costPerDistance, cur);
  const cats = byCategory(s.expenses_by_category);
  const rows = monthly ? fuelAndOther(monthly) : [];
  return (
    <section aria-labelledby="costs-h">
      <h2 id="costs-h">{tk('stats.costs')}</h2>
      <div class="cards">
        <Card id="cost-fuel" label={tk('stats.fuel')} value={fmtMoney(s.total_amount, 0, cur)} note={tk('stats.note.fuel')} />
        <Card id="cost-other" label={tk('stats.other')} value={fmtMoney(s.expenses_amount, 0, cur)} note={tk('stats.note.other')} />
        <Card id="cost-total" label={tk('stats.total')} value={fmtMoney(s.total_cost ?? 0, 0, cur)} note={tk('stats.note.total')} />
        <Card id="cost-per" label={tk('stats.totalPer', { unit: distanceLabel(u) })}
          value={perKm ? perDistance(perKm.total) : '–'}
          note={perKm ? tk('stats.note.totalPer', { fuel: perDistance(perKm.fuel), other: perDistance(perKm.other), distance: fmtDistance(s.total_distance, u) }) : tk('stats.note.totalPerUnknown')} />
      </div>
      {cats.length > 0 && (
        <>
          <h3 id="by-cat-h">{tk('stats.byCategory')}</h3>
          <ul class="by-category" aria-labelledby="by-cat-h">
            {cats.map((c) => (
              <li key={c.category}>
                <span class={`cat cat-${c.category}`}><CategoryIcon category={c.category as Category} /></span>
                <span>{tk(`cat.${c.category as Category}`)}</span>
                <span class="cat-amount">{fmtMoney(c.amount, 0, cur)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {rows.length > 0 && <FuelAndOtherChart rows={rows} cur={cur} table={table} onToggle={onToggle} />}
    </section>
  );
}

type ChartModule = typeof import('../components/chart');
let chartModule: Promise<ChartModule> | null = null;

function FuelAndOtherChart({ rows, cur, table, onToggle }: { rows: { month: string; fuel: string; other: string }[]; cur: string; table: boolean; onToggle: () => void }) {
  const [failed, setFailed] = useState(false);
  const el = useRef<HTMLDivElement>(null);
  const title = tk('stats.fuelVsOther');
  const labels = rows.map((r) => r.month);
  useEffect(() => {
    if (table || !el.current) return;
    let cleanup: (() => void) | undefined;
    let live = true;
    chartModule ??= import('../components/chart');
    chartModule.then(
      (m) => {
        if (live && el.current) {
          cleanup = m.drawChart(el.current, {
            months: labels, name: tk('stats.fuel'), values: rows.map((r) => Number(r.fuel)),
            second: { name: tk('stats.other'), values: rows.map((r) => Number(r.other)) },
          } satisfies Series);
        }
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      cleanup?.();
    };
  }, [table, rows.map((r) => `${r.month}:${r.fuel}:${r.other}`).join()]);
  const showTable = table || failed;
  return (
    <figure class="chart" aria-labelledby="fuel-other-cap">
      <figcaption id="fuel-other-cap">{title}</figcaption>
      {showTable ? (
        <table>
          <thead><tr><th scope="col">{tk('stats.month')}</th><th scope="col">{tk('stats.fuel')}</th><th scope="col">{tk('stats.other')}</th></tr></thead>
          <tbody>
            {rows.map((r) => <tr key={r.month}><th scope="row">{r.month}</th><td>{fmtMoney(r.fuel, 0, cur)}</td><td>{fmtMoney(r.other, 0, cur)}</td></tr>)}
          </tbody>
        </table>
      ) : (
        <>
          <ul class="legend" aria-hidden="true">
            <li><span class="swatch" />{tk('stats.fuel')}</li>
            <li><span class="swatch second" />{tk('stats.other')}</li>
          </ul>
          <div ref={el} class="plot" role="img" aria-label={tn('stats.chartLabel', labels.length, { title })} />
        </>
      )}
      {!failed && <button type="button" class="secondary" onClick={onToggle}>{table ? t('stats.showChart') : t('stats.showTable')}</button>}
    </figure>
  );
}
