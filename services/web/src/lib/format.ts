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

/** fmtNumber: v with at most maxDigits decimals (and at least minDigits). */
export function fmtNumber(v: number | string, maxDigits = 2, minDigits = 0): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: maxDigits, minimumFractionDigits: Math.min(minDigits, maxDigits) }).format(exact(v));
}

/**
 * fmtMoney: an amount in the owner's currency, as the owner's locale writes
 * it. A total (maxDigits omitted) has the currency's own fraction digits
 * (2 for USD and EUR, 0 for JPY); a price (per unit, per distance) passes its
 * display places as maxDigits and shows at least the currency's digits
 * ("$1.80", "$1.799", "$1.7995"). Rounding is Intl's half-expand on the
 * decimal digits of v (a number from the API is given as its own shortest
 * decimal string). A currency code Intl refuses shows as the plain number and
 * the code, instead of breaking the page.
 */
export function fmtMoney(v: number | string, maxDigits?: number): string {
  const digits = typeof v === 'number' ? String(v) : v;
  try {
    const own = new Intl.NumberFormat(locale, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    const max = maxDigits === undefined ? own : Math.max(maxDigits, own);
    return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: own, maximumFractionDigits: max }).format(exact(digits));
  } catch {
    return `${fmtNumber(digits, maxDigits ?? 2)} ${currency}`;
  }
}

/** fmtPrice: a price per unit with its unit ("$1.799/L"; the catalogue's pattern). */
export function fmtPrice(v: number | string, unit: string, maxDigits: number): string {
  return t('unit.priceEach', { price: fmtMoney(v, maxDigits), unit });
}

/** currencyLabel: how the currency is written beside a field ("US$", "€", "¥"). */
export function currencyLabel(): string {
  try {
    const part = new Intl.NumberFormat(locale, { style: 'currency', currency }).formatToParts(0).find((p) => p.type === 'currency');
    return part?.value ?? currency;
  } catch {
    return currency;
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
