import { describe, expect, it } from 'vitest';
import { spans, type SpanInput } from './spans';

let n = 0;
function r(day: number, odometer: number, liters: number, is_full = true, missed_previous = false, energy = 'gasoline'): SpanInput {
  return { id: ++n, refuel_time: `2026-03-${String(day).padStart(2, '0')}T08:00:00Z`, odometer, energy, liters, is_full, missed_previous };
}

describe('spans', () => {
  it('distance since the previous record and consumption between full fills, partial fills counted', () => {
    const a = r(1, 1000, 40), b = r(2, 1300, 10, false), c = r(3, 1600, 32);
    const got = spans([c, a, b]);
    expect(got.get(a.id)).toEqual({ distance: null, consumption: null, over: null });
    expect(got.get(b.id)).toEqual({ distance: '300', consumption: null, over: null });
    // (10 + 32) / 600 x 100, over the 600 km from a, not the 300 since b.
    expect(got.get(c.id)).toEqual({ distance: '300', consumption: '7', over: '600' });
  });
  it('a missed fill-up discards the span', () => {
    const a = r(4, 2000, 40), b = r(5, 2500, 30, true, true), c = r(6, 3000, 35);
    const got = spans([a, b, c]);
    expect(got.get(b.id)?.consumption).toBeNull();
    expect(got.get(c.id)?.consumption).toBe('7');
  });
  it('each energy is its own tank', () => {
    const a = r(7, 100, 40), e1 = r(8, 150, 10, true, false, 'electricity'), b = r(9, 600, 30), e2 = r(10, 700, 11, true, false, 'electricity');
    const got = spans([a, e1, b, e2]);
    expect(got.get(b.id)?.consumption).toBe('6');
    expect(got.get(e2.id)?.consumption).toBe('2');
    expect(got.get(e2.id)?.distance).toBe('100');
  });
  it('a plug-in hybrid: each figure names the km it is over, every km driven between its full records', () => {
    // Petrol 40 L at 10 000; charges at 10 100, 10 250; petrol 30 L at 10 500.
    const p1 = r(11, 10000, 40), c1 = r(12, 10100, 8, true, false, 'electricity'), c2 = r(13, 10250, 9, true, false, 'electricity'), p2 = r(14, 10500, 30);
    const got = spans([p1, c1, c2, p2]);
    // 30 L over the 500 km from p1 (250 since the previous record, a charge): 6 L/100 km.
    expect(got.get(p2.id)).toEqual({ distance: '250', consumption: '6', over: '500' });
    // 9 kWh over 150 km: 6 kWh per 100 km driven.
    expect(got.get(c2.id)).toEqual({ distance: '150', consumption: '6', over: '150' });
    expect(got.get(c1.id)).toEqual({ distance: '100', consumption: null, over: null });
  });
});
