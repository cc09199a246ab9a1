// Numbers as the owner types them: one rule for every numeric field, read
// with the separators of the owner's number format (the locale in force,
// lib/format.ts numberLocale), which Intl itself tells (no table of ours).
// The locale's decimal separator is the decimal point and its grouping
// separator only ever groups thousands, so "16.480" in de-DE is 16480 and
// "1.5" there is refused, not read as 1,5; a space (plain, no-break or
// narrow no-break) groups in every locale. The one separator a locale gives
// no role (the dot in fr-FR) is read by where it stands, and refused when it
// could be either. The rule and its cases: proto-docs/web-decisions.md,
// "Numbers as the owner types them".
import Big from 'big.js';
import { t } from '../i18n';
import { numberLocale } from './format';

/**
 * What a field holds: a decimal (money, quantities, prices, rates); a
 * reading (an odometer: whole as typed, though the decimals a conversion
 * from miles leaves are kept); a count (months, an interval in km), whole.
 * A reading and a count never take a lone separator in a thousands
 * position for a decimal point.
 */
export type NumberKind = 'decimal' | 'reading' | 'count';

/**
 * Why a text is not a number: empty; not a number at all; written so that it
 * could mean two numbers, or is not how the locale writes one ("1.5" in
 * de-DE, "12,5" in en-US); a fraction where a whole count is asked for.
 */
export type NumberError = 'empty' | 'invalid' | 'ambiguous' | 'fraction';

export type Parsed = { value: string; error?: undefined } | { value?: undefined; error: NumberError };

export interface Separators {
  group: string;
  decimal: string;
}

/** separators: the grouping and decimal separators of locale, as Intl writes 12345.6. */
export function separators(locale: string): Separators {
  const parts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(12345.6);
  return {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
}

// A typed grouping mark, whatever the locale writes: G.
const G = 'G';
const APOSTROPHES = /['\u2019]/gu;

/** canonical writes b without exponent and without trailing zeros (lib/decimal.ts re-exports it). */
export function canonical(b: Big): string {
  const s = b.toFixed();
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** grouped: the integer digits written as locale groups them, with G for each grouping mark ("12G500"). */
function grouped(digits: string, locale: string, group: string): string {
  // 'always' (ECMA-402 2023; the type of lib ES2022 knows only booleans) groups a
  // 4-digit number too: es-ES writes 1234 but a Spaniard may type 1.234.
  const f = new Intl.NumberFormat(locale, { useGrouping: 'always' as unknown as boolean, maximumFractionDigits: 0 });
  return f.format(BigInt(digits)).split(group).join(G).replace(/\s/gu, G);
}

/** groupsRight: whether the integer part ip (digits and G) groups its digits where locale would. */
function groupsRight(ip: string, locale: string, group: string): boolean {
  const digits = ip.split(G).join('');
  return /^\d+$/.test(digits) && grouped(digits, locale, group) === ip;
}

/**
 * parseNumber reads text typed into a field of kind in locale (default: the
 * owner's number format) as a canonical decimal string ("1234.5"), or says
 * why it is not one. Full-width digits and separators (a Chinese input
 * method's) read as their ASCII forms. Nothing negative, no exponent.
 */
export function parseNumber(text: string, kind: NumberKind, locale: string = numberLocale()): Parsed {
  const { group, decimal } = separators(locale);
  const groupMark = group.normalize('NFKC');
  // NFKC: full-width digits and punctuation, and the no-break spaces (U+00A0, U+202F) become ASCII.
  let s = text.normalize('NFKC').trim();
  if (s === '') return { error: 'empty' };
  s = s.replace(/\s/gu, G);
  if (/^['\u2019]$/u.test(groupMark)) s = s.replace(APOSTROPHES, G);
  else if (groupMark === '.' || groupMark === ',') s = s.split(groupMark).join(G);
  if (!/^[\d.,G]+$/.test(s) || s.includes(G + G) || s.startsWith(G) || s.endsWith(G)) return { error: 'invalid' };

  // The separator the locale gives no role ('.' in fr-FR, ',' in de-CH), if typed.
  const foreign = ['.', ','].find((c) => c !== decimal && c !== groupMark && s.includes(c));
  if (foreign !== undefined) {
    const count = s.split(foreign).length - 1;
    const asGroup = s.split(foreign).join(G);
    if (s.includes(decimal) || count > 1) {
      s = asGroup; // beside a decimal point, or more than once: it groups.
    } else if (groupsRight(asGroup.split(decimal)[0]!, locale, group)) {
      // "1.234" in fr-FR: 1234 or 1,234. A count or a reading is whole; a decimal field cannot tell.
      if (kind === 'decimal') return { error: 'ambiguous' };
      s = asGroup;
    } else {
      s = s.replace(foreign, decimal); // "12.5" in fr-FR: only a decimal point stands there.
    }
  }

  const [ip = '', frac, ...more] = s.split(decimal);
  if (more.length > 0 || /\D/.test(frac ?? '')) return { error: 'invalid' };
  // "1.799" in de-DE, "1,799" in en-US: the locale reads 1799, but the one
  // mark is the other half of the world's decimal point, and a price or a
  // quantity typed from a pump's display is written so. A decimal field
  // cannot tell; a reading or a count is whole, and a second group, a
  // space or a decimal part settles it.
  if (kind === 'decimal' && frac === undefined && oneTypedGroupMark(text, groupMark) && /^\d{1,3}G\d{3}$/.test(ip)) return { error: 'ambiguous' };
  if (ip === '' && !frac) return { error: 'invalid' };
  // A grouping mark where the locale would put none: "1.5" in de-DE, "12,5" in en-US.
  if (ip.includes(G) && !groupsRight(ip, locale, group)) return { error: groupMark === '.' || groupMark === ',' ? 'ambiguous' : 'invalid' };
  const value = canonical(new Big(`${ip.split(G).join('') || '0'}.${frac || '0'}`));
  if (kind === 'count' && value.includes('.')) return { error: 'fraction' };
  return { value };
}

/** oneTypedGroupMark: whether text groups with the locale's '.' or ',' once, and with nothing else. */
function oneTypedGroupMark(text: string, groupMark: string): boolean {
  if (groupMark !== '.' && groupMark !== ',') return false;
  const s = text.normalize('NFKC').trim();
  return s.split(groupMark).length === 2 && !/\s/u.test(s);
}

/**
 * eitherReading: the two numbers an ambiguous "1.799" can mean (the locale's
 * 1799 and the decimal 1.799), each as an edit field in locale writes it
 * ("1799", "1,799" in de-DE); null when text is not refused as ambiguous
 * that way.
 */
export function eitherReading(text: string, kind: NumberKind, locale: string = numberLocale()): [string, string] | null {
  const { group } = separators(locale);
  const groupMark = group.normalize('NFKC');
  if (parseNumber(text, kind, locale).error !== 'ambiguous' || !oneTypedGroupMark(text, groupMark)) return null;
  const [whole = '', part = ''] = text.normalize('NFKC').trim().split(groupMark);
  if (!/^\d{1,3}$/.test(whole) || !/^\d{3}$/.test(part)) return null;
  return [inputNumber(whole + part, 0, locale), inputNumber(`${whole}.${part}`, 0, locale)];
}

/** ambiguousOf: the first of texts that a decimal field refuses as "1.799" is, for numberExample; undefined when none is. */
export function ambiguousOf(...texts: string[]): string | undefined {
  return texts.find((x) => eitherReading(x, 'decimal') !== null);
}

/** readNumber: parseNumber's value, or null for any text that is not one. */
export function readNumber(text: string, kind: NumberKind, locale: string = numberLocale()): string | null {
  return parseNumber(text, kind, locale).value ?? null;
}

/**
 * numberExample: a number written as locale writes it, for a message that
 * says how to type one: "1.234,56" (de-DE) for a decimal, "12.500" for a
 * reading or a count. Given the text typed, when it is refused as "1.799"
 * is (eitherReading), the two ways to write what it could mean instead:
 * "1799 or 1,799 (“1.799” could mean either)".
 */
export function numberExample(kind: NumberKind, locale: string = numberLocale(), typed?: string): string {
  const either = typed === undefined ? null : eitherReading(typed, kind, locale);
  if (either) return t('number.eitherOr', { typed: typed!.trim(), a: either[0], b: either[1] });
  return kind === 'decimal'
    ? new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(1234.56)
    : new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(12500);
}

/**
 * inputNumber: a decimal (a canonical string or a number from the API) as a
 * field shows it to be edited: the locale's decimal separator, no grouping
 * (a grouped number is read back too, but is harder to edit), at least
 * places decimals ("71,50" in de-DE for 71.5 and 2) and every stored one.
 * Read back by parseNumber it gives the same decimal.
 */
export function inputNumber(v: string | number, places = 0, locale: string = numberLocale()): string {
  const digits = canonical(new Big(v));
  const stored = digits.includes('.') ? digits.length - digits.indexOf('.') - 1 : 0;
  return new Intl.NumberFormat(locale, {
    useGrouping: false, minimumFractionDigits: places, maximumFractionDigits: Math.max(places, stored),
  }).format(digits as unknown as number);
}
