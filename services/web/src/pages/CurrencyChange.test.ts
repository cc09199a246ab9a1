import { describe, expect, it } from 'vitest';
import { convertAmount } from './CurrencyChange';

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
