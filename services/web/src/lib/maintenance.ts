// A maintenance plan proposed from a manual (docqa's
// POST /api/documents/:md5/maintenance-schedule) turned into reminders
// (fuel's POST /api/reminders): what each proposed item becomes, whether it
// applies to the vehicle, and which items are ticked when the plan opens.
import type { FuelType } from './energy';

/** A proposed item as docqa answers it. */
export interface MaintenanceItem {
  title: string;
  every_km: number | null;
  every_miles: number | null;
  every_months: number | null;
  conditions: string;
  page: number;
  pageLabel?: string;
  quote: string;
}

/** The body of a new reminder (fuel's ReminderCreate) made from an item. */
export interface ProposedReminder {
  vehicle_id: number;
  title: string;
  category: 'service' | 'tyres' | 'inspection';
  match: string;
  every_km: number | null;
  every_months: number | null;
  notes: string;
}

export const KM_PER_MILE = 1.609344;
const MAX_TITLE = 200;
const MAX_NOTES = 1000;

/** clip shortens s to at most max characters (code points), ending with an ellipsis when cut. */
export function clip(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : chars.slice(0, max - 1).join('') + '…';
}

const TYRES = /\b(tyres?|tires?|reifen)\b|轮胎|タイヤ/i;
const INSPECTION = /\b(inspections?|inspektion|hauptuntersuchung|mot)\b|检查|年检|点検/i;

/** categoryOf: the expense category whose expenses are the item's job done. */
export function categoryOf(title: string): ProposedReminder['category'] {
  if (TYRES.test(title)) return 'tyres';
  if (INSPECTION.test(title)) return 'inspection';
  return 'service';
}

/**
 * reminderOf: the reminder an item becomes. The distance is the manual's km,
 * else its miles in km (rounded to the km); the conditions ("under severe
 * conditions") go into the title, since two items of one task differ by
 * them; match is the manual's name of the task, so that only an expense of
 * that name counts as the job done (an empty match would let every service
 * expense reset every service reminder); the notes cite the page.
 */
export function reminderOf(item: MaintenanceItem, vehicleId: number, manual: string): ProposedReminder {
  const title = item.title.trim();
  const conditions = item.conditions.trim();
  const km = item.every_km ?? (item.every_miles !== null ? Math.round(item.every_miles * KM_PER_MILE) : null);
  return {
    vehicle_id: vehicleId,
    title: clip(conditions ? `${title} (${conditions})` : title, MAX_TITLE),
    category: categoryOf(title),
    match: clip(title, MAX_TITLE),
    every_km: km,
    every_months: item.every_months,
    notes: clip(`${manual}, p. ${item.pageLabel ?? item.page}: “${item.quote}”`, MAX_NOTES),
  };
}

const titleKey = (s: string) => s.trim().replace(/\s+/g, ' ').toLocaleLowerCase();

/** What a job needs of the car: an engine burning fuel, spark ignition (petrol, gas) or a diesel engine. */
type Needs = 'engine' | 'spark' | 'diesel';

// The jobs a schedule names, each by its words in English (whole words),
// German (stems, wherever in a compound) and Chinese, and what it needs of
// the car (null: every car has it): "Engine oil and oil filter" and the
// owner's "Oil change" are one job, which an electric car has not. First
// match wins, so a cabin filter is not the engine's air filter, nor AdBlue
// ("diesel exhaust fluid") the exhaust.
const JOBS: readonly [string, RegExp, Needs | null][] = [
  ['cabin-filter', /cabin|pollen|innenraum|空调滤/iu, null],
  ['engine-oil', /(?<!\p{L})(engine oil|motor oil|oil change|oil and filter|oil filter|oil service)(?!\p{L})|motoröl|motorenöl|ölwechsel|ölfilter|ölservice|机油|机滤/iu, 'engine'],
  ['spark-plugs', /(?<!\p{L})spark[ -]?plugs?(?!\p{L})|zündkerze|火花塞/iu, 'spark'],
  ['glow-plugs', /(?<!\p{L})glow[ -]?plugs?(?!\p{L})|glühkerze|预热塞/iu, 'diesel'],
  ['adblue', /(?<!\p{L})(adblue|def|diesel exhaust fluid|urea)(?!\p{L})|harnstoff|尿素/iu, 'diesel'],
  ['particulate-filter', /(?<!\p{L})(diesel particulate filter|dpf)(?!\p{L})|partikelfilter|颗粒捕集器/iu, 'diesel'],
  ['brake-fluid', /(?<!\p{L})brake fluid(?!\p{L})|bremsflüssigkeit|制动液|刹车油/iu, null],
  ['coolant', /(?<!\p{L})(coolant|antifreeze)(?!\p{L})|kühlmittel|kühlflüssigkeit|冷却液|防冻液/iu, null],
  ['timing-belt', /(?<!\p{L})timing belt(?!\p{L})|zahnriemen|正时皮带/iu, 'engine'],
  ['air-filter', /(?<!\p{L})air filter(?!\p{L})|luftfilter|空气滤清器|空滤/iu, 'engine'],
  ['fuel-filter', /(?<!\p{L})fuel filter(?!\p{L})|kraftstofffilter|dieselfilter|燃油滤清器|汽油滤清器|柴油滤清器/iu, 'engine'],
  ['exhaust', /(?<!\p{L})exhaust(?!\p{L})|auspuff|排气/iu, 'engine'],
  ['transmission-fluid', /(?<!\p{L})(transmission|gearbox) (fluid|oil)(?!\p{L})|getriebeöl|变速箱油/iu, null],
  ['wiper-blades', /(?<!\p{L})wiper blades?(?!\p{L})|wischerblätter|wischblätter|雨刮/iu, null],
  ['tyre-rotation', /(?<!\p{L})(tyre|tire) rotation(?!\p{L})|(?<!\p{L})rotate (the )?(tyres|tires)(?!\p{L})|reifen tauschen|轮胎换位/iu, null],
];

const jobEntry = (title: string) => JOBS.find(([, re]) => re.test(title));

/** jobOf: the job a title names (JOBS), null when none is known. */
export function jobOf(title: string): string | null {
  return jobEntry(title)?.[0] ?? null;
}

/**
 * plannedAs: the vehicle's reminder for the item's job: one of the same
 * title (case and spacing aside), else one of the same job ("Oil change"
 * for "Engine oil and oil filter"); null when it has none. Conditions tell two
 * items of one job apart ("… (under severe conditions)"), so a job's
 * reminder answers for the item without them only.
 */
export function plannedAs<R extends { title: string }>(r: Pick<ProposedReminder, 'title'>, existing: readonly R[], conditions = ''): R | null {
  const same = existing.find((e) => titleKey(e.title) === titleKey(r.title));
  if (same) return same;
  const job = jobOf(r.title);
  if (job === null || conditions.trim() !== '') return null;
  return existing.find((e) => jobOf(e.title) === job) ?? null;
}

/** What each kind of vehicle has (a hybrid's engine is a petrol one, as nearly all are). */
const HAS: Record<FuelType, readonly Needs[]> = {
  gasoline: ['engine', 'spark'],
  diesel: ['engine', 'diesel'],
  hybrid: ['engine', 'spark'],
  plug_in_hybrid: ['engine', 'spark'],
  electric: [],
};

/**
 * applies: whether the job titled title can be done on a vehicle of that
 * fuel type (what its job needs, JOBS): no spark plugs on a diesel, no engine
 * oil on an electric car, no AdBlue on a petrol car. A title of no known job
 * applies (a wrong "no" would hide a job the car has).
 */
export function applies(title: string, fuel: FuelType): boolean {
  const need = jobEntry(title)?.[2] ?? null;
  return need === null || HAS[fuel].includes(need);
}

/** The owner's own ticks of one plan (one vehicle, one manual), by item title: true ticked, false unticked. */
export type Ticks = Record<string, boolean>;

/**
 * initialTicks: the items ticked when the plan opens: the owner's own choice
 * where there is one, else those that apply and that the vehicle has no
 * reminder of. An item the vehicle has a reminder for (plannedAs) is never
 * ticked: added it would be a second reminder for one job.
 */
export function initialTicks(
  proposed: readonly { item: Pick<MaintenanceItem, 'conditions'>; reminder: Pick<ProposedReminder, 'title'> }[],
  existing: readonly { title: string }[], fuel: FuelType, own: Ticks,
): Set<number> {
  const out = new Set<number>();
  proposed.forEach(({ item, reminder }, i) => {
    if (plannedAs(reminder, existing, item.conditions) !== null) return;
    if (own[reminder.title] ?? applies(reminder.title, fuel)) out.add(i);
  });
  return out;
}

const ticksKey = (vehicleId: number, md5: string) => `carhub-plan-ticks:${vehicleId}:${md5}`;

/** keptTicks: the owner's ticks of a plan, kept on this device; {} when none (or no storage). */
export function keptTicks(vehicleId: number, md5: string): Ticks {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(ticksKey(vehicleId, md5)) ?? '{}');
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Ticks) : {};
  } catch {
    return {};
  }
}

/** keepTicks keeps the owner's ticks of a plan on this device (a private window may refuse: then they last the visit). */
export function keepTicks(vehicleId: number, md5: string, ticks: Ticks): void {
  try {
    localStorage.setItem(ticksKey(vehicleId, md5), JSON.stringify(ticks));
  } catch {
    // Storage full or refused.
  }
}

// ---- Where an item's first due point counts from ----

/** When a job was done: an instant (RFC 3339) and an odometer reading in km (a decimal string); either unknown (null). */
export interface Done {
  time: string | null;
  odometer: string | null;
}

/** An expense as far as the due point needs it (fuel's Expense). */
export interface DoneExpense {
  time: string;
  odometer: number | null;
  category: string;
  title: string;
}

/** What the plan knows of the vehicle. */
export interface CarFacts {
  /** The car's start, at 0 km: the instant of its first record (refuel or expense), else of its creation here. */
  start: string;
  /** Its odometer now, km. */
  odometer: number;
  /** Its expenses, in any order: the newest matching one counts as the job done. */
  expenses: readonly DoneExpense[];
  /** Its distance a day (distancePerDay), null when unknown. */
  perDay: number | null;
  /** Today in the owner's zone, "YYYY-MM-DD". */
  today: string;
  /** The owner's time zone, in which an instant is a day. */
  zone: string;
}

/** What a due point counts from, as the words of the plan name it. */
export type DueBase =
  | { from: 'start' }
  | { from: 'own'; odometer: boolean; time: boolean }
  | { from: 'expense'; expense: DoneExpense };

/** FirstDue: an item's first due point as fuel will compute it for the reminder created with lastDone. */
export interface FirstDue {
  /** The reminder's last_done: the owner's, its missing parts the car's start; time null for a reading alone without months. */
  lastDone: { time: string | null; odometer: string };
  base: DueBase;
  /** By distance: the due reading, the km left (negative once passed), the year it is reached at perDay (null: unknown). */
  km: { due: number; left: number; year: number | null } | null;
  /** By months: the due day "YYYY-MM-DD", and whether it is today or past. */
  date: { due: string; passed: boolean } | null;
}

/** The estimate's least span of readings, and its horizon, as fuel's (reminders.go MinEstimateSpan, maxEstimateDays). */
const MIN_SPAN_DAYS = 7;
const MAX_ESTIMATE_DAYS = 36_500;
const DAY_MS = 86_400_000;

/**
 * distancePerDay: a vehicle's km a day from its odometer readings, as fuel's
 * DistancePerDay: between the earliest and the latest, the distance over the
 * days. null with fewer than two readings, less than a week between them,
 * or an odometer that did not grow.
 */
export function distancePerDay(readings: readonly { time: string; odometer: number }[]): number | null {
  if (readings.length < 2) return null;
  const by = [...readings].sort((a, b) => Date.parse(a.time) - Date.parse(b.time) || a.odometer - b.odometer);
  const first = by[0]!;
  const last = by[by.length - 1]!;
  const days = (Date.parse(last.time) - Date.parse(first.time)) / DAY_MS;
  if (days < MIN_SPAN_DAYS || last.odometer <= first.odometer) return null;
  return (last.odometer - first.odometer) / days;
}

/** dayIn: the calendar day "YYYY-MM-DD" of an instant in zone. */
export function dayIn(instant: string | Date, zone: string): string {
  const parts = new Intl.DateTimeFormat('en', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(typeof instant === 'string' ? new Date(instant) : instant);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** addMonths: the day n months after day, on the month's last day when it has no such day (fuel's Date.AddMonths). */
export function addMonths(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const first = new Date(Date.UTC(y, m - 1 + n, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return `${first.toISOString().slice(0, 8)}${String(Math.min(d, last)).padStart(2, '0')}`;
}

/** matches: whether an expense is the reminder's job done (fuel's ExpenseMatches: the category, and match within the title). */
const matches = (r: Pick<ProposedReminder, 'category' | 'match'>, e: DoneExpense) =>
  e.category === r.category && (r.match === '' || e.title.toLowerCase().includes(r.match.toLowerCase()));

/** after: whether the expense e was done after d, as fuel's: by time, or by reading when d has no time. */
function after(e: DoneExpense, d: Done): boolean {
  if (d.time === null) return e.odometer !== null && d.odometer !== null && e.odometer > Number(d.odometer);
  return Date.parse(e.time) > Date.parse(d.time);
}

/**
 * firstDue: where the reminder r made from an item is first due, never
 * counted from today. Its last_done is the owner's own (own: either part may
 * be null), each missing part the car's start (0 km; the start's day, for
 * months); without the owner's, the car's start. As fuel does on every read,
 * the newest matching expense replaces it when later. A reading alone of a
 * reminder without months is sent without its day, so that fuel compares an
 * expense by reading, as the owner gave it.
 */
export function firstDue(r: Pick<ProposedReminder, 'category' | 'match' | 'every_km' | 'every_months'>, own: Done | null, car: CarFacts): FirstDue {
  const given = own !== null && (own.time !== null || own.odometer !== null) ? own : null;
  const time = given?.time ?? (given?.odometer != null && r.every_months === null ? null : car.start);
  const lastDone = { time, odometer: given?.odometer ?? '0' };
  const newest = car.expenses.filter((e) => matches(r, e)).reduce<DoneExpense | null>((a, e) => (a === null || Date.parse(e.time) > Date.parse(a.time) ? e : a), null);
  let base: DueBase = given ? { from: 'own', odometer: given.odometer !== null, time: given.time !== null } : { from: 'start' };
  let from: { time: string | null; odometer: number | null } = { time: lastDone.time, odometer: Number(lastDone.odometer) };
  if (newest !== null && after(newest, lastDone)) {
    base = { from: 'expense', expense: newest };
    from = newest;
  }
  let km: FirstDue['km'] = null;
  if (r.every_km !== null && from.odometer !== null) {
    const due = from.odometer + r.every_km;
    const left = due - car.odometer;
    km = { due, left, year: left > 0 ? yearReached(car.today, left, car.perDay) : null };
  }
  let date: FirstDue['date'] = null;
  if (r.every_months !== null && from.time !== null) {
    const due = addMonths(dayIn(from.time, car.zone), r.every_months);
    date = { due, passed: due <= car.today };
  }
  return { lastDone, base, km, date };
}

/** yearReached: the year left km are driven at perDay km a day from today; null when unknown or beyond a century. */
function yearReached(today: string, left: number, perDay: number | null): number | null {
  if (perDay === null || perDay <= 0) return null;
  const days = Math.ceil(left / perDay);
  if (days > MAX_ESTIMATE_DAYS) return null;
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * DAY_MS).getUTCFullYear();
}
