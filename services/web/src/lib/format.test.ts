import { afterEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../i18n';
import {
  MONEY_EXTRA, currencyLabel, currencyName, fmtDate, fmtDuration, fmtList, fmtMoney, fmtMonth, fmtNumber, fmtPrice, languageName, monthOf, setFormat,
  wordsLocale, wordsLocaleOf,
} from './format';

afterEach(() => {
  setFormat('en-US', 'USD');
  setLanguage('en');
});

describe("numbers in the owner's locale, the currency's sign", () => {
  it('a decimal comma where the locale uses one', () => {
    setFormat('de-DE', 'EUR');
    expect(fmtNumber('1234.5', 2)).toBe('1.234,50');
    expect(currencyLabel()).toBe('€');
    setFormat('fr-FR', 'EUR');
    expect(fmtNumber('6.75', 2)).toBe('6,75');
  });
  it('a decimal point in en-US and zh-CN; the currency by its sign beside the amount fields', () => {
    setFormat('en-US', 'USD');
    expect(fmtNumber('12645', 1)).toBe('12,645.0');
    expect(currencyLabel()).toBe('$');
    setFormat('zh-CN', 'CNY');
    expect(fmtNumber('7.84', 2)).toBe('7.84');
    expect(currencyLabel()).toBe('¥');
  });
  it('decimal strings are formatted exactly, beyond what a float holds', () => {
    setFormat('en-US', 'USD');
    expect(fmtNumber('12345678901234.567', 3)).toBe('12,345,678,901,234.567');
  });
  it('one measure, one number of decimals: 6.70 beside 6.63, never 6.7', () => {
    setFormat('en-US', 'USD');
    expect(fmtNumber('6.7', 2)).toBe('6.70');
    expect(fmtNumber('6.63', 2)).toBe('6.63');
    expect(fmtNumber('30', 1)).toBe('30.0');
    expect(fmtNumber('6.635', 2)).toBe('6.64');
    expect(fmtNumber('42', 0)).toBe('42');
    setFormat('de-DE', 'EUR');
    expect(fmtNumber('6.7', 2)).toBe('6,70');
  });
  it('an unknown locale falls back instead of throwing', () => {
    setFormat('xx-not-a-locale', 'USD');
    expect(fmtNumber('1.5', 1)).toMatch(/^1[.,]5$/);
  });
});

// Intl separates the number and a trailing sign with a no-break space.
const NBSP = '\u00a0';

describe("money in the owner's currency, as the locale writes it", () => {
  it('en-US USD: the sign before, two places for a total, half-up on the decimal digits', () => {
    setFormat('en-US', 'USD');
    expect(fmtMoney('74.66')).toBe('$74.66');
    expect(fmtMoney(122)).toBe('$122.00');
    expect(fmtMoney('1234.5')).toBe('$1,234.50');
    expect(fmtMoney('74.665')).toBe('$74.67');
    expect(fmtMoney('74.6649')).toBe('$74.66');
    expect(fmtMoney('0')).toBe('$0.00');
  });
  it('en-US USD: a price per unit has one place more than the currency, a cost per distance two, always', () => {
    setFormat('en-US', 'USD');
    expect(fmtMoney('1.799', MONEY_EXTRA.price)).toBe('$1.799');
    expect(fmtMoney('1.8', MONEY_EXTRA.price)).toBe('$1.800');
    expect(fmtMoney('1.7995', MONEY_EXTRA.price)).toBe('$1.800');
    expect(fmtMoney('0.0227', MONEY_EXTRA.costPerDistance)).toBe('$0.0227');
    expect(fmtMoney('0.02', MONEY_EXTRA.costPerDistance)).toBe('$0.0200');
    expect(fmtPrice('1.799', 'L')).toBe('$1.799/L');
    expect(fmtPrice('3.5', 'gal')).toBe('$3.500/gal');
  });
  it('de-DE EUR: a decimal comma, a point between thousands, the sign after', () => {
    setFormat('de-DE', 'EUR');
    expect(fmtMoney('74.66')).toBe(`74,66${NBSP}€`);
    expect(fmtMoney('1234.5')).toBe(`1.234,50${NBSP}€`);
    expect(fmtMoney(70)).toBe(`70,00${NBSP}€`);
    expect(fmtPrice('1.799', 'L')).toBe(`1,799${NBSP}€/L`);
    expect(fmtPrice('1.8', 'L')).toBe(`1,800${NBSP}€/L`);
  });
  it('ja-JP JPY: no fraction digits for a total (rounded half-up), a price keeps its own', () => {
    setFormat('ja-JP', 'JPY');
    expect(fmtMoney('74.66')).toBe('￥75');
    expect(fmtMoney('74.5')).toBe('￥75');
    expect(fmtMoney('74.49')).toBe('￥74');
    expect(fmtMoney('12345')).toBe('￥12,345');
    expect(fmtMoney('169.54', MONEY_EXTRA.price)).toBe('￥169.5');
    expect(fmtMoney('170', MONEY_EXTRA.price)).toBe('￥170.0');
    setFormat('en-US', 'JPY');
    expect(fmtMoney('74.66')).toBe('¥75');
  });
  it('zh-CN CNY: the yuan sign, two places, the Chinese catalogue\'s price pattern', () => {
    setFormat('zh-CN', 'CNY');
    setLanguage('zh');
    expect(fmtMoney('74.66')).toBe('¥74.66');
    expect(fmtMoney('1234.5')).toBe('¥1,234.50');
    expect(fmtPrice('7.85', '升')).toBe('¥7.850/升');
    setFormat('zh-CN', 'USD');
    expect(fmtMoney('69.59')).toBe('US$69.59');
  });
  it('the decimal string is rounded exactly, not through a float', () => {
    setFormat('en-US', 'USD');
    // As a float 12345678901234.565 is 12345678901234.564453125, which would round down.
    expect(fmtMoney('12345678901234.565')).toBe('$12,345,678,901,234.57');
    expect(fmtMoney('0.1255', MONEY_EXTRA.price)).toBe('$0.126');
  });
  it('a currency code Intl refuses shows the plain number and the code', () => {
    setFormat('en-US', 'dollars');
    expect(fmtMoney('74.66')).toBe('74.66 dollars');
  });
});

describe('months in the owner\'s zone and language', () => {
  it('the calendar month of an instant depends on the zone', () => {
    const at = new Date('2026-02-28T23:30:00Z');
    expect(monthOf(at, 'UTC')).toBe('2026-02');
    expect(monthOf(at, 'Asia/Shanghai')).toBe('2026-03');
    expect(monthOf(at, 'America/New_York')).toBe('2026-02');
  });
  it('a month is named in the locale, the same month in every zone', () => {
    setFormat('en-US', 'USD');
    expect(fmtMonth('2026-03', 'long')).toBe('March 2026');
    expect(fmtMonth('2026-03', 'short')).toBe('Mar');
    setFormat('zh-CN', 'CNY');
    setLanguage('zh');
    expect(fmtMonth('2026-03', 'long')).toBe('2026年3月');
    expect(fmtMonth('bad', 'short')).toBe('bad');
  });
});

describe('one language per screen: words in the app\'s language, numbers in the format locale', () => {
  it('English in a German format: English words, German numbers and day-first dates', () => {
    setFormat('de-DE', 'EUR');
    setLanguage('en');
    expect(wordsLocale()).toBe('en-DE');
    expect(fmtMonth('2026-12', 'long')).toBe('December 2026');
    expect(fmtMonth('2026-10', 'short')).toBe('Oct');
    expect(fmtDate('2026-12-06T12:00:00Z')).toBe('6 Dec 2026');
    expect(fmtDuration(2, 'week')).toBe('2 weeks');
    expect(fmtDuration(11, 'month')).toBe('11 months');
    expect(currencyName('USD')).toBe('US Dollar');
    expect(languageName('de')).toBe('German');
    expect(fmtList(['a', 'b', 'c'])).toBe('a, b and c');
    expect(fmtNumber('1234.5', 1)).toBe('1.234,5');
    expect(fmtMoney('1234.5')).toBe(`1.234,50${NBSP}€`);
  });
  it('German in a German format: German words', () => {
    setFormat('de-DE', 'EUR');
    setLanguage('de');
    expect(wordsLocale()).toBe('de-DE');
    expect(fmtMonth('2026-12', 'long')).toBe('Dezember 2026');
    expect(fmtDuration(2, 'week')).toBe('2 Wochen');
    expect(currencyName('USD')).toBe('US-Dollar');
    expect(fmtList(['a', 'b'])).toBe('a und b');
  });
  it('a pair Intl has no data for says words in the bare language; the format keeps its numbers', () => {
    setFormat('de-DE', 'EUR');
    setLanguage('zh');
    expect(wordsLocale()).toBe('zh');
    expect(fmtMonth('2026-12', 'long')).toBe('2026年12月');
    expect(fmtNumber('1234.5', 1)).toBe('1.234,5');
    setFormat('en-US', 'USD');
    setLanguage('de');
    expect(wordsLocaleOf('de', 'en-US')).toBe('de');
    expect(fmtMonth('2026-12', 'long')).toBe('Dezember 2026');
    expect(fmtNumber('1234.5', 1)).toBe('1,234.5');
    expect(wordsLocaleOf('en', 'en-GB')).toBe('en-GB');
    expect(wordsLocaleOf('en', 'not a locale')).toBe('en');
  });
});
