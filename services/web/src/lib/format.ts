// Numbers, money and dates as the owner reads them: Intl in the owner's
// locale (decimal comma where it uses one), amounts in the owner's currency
// as that locale writes it ("$74.66", "74,66 €", "￥75"). Decimal strings are
// given to Intl as strings, which it formats and rounds exactly (no float on
// the way).
//
// Two locales (web-decisions.md, "One language per screen"): numbers and
// amounts are written in the format locale (de-DE: 1.234,5); anything with
// words (month names, durations, currency and language names, lists) is
// said in the app's language, with the format locale's region where Intl
// knows the pair (English in de-DE: en-DE, "6 Dec 2026"), else in the bare
// language. Every Intl call with words goes through wordsLocale().
import { language, t } from '../i18n';

let locale = typeof navigator !== 'undefined' ? navigator.language : 'en';
let currency = 'USD';

/** supported: locale when Intl knows it, else the browser's. */
function supported(l: string): string {
  try {
    return Intl.NumberFormat.supportedLocalesOf([l]).length > 0 ? l : (typeof navigator !== 'undefined' ? navigator.language : 'en');
  } catch {
    return 'en';
  }
}

/** setFormat: the locale and currency of every later format (lib/preferences.ts activate). */
export function setFormat(l: string, c: string): void {
  locale = supported(l);
  currency = c;
}

const wordsCache = new Map<string, string>();

/**
 * wordsLocaleOf: the locale words are said in for the language lang and the
 * format locale l: l itself when it is in lang; else lang with l's region
 * when Intl has data for the pair (en + de-DE: en-DE), else lang alone
 * (zh + de-DE: zh). Intl's resolved locale says which it has.
 */
export function wordsLocaleOf(lang: string, l: string): string {
  const key = `${lang}|${l}`;
  const hit = wordsCache.get(key);
  if (hit) return hit;
  let out = lang;
  try {
    const f = new Intl.Locale(l);
    if (f.language === lang) out = l;
    else if (f.region) out = new Intl.DateTimeFormat(`${lang}-${f.region}`).resolvedOptions().locale;
  } catch {
    // An unknown format locale: the language alone.
  }
  wordsCache.set(key, out);
  return out;
}

/** wordsLocale: the locale of every formatted word (the app's language, the format's region). */
export function wordsLocale(): string {
  return wordsLocaleOf(language(), locale);
}

// Intl formats a decimal string exactly (ECMA-402 "Intl.NumberFormat v3"); the type wants a number.
const exact = (v: number | string) => v as unknown as number;

/** fmtNumber: v with exactly places decimals ("6.70", not "6.7"): one measure, one number of decimals. */
export function fmtNumber(v: number | string, places = 2): string {
  return new Intl.NumberFormat(locale, { minimumFractionDigits: places, maximumFractionDigits: places }).format(exact(v));
}

/** Places beyond the currency's minor units: a price per unit of energy one ($1.799), a cost per distance two ($0.1853). */
export const MONEY_EXTRA = { total: 0, price: 1, costPerDistance: 2 } as const;

/** currencyPlaces: the currency's minor units (2 for USD and EUR, 0 for JPY), as Intl knows them. */
export function currencyPlaces(code: string = currency): number {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * fmtMoney: an amount in the owner's currency, as the owner's locale writes
 * it, with exactly the currency's minor units plus extra decimals: a total
 * "70,00 €" / "$70.00" / "￥70", a price per unit (extra 1) "$1.799", a cost
 * per distance (extra 2) "$0.1853". Rounding is Intl's half-expand on the
 * decimal digits of v (a number from the API is given as its own shortest
 * decimal string), the one rounding a figure gets. A currency code Intl
 * refuses shows as the plain number and the code, instead of breaking the page.
 */
export function fmtMoney(v: number | string, extra: number = MONEY_EXTRA.total, code: string = currency): string {
  const digits = typeof v === 'number' ? String(v) : v;
  const places = currencyPlaces(code) + extra;
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: code, minimumFractionDigits: places, maximumFractionDigits: places }).format(exact(digits));
  } catch {
    return `${fmtNumber(digits, places)} ${code}`;
  }
}

/** homeCurrency: the currency the owner's amounts are in (the preference in force). */
export function homeCurrency(): string {
  return currency;
}

/** fmtPrice: a price per unit with its unit ("$1.799/L"; the catalogue's pattern), in code (default: the owner's currency). */
export function fmtPrice(v: number | string, unit: string, code: string = currency): string {
  return t('unit.priceEach', { price: fmtMoney(v, MONEY_EXTRA.price, code), unit });
}

/** currencyLabel: how the currency is written beside a field ("US$", "€", "¥"). */
export function currencyLabel(code: string = currency): string {
  try {
    const part = new Intl.NumberFormat(locale, { style: 'currency', currency: code }).formatToParts(0).find((p) => p.type === 'currency');
    return part?.value ?? code;
  } catch {
    return code;
  }
}

export function fmtDateTime(iso: string): string {
  return new Intl.DateTimeFormat(wordsLocale(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

export function fmtDate(iso: string): string {
  return new Intl.DateTimeFormat(wordsLocale(), { dateStyle: 'medium' }).format(new Date(iso));
}

/** fmtTime: the time of day, to the minute. */
export function fmtTime(d: Date): string {
  return new Intl.DateTimeFormat(wordsLocale(), { timeStyle: 'short' }).format(d);
}

/** A span of time as it is said: the unit and the whole number of it (lib/costs.ts spanOf). */
export type DurationUnit = 'day' | 'week' | 'month' | 'year';

/** fmtDuration: a span with Intl's own unit words and plurals, in the app's language ("3 weeks", "3 Wochen", "3周"). */
export function fmtDuration(value: number, unit: DurationUnit): string {
  try {
    return new Intl.NumberFormat(wordsLocale(), { style: 'unit', unit, unitDisplay: 'long' }).format(value);
  } catch {
    return `${value} ${unit}`;
  }
}

/** fmtList: items joined as the app's language joins them ("A, B and C", "A, B und C"). */
export function fmtList(items: string[], type: 'conjunction' | 'disjunction' = 'conjunction'): string {
  return new Intl.ListFormat(wordsLocale(), { type }).format(items);
}

/** languageName: a language in the app's language ("German", "Deutsch"), or in its own with self. */
export function languageName(tag: string, self = false): string {
  try {
    return new Intl.DisplayNames([self ? tag : wordsLocale()], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** currencyName: a currency's name in the app's language ("US dollar", "US-Dollar"). */
export function currencyName(code: string): string {
  try {
    return new Intl.DisplayNames([wordsLocale()], { type: 'currency' }).of(code) ?? code;
  } catch {
    return code;
  }
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** localInputValue is the value of a datetime-local input for the instant iso, in the owner's zone. */
export function localInputValue(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** fromLocalInput reads a datetime-local value in the owner's zone as RFC 3339 UTC; null when empty or invalid. */
export function fromLocalInput(v: string): string | null {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${fmtNumber(n / 1024, 1)} KB`;
  return `${fmtNumber(n / 1024 / 1024, 1)} MB`;
}

/** monthOf: the calendar month ("2026-03") of the instant d in the time zone zone (the owner's), as the monthly statistics name it. */
export function monthOf(d: Date, zone: string): string {
  try {
    const parts = new Intl.DateTimeFormat('en', { timeZone: zone, year: 'numeric', month: '2-digit' }).formatToParts(d);
    return `${parts.find((p) => p.type === 'year')!.value}-${parts.find((p) => p.type === 'month')!.value}`;
  } catch {
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}`;
  }
}

/** fmtMonth: a month ("2026-03") as the app's language names it: "Mar" (short) or "March 2026" ("März 2026"). */
export function fmtMonth(month: string, style: 'short' | 'long'): string {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  // The middle of the month in UTC, read in UTC: the same month in every zone.
  const at = new Date(Date.UTC(y, m - 1, 15));
  return new Intl.DateTimeFormat(wordsLocale(), style === 'short' ? { month: 'short', timeZone: 'UTC' } : { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(at);
}

/** numberLocale: the locale numbers are written in, and read in when typed (lib/numbers.ts). */
export function numberLocale(): string {
  return locale;
}
