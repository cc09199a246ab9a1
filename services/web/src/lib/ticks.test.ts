import { describe, expect, it } from 'vitest';
import { niceStep, roundTicks, stepDecimals } from './ticks';

describe('value axis ticks at round steps', () => {
  it('a narrow price range: distinct labels, each with the decimals its step needs', () => {
    const { ticks, decimals } = roundTicks(1.7285, 1.7312, 5);
    expect(ticks).toEqual([1.729, 1.73, 1.731]);
    expect(decimals).toBe(3);
    const labels = ticks.map((v) => v.toFixed(decimals));
    expect(new Set(labels).size).toBe(labels.length);
  });
  it('steps are 1, 2 or 5 times a power of ten', () => {
    expect(niceStep(100, 5)).toBe(20);
    expect(niceStep(1, 4)).toBe(0.5);
    expect(niceStep(0.003, 5)).toBeCloseTo(0.001);
    expect(roundTicks(0, 100, 5).ticks).toEqual([0, 20, 40, 60, 80, 100]);
    expect(roundTicks(5.8, 7.1, 5).ticks).toEqual([6, 6.5, 7]);
  });
  it('decimals follow the step', () => {
    expect(stepDecimals(20)).toBe(0);
    expect(stepDecimals(0.1)).toBe(1);
    expect(stepDecimals(0.005)).toBe(3);
    expect(stepDecimals(0.0005)).toBe(4);
  });
});
