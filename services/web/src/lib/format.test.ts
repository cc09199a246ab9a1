import { afterEach, describe, expect, it } from 'vitest';
import { currencyLabel, fmtNumber, setFormat } from './format';

afterEach(() => setFormat('en-US', 'USD'));

describe("numbers in the owner's locale, the currency's sign", () => {
  it('a decimal comma where the locale uses one', () => {
    setFormat('de-DE', 'EUR');
    expect(fmtNumber('1234.5', 2)).toBe('1.234,5');
    expect(currencyLabel()).toBe('€');
    setFormat('fr-FR', 'EUR');
    expect(fmtNumber('6.75', 2)).toBe('6,75');
  });
  it('a decimal point in en-US and zh-CN; the currency by its sign beside the amount fields', () => {
    setFormat('en-US', 'USD');
    expect(fmtNumber('12645', 1)).toBe('12,645');
    expect(currencyLabel()).toBe('$');
    setFormat('zh-CN', 'CNY');
    expect(fmtNumber('7.84', 2)).toBe('7.84');
    expect(currencyLabel()).toBe('¥');
  });
  it('decimal strings are formatted exactly, beyond what a float holds', () => {
    setFormat('en-US', 'USD');
    expect(fmtNumber('12345678901234.567', 3)).toBe('12,345,678,901,234.567');
    expect(fmtNumber('0.1', 3, 1)).toBe('0.1');
    expect(fmtNumber('30', 1, 1)).toBe('30.0');
  });
  it('an unknown locale falls back instead of throwing', () => {
    setFormat('xx-not-a-locale', 'USD');
    expect(fmtNumber('1.5', 1)).toMatch(/^1[.,]5$/);
  });
});
