// How a reminder's state shows: its status badge and its phrase in the
// owner's units and language. Shared by the Costs page and the start page.
import type { Reminder } from '../api/costs';
import { capitalized, duePhrase, dueState, fmtSpan, spanOf, type DueFormat } from '../lib/costs';
import { units as activeUnits } from '../lib/preferences';
import { fmtDistance } from '../lib/labels';
import { wordsLocale } from '../lib/format';
import type { Units } from '../lib/units';
import { tk } from '../i18n/costs';

/** phraseOf: a reminder's due state in the owner's units and language. */
export function phraseOf(r: Reminder, u: Units = activeUnits()): string {
  return duePhrase(r, Date.now(), format(u));
}

/** stateOf: how it is due, without the title, to start a line under it ("Due in 800 km, about 3 weeks"). */
export function stateOf(r: Reminder, u: Units = activeUnits()): string {
  return capitalized(dueState(r, Date.now(), format(u)), wordsLocale());
}

function format(u: Units): DueFormat {
  // Words in the app's language (a German format does not make "2 weeks" German).
  const locale = wordsLocale();
  return { distance: (km) => fmtDistance(km, u), span: (d) => fmtSpan(spanOf(d), locale) };
}

/**
 * saysOverdue: whether the reminder's phrase says it is overdue itself
 * ("overdue by 760 km"): a badge "Overdue" beside it would say it twice.
 * Due today (0 left) is overdue too, but its phrase says "due now".
 */
export function saysOverdue(r: Pick<Reminder, 'due_in_km' | 'due_in_days'>): boolean {
  return (r.due_in_km ?? 0) < 0 || (r.due_in_days ?? 0) < 0;
}

/**
 * DueState: how the reminder is due, once: its status badge and the phrase
 * ("Soon · Due in 800 km"), or, when the phrase says it is overdue, the
 * phrase alone in the badge's colours. titled: the phrase with the title
 * (the start page's list), whose line is marked by its class instead.
 */
export function DueState({ r, titled = false, u = activeUnits() }: { r: Reminder; titled?: boolean; u?: Units }) {
  const text = titled ? phraseOf(r, u) : stateOf(r, u);
  if (saysOverdue(r)) return titled ? <>{text}</> : <span class="status-badge overdue">{text}</span>;
  return <><StatusBadge status={r.status} /> {text}</>;
}

/** StatusBadge: ok, soon or overdue, in words (the colour only repeats them). */
export function StatusBadge({ status }: { status: Reminder['status'] }) {
  return <span class={`status-badge ${status}`}>{tk(`rem.status.${status}`)}</span>;
}

