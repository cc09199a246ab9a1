// How a reminder's state shows: its status badge and its phrase in the
// owner's units and language. Shared by the Costs page and the start page.
import type { Reminder } from '../api/costs';
import { capitalized, duePhrase, dueState, fmtSpan, spanOf, type DueFormat } from '../lib/costs';
import { prefs as activePrefs, units as activeUnits } from '../lib/preferences';
import { fmtDistance } from '../lib/labels';
import type { Units } from '../lib/units';
import { tk } from '../i18n/costs';

/** phraseOf: a reminder's due state in the owner's units and language. */
export function phraseOf(r: Reminder, u: Units = activeUnits()): string {
  return duePhrase(r, Date.now(), format(u));
}

/** stateOf: how it is due, without the title, to start a line under it ("Due in 800 km, about 3 weeks"). */
export function stateOf(r: Reminder, u: Units = activeUnits()): string {
  return capitalized(dueState(r, Date.now(), format(u)), activePrefs().locale);
}

function format(u: Units): DueFormat {
  const locale = activePrefs().locale;
  return { distance: (km) => fmtDistance(km, u), span: (d) => fmtSpan(spanOf(d), locale) };
}

/** StatusBadge: ok, soon or overdue, in words (the colour only repeats them). */
export function StatusBadge({ status }: { status: Reminder['status'] }) {
  return <span class={`status-badge ${status}`}>{tk(`rem.status.${status}`)}</span>;
}

