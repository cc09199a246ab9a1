// Numbers and dates as the owner reads them: the browser's locale and time zone.

const locale = typeof navigator !== 'undefined' ? navigator.language : 'en';

export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function fmtNumber(v: number | string, maxDigits = 2): string {
  const n = typeof v === 'string' ? Number(v) : v;
  return new Intl.NumberFormat(locale, { maximumFractionDigits: maxDigits }).format(n);
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
