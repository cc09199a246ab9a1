import { describe, expect, it } from 'vitest';
import { setLanguage } from '../i18n';
import { setFormat } from './format';
import { ambiguousOf, eitherReading, inputNumber, numberExample, parseNumber, separators, type NumberKind } from './numbers';

const NNBSP = '\u202f'; // fr-FR's grouping separator
const NBSP = '\u00a0';

// [locale, kind, typed, the canonical value, or the name of the error that refuses it]
type Case = [string, NumberKind, string, string];
const ERRORS = new Set(['empty', 'invalid', 'ambiguous', 'fraction']);

const cases: Case[] = [
  // de-DE: '.' groups, ',' is the decimal point.
  ['de-DE', 'reading', '16.480', '16480'],
  ['de-DE', 'reading', '12.500', '12500'],
  ['de-DE', 'reading', '16480', '16480'],
  ['de-DE', 'reading', '1.234.567', '1234567'],
  ['de-DE', 'reading', '15760,5', '15760.5'],
  ['de-DE', 'reading', '1.5', 'ambiguous'],
  ['de-DE', 'count', '12.500', '12500'],
  ['de-DE', 'count', '12', '12'],
  ['de-DE', 'count', '1,5', 'fraction'],
  ['de-DE', 'decimal', '71,50', '71.5'],
  ['de-DE', 'decimal', '1.234', 'ambiguous'], // 1234, or 1.234 typed from a pump's display
  ['de-DE', 'decimal', '1.799', 'ambiguous'],
  ['de-DE', 'decimal', '12.345.678', '12345678'],
  ['de-DE', 'decimal', '1 234', '1234'],
  ['de-DE', 'reading', '1.799', '1799'],
  ['de-DE', 'decimal', '1.234,56', '1234.56'],
  ['de-DE', 'decimal', '1 234,56', '1234.56'],
  ['de-DE', 'decimal', ',5', '0.5'],
  ['de-DE', 'decimal', '7,', '7'],
  ['de-DE', 'decimal', '1.5', 'ambiguous'],
  ['de-DE', 'decimal', '12.50', 'ambiguous'],
  ['de-DE', 'decimal', '0.500', 'ambiguous'],
  ['de-DE', 'decimal', '1,234.56', 'invalid'],
  ['de-DE', 'decimal', '1,2,3', 'invalid'],
  // en-US: ',' groups, '.' is the decimal point.
  ['en-US', 'reading', '12,500', '12500'],
  ['en-US', 'reading', '16480', '16480'],
  ['en-US', 'reading', '9941.936', '9941.936'],
  ['en-US', 'reading', '12,5', 'ambiguous'],
  ['en-US', 'decimal', '12.5', '12.5'],
  ['en-US', 'decimal', '1,234.56', '1234.56'],
  ['en-US', 'decimal', '1,234', 'ambiguous'],
  ['en-US', 'decimal', '1,234,567', '1234567'],
  ['en-US', 'count', '1,234', '1234'],
  ['en-US', 'decimal', '12,5', 'ambiguous'],
  ['en-US', 'decimal', '1.234,56', 'invalid'],
  ['en-US', 'decimal', '1 234.5', '1234.5'],
  ['en-US', 'count', '15,000', '15000'],
  ['en-US', 'count', '12.5', 'fraction'],
  // en-GB: as en-US.
  ['en-GB', 'decimal', '41.5', '41.5'],
  ['en-GB', 'decimal', '41,5', 'ambiguous'],
  ['en-GB', 'reading', '45,210', '45210'],
  // fr-FR: a narrow no-break space groups (a no-break or a plain space too), ',' is the decimal point.
  ['fr-FR', 'decimal', `1${NNBSP}234,56`, '1234.56'],
  ['fr-FR', 'decimal', `1${NBSP}234,56`, '1234.56'],
  ['fr-FR', 'decimal', '1 234,56', '1234.56'],
  ['fr-FR', 'decimal', '12,5', '12.5'],
  ['fr-FR', 'decimal', '12.5', '12.5'], // the numeric keypad's dot: nothing else it can be
  ['fr-FR', 'decimal', '1.234', 'ambiguous'], // 1234 or 1,234
  ['fr-FR', 'decimal', '1.234,5', '1234.5'],
  ['fr-FR', 'decimal', '1.234.567', '1234567'],
  ['fr-FR', 'reading', '12.500', '12500'], // whole: the dot in a thousands position groups
  ['fr-FR', 'reading', `16${NNBSP}480`, '16480'],
  ['fr-FR', 'decimal', `12${NNBSP}5`, 'invalid'],
  // zh-CN: as en, and a full-width input method's digits and separators.
  ['zh-CN', 'decimal', '1,234.5', '1234.5'],
  ['zh-CN', 'decimal', '１２．５', '12.5'],
  ['zh-CN', 'reading', '１６，４８０', '16480'],
  ['zh-CN', 'decimal', '12,5', 'ambiguous'],
  // Anywhere: not numbers.
  ['de-DE', 'decimal', '', 'empty'],
  ['de-DE', 'decimal', '   ', 'empty'],
  ['en-US', 'decimal', 'abc', 'invalid'],
  ['en-US', 'decimal', '-3', 'invalid'],
  ['en-US', 'decimal', '1e3', 'invalid'],
  ['en-US', 'decimal', '.', 'invalid'],
  ['en-US', 'decimal', '4.1.5', 'invalid'],
  ['en-US', 'decimal', '1,,234', 'invalid'],
  ['de-CH', 'decimal', '1\u2019234.5', '1234.5'],
  ['de-CH', 'decimal', "1'234.5", '1234.5'],
];

describe('parseNumber: one rule for every field, from the locale', () => {
  for (const [locale, kind, typed, want] of cases) {
    it(`${locale} ${kind} ${JSON.stringify(typed)} -> ${want}`, () => {
      const got = parseNumber(typed, kind, locale);
      expect(ERRORS.has(want) ? got.error : got.value).toBe(want);
      if (ERRORS.has(want)) expect(got.value).toBeUndefined();
    });
  }
});

describe('separators: what Intl says, no table of ours', () => {
  it('reads each locale', () => {
    expect(separators('de-DE')).toEqual({ group: '.', decimal: ',' });
    expect(separators('en-US')).toEqual({ group: ',', decimal: '.' });
    expect(separators('fr-FR')).toEqual({ group: NNBSP, decimal: ',' });
    expect(separators('zh-CN')).toEqual({ group: ',', decimal: '.' });
  });
});

describe('inputNumber: a value as an edit form shows it, read back the same', () => {
  const values: [string, string | number, number, string][] = [
    ['de-DE', 71.5, 2, '71,50'],
    ['de-DE', '15760', 0, '15760'],
    ['de-DE', '9941.936', 0, '9941,936'],
    ['en-US', 71.5, 2, '71.50'],
    ['en-US', '12500', 0, '12500'],
    ['fr-FR', '1234.567', 2, '1234,567'],
    ['zh-CN', '0.001', 2, '0.001'],
  ];
  for (const [locale, v, places, shown] of values) {
    it(`${locale} ${v} -> ${shown} -> ${v}`, () => {
      expect(inputNumber(v, places, locale)).toBe(shown);
      for (const kind of ['decimal', 'reading'] as const) {
        expect(parseNumber(shown, kind, locale).value).toBe(String(Number(v)));
      }
    });
  }
});

describe('numberExample: how a message says to write a number', () => {
  it('in the locale', () => {
    expect(numberExample('decimal', 'de-DE')).toBe('1.234,56');
    expect(numberExample('decimal', 'en-US')).toBe('1,234.56');
    expect(numberExample('reading', 'de-DE')).toBe('12.500');
    expect(numberExample('decimal', 'fr-FR')).toBe(`1${NNBSP}234,56`);
    // The example reads back as the number it shows.
    for (const l of ['de-DE', 'en-US', 'en-GB', 'fr-FR', 'zh-CN']) {
      expect(parseNumber(numberExample('decimal', l), 'decimal', l).value).toBe('1234.56');
      expect(parseNumber(numberExample('reading', l), 'reading', l).value).toBe('12500');
    }
  });
});

describe('eitherReading: what a refused "1.799" could mean, as the message offers it', () => {
  it('names both, each written as the locale reads it back', () => {
    expect(eitherReading('1.799', 'decimal', 'de-DE')).toEqual(['1799', '1,799']);
    expect(eitherReading(' 1,250 ', 'decimal', 'en-US')).toEqual(['1250', '1.25']);
    for (const [l, typed] of [['de-DE', '1.799'], ['en-US', '1,250'], ['zh-CN', '2,345']] as const) {
      const [a, b] = eitherReading(typed, 'decimal', l)!;
      expect(parseNumber(a, 'decimal', l).value).toBe(typed.replace(/[.,]/, ''));
      expect(parseNumber(b, 'decimal', l).value).toBe(String(Number(typed.replace(/[.,]/, '.'))));
    }
  });
  it('is null for what is not refused that way', () => {
    expect(eitherReading('1.799', 'reading', 'de-DE')).toBeNull();
    expect(eitherReading('1.5', 'decimal', 'de-DE')).toBeNull();
    expect(eitherReading('1,799', 'decimal', 'de-DE')).toBeNull();
    expect(eitherReading('', 'decimal', 'de-DE')).toBeNull();
  });
  it('numberExample offers both for the text typed, and the usual example otherwise', () => {
    setLanguage('en');
    expect(numberExample('decimal', 'de-DE', '1.799')).toBe('1799 or 1,799 (“1.799” could mean either)');
    expect(numberExample('decimal', 'de-DE', 'abc')).toBe('1.234,56');
    setFormat('de-DE', 'EUR'); // ambiguousOf reads in the owner's number format
    expect(ambiguousOf('', '41,5', '1.799')).toBe('1.799');
    expect(ambiguousOf('41,5', '1.234,5')).toBeUndefined();
    setFormat('en-US', 'USD');
    expect(ambiguousOf('1.799')).toBeUndefined();
  });
});
