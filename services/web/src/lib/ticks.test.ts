import { describe, expect, it } from 'vitest';
import { levelRange, monthTicks, niceStep, roundTicks, stepDecimals } from './ticks';

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

describe('the time axis: months labelled as many as fit', () => {
  const names = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];
  const short = (m: string) => names[Number(m.slice(5)) - 1] ?? m;
  const width = (text: string) => text.length * 7; // "Sept" 28 px, a year 28 px
  const months = (from: string, n: number) => Array.from({ length: n }, (_, i) => {
    const k = Number(from.slice(0, 4)) * 12 + Number(from.slice(5)) - 1 + i;
    return `${Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, '0')}`;
  });

  it('a year on a phone: every other month, the latest labelled, the year once', () => {
    // 11 months across about 290 px: 26 px a month, less than "Sept" and the gap (36 px).
    expect(monthTicks(months('2026-01', 11), 26, short, width)).toEqual([
      { index: 0, label: 'Jan\n2026' }, { index: 2, label: 'Mar' }, { index: 4, label: 'May' },
      { index: 6, label: 'Jul' }, { index: 8, label: 'Sept' }, { index: 10, label: 'Nov' },
    ]);
  });

  it('room for every month: each labelled, the year where it changes', () => {
    expect(monthTicks(months('2025-11', 4), 60, short, width)).toEqual([
      { index: 0, label: 'Nov\n2025' }, { index: 1, label: 'Dec' }, { index: 2, label: 'Jan\n2026' }, { index: 3, label: 'Feb' },
    ]);
  });

  it('counted back from the latest: the first labelled month carries its year even when it is not the first month', () => {
    const ticks = monthTicks(months('2025-12', 5), 14, short, width); // step 3: indices 1 and 4
    expect(ticks).toEqual([{ index: 1, label: 'Jan\n2026' }, { index: 4, label: 'Apr' }]);
  });

  it('no two labels overlap, and the latest month is always labelled, at any width and length', () => {
    for (let n = 1; n <= 36; n++) {
      for (const slot of [3, 9, 17, 26, 35, 36, 37, 60, 120]) {
        const ticks = monthTicks(months('2024-06', n), slot, short, width);
        expect(ticks.at(-1)?.index).toBe(n - 1);
        for (let i = 1; i < ticks.length; i++) {
          const [a, b] = [ticks[i - 1]!, ticks[i]!];
          const widest = Math.max(...[a, b].flatMap((t) => t.label.split('\n').map(width)));
          expect((b.index - a.index) * slot).toBeGreaterThanOrEqual(widest + 8);
        }
        // As many as fit: one more label (a step one shorter) would overlap.
        if (ticks.length > 1) {
          const step = ticks[1]!.index - ticks[0]!.index;
          if (step > 1) expect((step - 1) * slot).toBeLessThan(28 + 8);
        }
      }
    }
  });

  it('no months, no ticks', () => {
    expect(monthTicks([], 30, short, width)).toEqual([]);
  });
});

describe('the value axis of a level starts at zero', () => {
  it.each([
    // Prices of a few percent apart: 0 to 6, not 5.65 to 5.75.
    [[5.65, 5.7, 5.75], [0, 6]],
    [[6.5, 7.2, null, 6.9], [0, 8]],
    [[145.13, 98.2], [0, 150]],
    [[0.0975, 0.1234], [0, 0.15]],
    [[40], [0, 40]],
    [[], [0, 1]],
    [[null, 0], [0, 1]],
    [[Number.NaN, 3], [0, 3]],
  ])('%o -> %o', (values, want) => {
    expect(levelRange(values)).toEqual(want);
  });

  it('its top is one of the ticks of the axis', () => {
    const [lo, hi] = levelRange([5.65, 5.75]);
    expect(roundTicks(lo, hi, 5).ticks.at(-1)).toBe(hi);
    expect(roundTicks(lo, hi, 5).ticks[0]).toBe(0);
  });
});
