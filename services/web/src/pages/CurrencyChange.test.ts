import { describe, expect, it } from 'vitest';
import { conversionOf, convertAmount, outlook, restoresExactly, undoOf, type Conversion } from './CurrencyChange';
import type { CurrencyConversion } from '../api/fuel';

describe('convertAmount: the preview computes what the service stores', () => {
  it('multiplies, or divides for a rate given the other way round, half-up at 3 places', () => {
    expect(convertAmount('281.74', '1.1', 'forward')).toBe('309.914');
    expect(convertAmount('0.005', '1.1', 'forward')).toBe('0.006');
    expect(convertAmount('309.914', '1.1', 'inverse')).toBe('281.74');
    expect(convertAmount('100', '3', 'inverse')).toBe('33.333');
  });
  it('refuses what the service refuses: 0, too many places, too many digits', () => {
    expect(convertAmount('1', '0', 'forward')).toBeNull();
    expect(convertAmount('1', '1.0000000000001', 'forward')).toBeNull();
    expect(convertAmount('1', '1000000000', 'forward')).toBeNull();
    expect(convertAmount('1', '0.000000000001', 'forward')).toBe('0');
  });
});

/** The service's last_currency_change. */
const record = (over: Partial<CurrencyConversion>): CurrencyConversion => ({
  from: 'EUR', to: 'USD', rate: 1.08, inverse_rate: null, at: '2026-12-06T10:00:00Z', ...over,
});

describe('the way back: the last conversion, undone at its own rate', () => {
  const there: Conversion = conversionOf(record({}))!;

  it("reads the service's record: the rate's digits and which way round it was given", () => {
    expect(there).toEqual({ from: 'EUR', to: 'USD', rate: '1.08', inverse: false, at: '2026-12-06T10:00:00Z' });
    expect(conversionOf(record({ rate: null, inverse_rate: 1.08 }))).toMatchObject({ rate: '1.08', inverse: true });
    // Small and large rates keep their digits, without an exponent.
    expect(conversionOf(record({ rate: 1e-7 }))?.rate).toBe('0.0000001');
    expect(conversionOf(record({ rate: 123456789.123456 }))?.rate).toBe('123456789.123456');
    // Nothing to undo: none kept, or neither rate.
    expect(conversionOf(null)).toBeNull();
    expect(conversionOf(undefined)).toBeNull();
    expect(conversionOf(record({ rate: null }))).toBeNull();
    // A rate whose JSON number may have lost digits is not offered: its undo would not be the one the service knows.
    expect(conversionOf(record({ rate: 123456789.12345678 }))).toBeNull();
  });

  it('undoes EUR -> USD at 1 EUR = 1.08 USD by dividing by 1.08 on the way back, and nothing else', () => {
    expect(undoOf(there, 'USD', 'EUR')).toEqual({ rate: '1.08', direction: 'inverse' });
    expect(undoOf(there, 'USD', 'GBP')).toBeNull();
    expect(undoOf(there, 'EUR', 'USD')).toBeNull();
    expect(undoOf(null, 'USD', 'EUR')).toBeNull();
    // A conversion given as inverse_rate is undone by multiplying.
    expect(undoOf({ ...there, inverse: true }, 'USD', 'EUR')).toEqual({ rate: '1.08', direction: 'forward' });
  });

  it('71.50 EUR -> 77.22 USD -> 71.50 EUR by the undo; typing 1,08 the same way round gives 83.40 and the preview says so', () => {
    const undo = undoOf(there, 'USD', 'EUR')!;
    const way = outlook('71.5', '1.08', 'forward', null)!;
    expect(way.after).toBe('77.22');
    expect(way.back).toBe('71.5');
    expect(way.exact).toBe(true);
    expect(convertAmount(way.after, undo.rate, undo.direction)).toBe('71.5');
    // The mistake of the issue: the same equation typed as "1 USD = 1,08 EUR".
    const wrong = outlook('77.22', '1.08', 'forward', undo)!;
    expect(wrong.after).toBe('83.398');
    expect(wrong.before).toBe('71.5');
    expect(wrong.undoes).toBe(false);
    // Typed the right way round ("1 EUR = 1,08 USD"), it is the undo.
    expect(outlook('77.22', '1.08', 'inverse', undo)!.undoes).toBe(true);
  });

  it('says when a rate cannot come back exactly: amounts multiplied by less than 1', () => {
    expect(restoresExactly('1.08', 'forward')).toBe(true);
    expect(restoresExactly('1', 'forward')).toBe(true);
    expect(restoresExactly('0.85', 'forward')).toBe(false);
    expect(restoresExactly('1.08', 'inverse')).toBe(false);
    expect(restoresExactly('0.5', 'inverse')).toBe(true);
    // 0.004 at 0.85 is 0.003, which comes back as 0.004 only by luck: here it does not.
    const o = outlook('0.003', '0.85', 'forward', null)!;
    expect([o.after, o.back, o.exact]).toEqual(['0.003', '0.004', false]);
  });
});
