// A maintenance plan proposed from a manual (docqa's
// POST /api/documents/:md5/maintenance-schedule) turned into reminders
// (fuel's POST /api/reminders): what each proposed item becomes.

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

/** alreadyReminded: whether the vehicle has a reminder of that title already (case and spacing aside). */
export function alreadyReminded(r: Pick<ProposedReminder, 'title'>, existing: readonly { title: string }[]): boolean {
  const key = (s: string) => s.trim().replace(/\s+/g, ' ').toLocaleLowerCase();
  return existing.some((e) => key(e.title) === key(r.title));
}
