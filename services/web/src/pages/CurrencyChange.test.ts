import { describe, expect, it } from 'vitest';
import { conversionOf, convertAmount, outlook, remember, remembered, restoresExactly, undoOf, type Conversion } from './CurrencyChange';
import type { CurrencyChangeResult } from '../api/fuel';

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

const result = (over: Partial<CurrencyChangeResult>): CurrencyChangeResult => ({
  mode: 'convert', from: 'EUR', currency: 'USD', vehicles: 1, refuels: 5, expenses: 1, rate: 1.08, inverse_rate: null, ...over,
});
const at = new Date('2026-12-06T10:00:00Z');

describe('the way back: the last conversion, undone at its own rate', () => {
  const there: Conversion = conversionOf(result({}), '1.08', null, at)!;

  it('remembers a conversion from its answer, and nothing of a relabel', () => {
    expect(there).toEqual({ from: 'EUR', to: 'USD', rate: '1.08', inverse: false, at: at.toISOString(), owner: null });
    expect(conversionOf(result({ rate: null, inverse_rate: 1.08 }), '1.08', 7, at)).toMatchObject({ inverse: true, owner: 7 });
    expect(conversionOf(result({ mode: 'relabel', rate: null }), '1.08', null, at)).toBeNull();
    // An answer that does not confirm the rate sent is not remembered as it.
    expect(conversionOf(result({ rate: 1.8 }), '1.08', null, at)).toBeNull();
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

  it('is kept per user on this device, and forgotten', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) };
    remember({ ...there, owner: 7 }, storage);
    expect(remembered(7, storage)).toEqual({ ...there, owner: 7 });
    expect(remembered(8, storage)).toBeNull();
    expect(remembered(null, storage)).toBeNull();
    remember(null, storage);
    expect(remembered(7, storage)).toBeNull();
  });
});
