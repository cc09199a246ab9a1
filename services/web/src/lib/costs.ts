// The pure logic of costs: how a reminder's due state reads ("Oil change
// due in 800 km, about 3 weeks"), how long a span of days is said, and which
// files may wait in the outbox (the bound on queued attachments).
import Big from 'big.js';
import { tk, type CostsKey } from '../i18n/costs';

/** The fields of a reminder (api/costs.ts Reminder) that say how it is due, computed by the service on each read. */
export interface DueFields {
  title: string;
  due_in_km: number | null;
  due_in_days: number | null;
  estimated_due_date: string | null;
  status: 'ok' | 'soon' | 'overdue';
}

const DAY = 86_400_000;

/** A span of time as it is said: the unit and the whole number of it. */
export interface Span {
  value: number;
  unit: 'day' | 'week' | 'month' | 'year';
}

/**
 * spanOf says a number of days the way a person would: up to 13 days in
 * days, up to 8 weeks in weeks, up to 23 months in months, then years; each
 * rounded half-up to a whole one (a month is 30.44 days, a year 365.25), and
 * never 0 of a unit above days (10 days is "10 days", 14 is "2 weeks").
 */
export function spanOf(days: number): Span {
  const d = Math.abs(Math.round(days));
  if (d < 14) return { value: d, unit: 'day' };
  if (d < 60) return { value: Math.round(d / 7), unit: 'week' };
  const months = Math.round(d / 30.44);
  if (months < 24) return { value: months, unit: 'month' };
  return { value: Math.round(d / 365.25), unit: 'year' };
}

/** fmtSpan: a span in locale (the app's language: lib/format.ts wordsLocale) with Intl's own unit words and plurals ("3 weeks", "3周"). */
export function fmtSpan(s: Span, locale: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'unit', unit: s.unit, unitDisplay: 'long' }).format(s.value);
  } catch {
    return `${s.value} ${s.unit}`;
  }
}

/** daysUntil: whole days from now to an instant (negative when past), rounded to the nearest day. */
export function daysUntil(iso: string, now: number): number {
  return Math.round((Date.parse(iso) - now) / DAY);
}

export interface DueFormat {
  /** A distance in km as the owner reads it ("800 km", "497 mi"). */
  distance: (km: number) => string;
  /** A number of days as said ("3 weeks"). */
  span: (days: number) => string;
}

/**
 * dueState: how a reminder is due, from the fields the service computes on
 * each read, without its title ("due in 800 km, about 3 weeks"). A distance
 * left with an estimated date adds "about <time>"; a reminder by both
 * distance and time names both; overdue names what is past (the distance,
 * the time, or both).
 */
export function dueState(r: Omit<DueFields, 'status' | 'title'>, now: number, f: DueFormat): string {
  const km = r.due_in_km;
  const days = r.due_in_days;
  const kmOver = km !== null && km < 0;
  const daysOver = days !== null && days < 0;
  if (kmOver || daysOver) {
    const key: CostsKey = kmOver && daysOver ? 'rem.overdueBoth' : kmOver ? 'rem.overdueKm' : 'rem.overdueTime';
    return tk(key, { distance: kmOver ? f.distance(-km) : '', time: daysOver ? f.span(-days) : '' });
  }
  if (km === 0 || days === 0) return tk('rem.dueNow');
  if (km !== null && days !== null) return tk('rem.dueBoth', { distance: f.distance(km), time: f.span(days) });
  if (km !== null) {
    const est = r.estimated_due_date ? daysUntil(r.estimated_due_date, now) : null;
    return est !== null && est > 0
      ? tk('rem.dueKmAbout', { distance: f.distance(km), time: f.span(est) })
      : tk('rem.dueKm', { distance: f.distance(km) });
  }
  if (days !== null) return tk('rem.dueTime', { time: f.span(days) });
  return tk('rem.noDue');
}

/** duePhrase: the reminder's title and how it is due ("Oil change due in 800 km, about 3 weeks"). */
export function duePhrase(r: Omit<DueFields, 'status'>, now: number, f: DueFormat): string {
  return tk('rem.titled', { title: r.title, due: dueState(r, now, f) });
}

/** capitalized: s with its first letter in upper case (a phrase that starts a line; nothing changes in Chinese). */
export function capitalized(s: string, locale: string): string {
  return s.charAt(0).toLocaleUpperCase(locale) + s.slice(1);
}

/** The order reminders are listed in: overdue first, then soon, then the rest; within each, the nearest first. */
export function byUrgency<R extends DueFields>(list: R[], now: number): R[] {
  const rank = { overdue: 0, soon: 1, ok: 2 } as const;
  const when = (r: R) => {
    const d = [r.due_in_days, r.estimated_due_date ? daysUntil(r.estimated_due_date, now) : null].filter((x): x is number => x !== null);
    return d.length > 0 ? Math.min(...d) : Number.POSITIVE_INFINITY;
  };
  return [...list].sort((a, b) => rank[a.status] - rank[b.status] || when(a) - when(b) || (a.due_in_km ?? Infinity) - (b.due_in_km ?? Infinity) || a.title.localeCompare(b.title));
}

// The bound on attachments waiting in the outbox (proto-docs/web-decisions.md, "Receipts offline").

/** The service's limit on one file. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** The service's limit of files on one record. */
export const MAX_FILES_PER_RECORD = 10;
/** What the files waiting on this device may take together. */
export const MAX_QUEUED_BYTES = 50 * 1024 * 1024;

export interface FileLike {
  name: string;
  type: string;
  size: number;
}

export type FileRefusal =
  | { reason: 'type'; file: FileLike }
  | { reason: 'size'; file: FileLike }
  | { reason: 'count'; file: FileLike }
  | { reason: 'queue'; file: FileLike; queued: number };

/** acceptable: the types the service takes (read again by it from the content); an empty type (HEIC on some browsers) is left to the service. */
export function acceptable(type: string): boolean {
  return type === '' || type.startsWith('image/') || type === 'application/pdf';
}

/**
 * admitFiles decides, in order, which of the chosen files may be queued:
 * not a photo or a PDF, over 10 MB, beyond the record's 10 files (present
 * counts those it has), or over what the queue keeps (queued: the bytes
 * waiting now; each admitted file counts for the next) is refused, with the
 * reason; the others are admitted.
 */
export function admitFiles(files: FileLike[], present: number, queued: number): { admitted: FileLike[]; refused: FileRefusal[] } {
  const admitted: FileLike[] = [];
  const refused: FileRefusal[] = [];
  let bytes = queued;
  for (const file of files) {
    if (!acceptable(file.type)) refused.push({ reason: 'type', file });
    else if (file.size > MAX_FILE_BYTES) refused.push({ reason: 'size', file });
    else if (present + admitted.length >= MAX_FILES_PER_RECORD) refused.push({ reason: 'count', file });
    else if (bytes + file.size > MAX_QUEUED_BYTES) refused.push({ reason: 'queue', file, queued: bytes });
    else {
      admitted.push(file);
      bytes += file.size;
    }
  }
  return { admitted, refused };
}

// The whole cost on Statistics.

/** The categories an expense may have (api/costs.ts CATEGORIES, which lib may not import). */
const KNOWN = new Set(['service', 'repair', 'tyres', 'inspection', 'insurance', 'tax', 'parking', 'toll', 'wash', 'fine', 'accessory', 'other']);

/** byCategory: the expenses' money per category, largest first, none of 0, whichever shape the service sends (a map or a list); an unknown category counts as other. */
export function byCategory(b: Record<string, number> | { category: string; amount: number }[] | undefined): { category: string; amount: string }[] {
  if (!b) return [];
  const sums = new Map<string, Big>();
  const pairs: [string, number][] = Array.isArray(b) ? b.map((x) => [x.category, x.amount]) : Object.entries(b);
  for (const [c, amount] of pairs) {
    const category = KNOWN.has(c) ? c : 'other';
    sums.set(category, (sums.get(category) ?? new Big(0)).plus(String(amount)));
  }
  return [...sums.entries()].filter(([, v]) => !v.eq(0)).sort(([, x], [, y]) => y.cmp(x)).map(([category, v]) => ({ category, amount: v.toString() }));
}

/**
 * fuelAndOther: per month (oldest first), the fuel of every energy summed in
 * decimal, and the month's other costs: each energy's series repeats them,
 * so they are read once per month, never summed across energies.
 */
export function fuelAndOther(series: { month: string; amount: number; expenses_amount?: number }[][]): { month: string; fuel: string; other: string }[] {
  const months = new Map<string, { fuel: Big; other: string | null }>();
  for (const list of series) {
    for (const m of list) {
      const row = months.get(m.month) ?? { fuel: new Big(0), other: null };
      row.fuel = row.fuel.plus(String(m.amount));
      if (row.other === null && m.expenses_amount !== undefined) row.other = String(m.expenses_amount);
      months.set(m.month, row);
    }
  }
  return [...months.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([month, r]) => ({ month, fuel: r.fuel.toString(), other: r.other ?? '0' }));
}

/** The figures a vehicle's whole cost per km is made of (fields of its statistics). */
export interface CostBasis {
  by_energy: { weighted_cost_per_km?: number; cost_per_km: number; consumption_samples: number }[];
  combined_cost_per_km?: number;
  expenses_amount?: number;
  total_distance: number;
}

/**
 * wholeCostPerKm: what a km costs with everything: the fuel cost per km
 * (the full-to-full figure Statistics shows for the fuel: the money of the
 * fills after a full one over the km they were driven; every energy's added
 * up for a vehicle with several) plus the other costs over the distance
 * driven, as decimal strings at 4 places. The service's total_cost_per_km
 * divides all the fuel money by the distance instead, the first fill's too,
 * whose fuel was driven before the first reading: with no other cost it
 * still read more than the fuel alone (0,1614 € beside 0,1206 €). null
 * while the fuel cost per km is not known (two full fills are needed).
 */
export function wholeCostPerKm(s: CostBasis): { fuel: string; other: string; total: string } | null {
  const one = s.by_energy.length === 1 ? s.by_energy[0]! : null;
  const fuel = one ? (one.consumption_samples > 0 ? (one.weighted_cost_per_km ?? one.cost_per_km) : null) : (s.combined_cost_per_km ?? 0) > 0 ? s.combined_cost_per_km! : null;
  if (fuel === null) return null;
  const expenses = new Big(String(s.expenses_amount ?? 0));
  if (!expenses.eq(0) && !(s.total_distance > 0)) return null;
  const other = expenses.eq(0) ? new Big(0) : expenses.div(String(s.total_distance)).round(4, Big.roundHalfUp);
  const f = new Big(String(fuel));
  return { fuel: f.toFixed(4), other: other.toFixed(4), total: f.plus(other).toFixed(4) };
}
