// Distance since the previous record and, on full fills, the consumption of
// the span that ends there, computed like the service's statistics: per
// energy, between consecutive full records, partial fills in between
// counted, a missed fill-up discarding the span.
import Big from 'big.js';
import { canonical } from './decimal';

export interface SpanInput {
  id: number;
  refuel_time: string;
  odometer: number;
  energy: string;
  liters: number;
  is_full: boolean;
  missed_previous: boolean;
}

export interface Span {
  /** km since the previous record of the vehicle (any energy); null for the first. */
  distance: string | null;
  /** quantity per 100 km of the span closed here, 10 places (display rounds it, after converting it to the owner's unit: lib/units.ts); null when none closes. */
  consumption: string | null;
  /**
   * km the consumption is over: from the previous full record of the same
   * energy, so it counts the km driven on any energy between them (on a
   * plug-in hybrid, more than distance); null with consumption.
   */
  over: string | null;
}

/** spans takes records in any order and returns one Span per record id. */
export function spans(records: SpanInput[]): Map<number, Span> {
  const sorted = [...records].sort((a, b) => (a.refuel_time < b.refuel_time ? -1 : a.refuel_time > b.refuel_time ? 1 : a.id - b.id));
  const out = new Map<number, Span>();
  const ref = new Map<string, { odometer: number; acc: Big } | null>();
  let prev: SpanInput | null = null;
  for (const r of sorted) {
    const distance = prev ? canonical(new Big(r.odometer).minus(prev.odometer)) : null;
    let consumption: string | null = null;
    let over: string | null = null;
    const p = ref.get(r.energy) ?? null;
    if (r.missed_previous) {
      ref.set(r.energy, r.is_full ? { odometer: r.odometer, acc: new Big(0) } : null);
    } else if (p) {
      const acc = p.acc.plus(r.liters);
      if (r.is_full) {
        const d = new Big(r.odometer).minus(p.odometer);
        if (d.gt(0)) {
          consumption = canonical(acc.div(d).times(100).round(10, Big.roundHalfUp));
          over = canonical(d);
        }
        ref.set(r.energy, { odometer: r.odometer, acc: new Big(0) });
      } else {
        ref.set(r.energy, { odometer: p.odometer, acc });
      }
    } else if (r.is_full) {
      ref.set(r.energy, { odometer: r.odometer, acc: new Big(0) });
    }
    out.set(r.id, { distance, consumption, over });
    prev = r;
  }
  return out;
}
