// Dates and times as the owner types them (web-decisions.md, "Dates as the
// owner types them"): written and read in the format locale's numeric order
// and clock, as lib/numbers.ts does for numbers. de-DE writes 06.12.2026 and
// 17:10, en-US 12/06/2026 and 5:10 PM, en-GB 06/12/2026, zh-CN 2026/12/06.
// What is typed is read in that order only, never guessed: a date that is
// not one ("31.02.2026"), a two-digit year (which century?) or, on a
// twelve-hour clock, "5:10" without AM or PM is refused, and the message
// shows how to write one. A year first ("2026-12-06") is read as year,
// month, day in every locale: no locale writes a year first otherwise.
// The separators may be any (a phone's number pad has only one or two).
//
// Values are the datetime-local forms the pages keep: "YYYY-MM-DD" and
// "HH:MM" (lib/format.ts fromLocalInput reads them in the owner's zone).
import { numberLocale } from './format';

type Part = 'y' | 'm' | 'd';

interface DateShape {
  order: Part[];
  /** The separator the locale writes between the parts ("." "/" "-"). */
  sep: string;
}

const shapes = new Map<string, DateShape>();

/**
 * shapeOf: how locale writes a date in digits, from Intl. Day and month are
 * written with two digits (06.12.2026), which every locale reads.
 */
function shapeOf(locale: string): DateShape {
  const hit = shapes.get(locale);
  if (hit) return hit;
  const parts = new Intl.DateTimeFormat(locale, { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: 'UTC' })
    .formatToParts(new Date(Date.UTC(2026, 0, 5)));
  const order: Part[] = [];
  let sep = '/';
  for (const p of parts) {
    if (p.type === 'year') order.push('y');
    else if (p.type === 'month') order.push('m');
    else if (p.type === 'day') order.push('d');
    else if (p.type === 'literal' && order.length === 1) sep = p.value.trim() || '/';
  }
  const shape: DateShape = { order: order.length === 3 ? order : ['y', 'm', 'd'], sep };
  shapes.set(locale, shape);
  return shape;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** fmtDateInput: the value "YYYY-MM-DD" as locale writes it in digits ("06.12.2026"); "" when empty or not a date value. */
export function fmtDateInput(value: string, locale: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return '';
  const [, y = '', mo = '', d = ''] = m;
  const { order, sep } = shapeOf(locale);
  const of: Record<Part, string> = { y, m: mo, d };
  return order.map((p) => of[p]).join(sep);
}

function validDate(y: number, m: number, d: number): boolean {
  if (y < 1900 || y > 2999 || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** parseDateInput reads a date typed in locale's order as "YYYY-MM-DD"; null when it is not one. */
export function parseDateInput(text: string, locale: string): string | null {
  // Chinese and Japanese write 2026年12月6日: the characters are separators too.
  const groups = text.trim().split(/[^0-9]+/).filter((g) => g !== '');
  if (groups.length !== 3 || groups.some((g) => g.length > 4)) return null;
  const order: Part[] = groups[0]?.length === 4 ? ['y', 'm', 'd'] : shapeOf(locale).order;
  const at: Record<Part, string> = { y: '', m: '', d: '' };
  order.forEach((p, i) => (at[p] = groups[i] ?? ''));
  if (at.y.length !== 4 || at.m.length > 2 || at.d.length > 2) return null;
  const [y, m, d] = [Number(at.y), Number(at.m), Number(at.d)];
  return validDate(y, m, d) ? `${at.y}-${pad(m)}-${pad(d)}` : null;
}

interface Clock {
  hour12: boolean;
  /** The locale's words for before and after noon ("AM", "PM"; "上午", "下午"). */
  am: string;
  pm: string;
  /** Whether the day period comes before the hour (上午5:10). */
  periodFirst: boolean;
}

const clocks = new Map<string, Clock>();

function clockOf(locale: string): Clock {
  const hit = clocks.get(locale);
  if (hit) return hit;
  const f = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });
  const period = (h: number) => f.formatToParts(new Date(Date.UTC(2026, 0, 5, h, 10))).find((p) => p.type === 'dayPeriod')?.value ?? '';
  const parts = f.formatToParts(new Date(Date.UTC(2026, 0, 5, 17, 10)));
  const hour12 = parts.some((p) => p.type === 'dayPeriod');
  const clock: Clock = {
    hour12, am: period(5), pm: period(17),
    periodFirst: hour12 && parts.findIndex((p) => p.type === 'dayPeriod') < parts.findIndex((p) => p.type === 'hour'),
  };
  clocks.set(locale, clock);
  return clock;
}

/** fmtTimeInput: the value "HH:MM" as locale writes it ("17:10", "5:10 PM"); "" when not a time value. */
export function fmtTimeInput(value: string, locale: string): string {
  const m = /^(\d{2}):(\d{2})$/.exec(value);
  if (!m) return '';
  const [, hh = '', mm = ''] = m;
  const c = clockOf(locale);
  const h = Number(hh);
  if (!c.hour12) return `${hh}:${mm}`;
  const word = h < 12 ? c.am : c.pm;
  const time = `${h % 12 === 0 ? 12 : h % 12}:${mm}`;
  return c.periodFirst ? `${word}${time}` : `${time} ${word}`;
}

/** The ways a period may be typed besides the locale's own: am, a.m., AM, pm … */
const AM = /^a\.?\s*m\.?$/i;
const PM = /^p\.?\s*m\.?$/i;

/**
 * parseTimeInput reads a time typed as locale writes one as "HH:MM"; null
 * when it is not one. A 24-hour time ("17:10", "08:10") is read on any
 * clock; on a twelve-hour clock "8:10" or "10:10" needs its AM or PM.
 */
export function parseTimeInput(text: string, locale: string): string | null {
  const c = clockOf(locale);
  // "17:10 Uhr", as German writes it on a sign.
  const t = text.trim().replace(/\s*uhr$/i, '');
  const m = /^(\D*?)\s*(\d{1,2})\s*[:.,h]\s*(\d{2})\s*(\D*)$/.exec(t);
  if (!m) return null;
  const [, before = '', hh = '', mm = '', after = ''] = m;
  if (before.trim() && after.trim()) return null;
  const word = (before || after).trim();
  let h = Number(hh);
  const min = Number(mm);
  if (min > 59) return null;
  if (word === '') {
    if (h > 23) return null;
    // "08:10" is how a 24-hour clock writes ten past eight in the morning; "8:10" or "10:10" could be either.
    if (c.hour12 && h >= 1 && h <= 12 && !(hh.length === 2 && hh.startsWith('0'))) return null;
    return `${pad(h)}:${pad(min)}`;
  }
  const pm = word === c.pm || PM.test(word);
  const am = word === c.am || AM.test(word);
  if ((!pm && !am) || h < 1 || h > 12) return null;
  if (pm && h < 12) h += 12;
  if (am && h === 12) h = 0;
  return `${pad(h)}:${pad(min)}`;
}

/**
 * datePattern: how locale orders a date, in the app language's letters for
 * its parts (words: { y: 'JJJJ', m: 'MM', d: 'TT' } give "TT.MM.JJJJ" in de-DE).
 */
export function datePattern(locale: string, words: Record<Part, string>): string {
  const { order, sep } = shapeOf(locale);
  return order.map((p) => words[p]).join(sep);
}

/** A date and time for the examples in messages: 6 December 2026, 17:10. */
const EXAMPLE = { date: '2026-12-06', time: '17:10' };

/** dateExample: how locale writes a date ("06.12.2026"), for a message that says how to write one. */
export function dateExample(locale: string): string {
  return fmtDateInput(EXAMPLE.date, locale);
}

/** timeExample: how locale writes a time ("17:10", "5:10 PM"). */
export function timeExample(locale: string): string {
  return fmtTimeInput(EXAMPLE.time, locale);
}

/** writeLike: the examples for the owner's format, as a message's {date} and {time}. */
export function writeLike(): { date: string; time: string } {
  return { date: dateExample(numberLocale()), time: timeExample(numberLocale()) };
}
