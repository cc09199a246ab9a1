// Numbers, money and dates as the owner reads them: Intl in the owner's
// locale (decimal comma where it uses one), amounts in the owner's currency
// as that locale writes it ("$74.66", "74,66 €", "￥75"). Decimal strings are
// given to Intl as strings, which it formats and rounds exactly (no float on
// the way).
import { t } from '../i18n';

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
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

export function fmtDate(iso: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(new Date(iso));
}

/** fmtTime: the time of day, to the minute. */
export function fmtTime(d: Date): string {
  return new Intl.DateTimeFormat(locale, { timeStyle: 'short' }).format(d);
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

/** fmtMonth: a month ("2026-03") as the owner's locale names it: "Mar" (short) or "March 2026". */
export function fmtMonth(month: string, style: 'short' | 'long'): string {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  // The middle of the month in UTC, read in UTC: the same month in every zone.
  const at = new Date(Date.UTC(y, m - 1, 15));
  return new Intl.DateTimeFormat(locale, style === 'short' ? { month: 'short', timeZone: 'UTC' } : { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(at);
}

/** numberLocale: the locale numbers are written in, and read in when typed (lib/numbers.ts). */
export function numberLocale(): string {
  return locale;
}
