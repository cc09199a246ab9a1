// Numbers and dates as the owner reads them: Intl in the owner's locale
// (decimal comma where it uses one), and the sign of the owner's currency
// beside the amount fields. Decimal strings are given to Intl as strings,
// which it formats exactly (no float on the way).

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
