// The currency question's own catalogue (loaded with its chunk) keeps the
// rules of the main ones: the same keys in both languages, the same
// {parameters}, nothing empty; tc follows the language in force.
import { describe, expect, it } from 'vitest';
import { currencyEn, currencyZh, tc, tcn } from './currency';
import { setLanguage } from './index';

const params = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the currency catalogue', () => {
  it('has every key in both languages, with the same parameters', () => {
    expect(Object.keys(currencyZh).sort()).toEqual(Object.keys(currencyEn).sort());
    for (const k of Object.keys(currencyEn) as (keyof typeof currencyEn)[]) {
      expect(currencyZh[k].trim().length, k).toBeGreaterThan(0);
      expect(params(currencyZh[k]), k).toEqual(params(currencyEn[k]));
    }
  });
  it('tc reads the language in force and fills the parameters', () => {
    setLanguage('en');
    expect(tc('currency.preview', { before: '€70.47', after: 'US$77.52' })).toBe('For example: €70.47 → US$77.52');
    setLanguage('zh');
    expect(tc('currency.title', { from: 'EUR', to: 'USD' })).toBe('将货币从 EUR 改为 USD');
    setLanguage('en');
  });
  it('tcn counts refuels and expenses with the plural form of the language in force', () => {
    setLanguage('en');
    expect(tc('currency.converted', { to: 'USD', refuels: tcn('currency.refuels', 5), expenses: tcn('currency.expenses', 1) }))
      .toBe('Currency changed to USD; 5 refuels and 1 expense converted.');
    expect([tcn('currency.refuels', 1), tcn('currency.expenses', 0)]).toEqual(['1 refuel', '0 expenses']);
    setLanguage('de');
    expect([tcn('currency.refuels', 1), tcn('currency.refuels', 5), tcn('currency.expenses', 1), tcn('currency.expenses', 2)])
      .toEqual(['1 Tankvorgang', '5 Tankvorgänge', '1 Ausgabe', '2 Ausgaben']);
    setLanguage('zh');
    expect(tcn('currency.refuels', 1)).toBe('1 条加油记录');
    setLanguage('en');
  });
});
