import { describe, expect, it } from 'vitest';
import { admitFiles, byCategory, byUrgency, capitalized, duePhrase, dueState, fmtSpan, fuelAndOther, MAX_QUEUED_BYTES, spanOf, wholeCostPerKm, type DueFormat } from './costs';
import { setLanguage } from '../i18n';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const at = (days: number) => new Date(NOW + days * 86_400_000).toISOString();
const en: DueFormat = { distance: (km) => `${km} km`, span: (d) => fmtSpan(spanOf(d), 'en') };
const r = (o: Partial<{ title: string; due_in_km: number | null; due_in_days: number | null; estimated_due_date: string | null }>) =>
  ({ title: 'Oil change', due_in_km: null, due_in_days: null, estimated_due_date: null, ...o });

describe('spanOf', () => {
  it.each([
    [0, '0 days'], [1, '1 day'], [13, '13 days'], [14, '2 weeks'], [21, '3 weeks'], [24, '3 weeks'], [25, '4 weeks'],
    [59, '8 weeks'], [60, '2 months'], [75, '2 months'], [77, '3 months'], [700, '23 months'], [730, '2 years'], [-21, '3 weeks'],
  ])('%i days -> %s', (days, want) => {
    expect(fmtSpan(spanOf(days), 'en')).toBe(want);
  });
  it('says it in Chinese with Intl’s words', () => {
    expect(fmtSpan(spanOf(21), 'zh-CN')).toBe('3周');
    expect(fmtSpan(spanOf(5), 'zh-CN')).toBe('5天');
  });
});

describe('duePhrase', () => {
  setLanguage('en');
  it.each([
    ['by distance, with the estimate', r({ due_in_km: 800, estimated_due_date: at(21) }), 'Oil change due in 800 km, about 3 weeks'],
    ['by distance, no estimate', r({ due_in_km: 800 }), 'Oil change due in 800 km'],
    ['by distance, an estimate already past', r({ due_in_km: 800, estimated_due_date: at(-2) }), 'Oil change due in 800 km'],
    ['by time', r({ due_in_days: 12 }), 'Oil change due in 12 days'],
    ['by both', r({ due_in_km: 4200, due_in_days: 95, estimated_due_date: at(120) }), 'Oil change due in 4200 km or 3 months'],
    ['due today', r({ due_in_km: 300, due_in_days: 0 }), 'Oil change due now'],
    ['overdue by distance', r({ due_in_km: -250, due_in_days: 40 }), 'Oil change overdue by 250 km'],
    ['overdue by time', r({ due_in_km: 900, due_in_days: -16 }), 'Oil change overdue by 2 weeks'],
    ['overdue by both', r({ due_in_km: -1200, due_in_days: -3 }), 'Oil change overdue by 1200 km and 3 days'],
    ['nothing to count from', r({}), 'Oil change not due yet: no reading or date to count from'],
  ])('%s', (_name, reminder, want) => {
    expect(duePhrase(reminder, NOW, en)).toBe(want);
  });
  it('reads in Chinese', () => {
    setLanguage('zh');
    try {
      expect(duePhrase(r({ title: '换机油', due_in_km: 800, estimated_due_date: at(21) }), NOW, { ...en, span: (d) => fmtSpan(spanOf(d), 'zh-CN') }))
        .toBe('换机油：还有 800 km 到期，约 3周');
    } finally {
      setLanguage('en');
    }
  });
});

describe('dueState', () => {
  it('is the phrase without the title, to start a line under it', () => {
    setLanguage('en');
    expect(capitalized(dueState(r({ due_in_km: 800, estimated_due_date: at(21) }), NOW, en), 'en')).toBe('Due in 800 km, about 3 weeks');
    setLanguage('zh');
    try {
      expect(capitalized(dueState(r({ due_in_days: -16 }), NOW, { ...en, span: (d) => fmtSpan(spanOf(d), 'zh-CN') }), 'zh-CN')).toBe('已逾期 2周');
    } finally {
      setLanguage('en');
    }
  });
});

describe('byUrgency', () => {
  it('puts overdue first, then soon, then the rest, the nearest first', () => {
    const list = [
      { title: 'Tyres', status: 'ok' as const, due_in_km: 9000, due_in_days: null, estimated_due_date: at(200) },
      { title: 'Oil', status: 'soon' as const, due_in_km: 800, due_in_days: null, estimated_due_date: at(21) },
      { title: 'Inspection', status: 'soon' as const, due_in_km: null, due_in_days: 10, estimated_due_date: null },
      { title: 'Brakes', status: 'overdue' as const, due_in_km: -10, due_in_days: null, estimated_due_date: null },
      { title: 'Wipers', status: 'ok' as const, due_in_km: null, due_in_days: 90, estimated_due_date: null },
    ];
    expect(byUrgency(list, NOW).map((x) => x.title)).toEqual(['Brakes', 'Inspection', 'Oil', 'Wipers', 'Tyres']);
  });
});

describe('admitFiles', () => {
  const MB = 1024 * 1024;
  const f = (name: string, size: number, type = 'image/jpeg') => ({ name, size, type });
  it('refuses what the service would, and what goes over the queue’s bound, admitting the rest in order', () => {
    const files = [f('a.jpg', 4 * MB), f('notes.txt', 10, 'text/plain'), f('big.jpg', 10 * MB + 1), f('b.pdf', 5 * MB, 'application/pdf'), f('c.heic', 3 * MB, '')];
    const { admitted, refused } = admitFiles(files, 0, 40 * MB);
    // 40 MB waiting: a (4) fits to 44, b (5) would make 49 and fits, c (3) would make 52 and does not.
    expect(admitted.map((x) => x.name)).toEqual(['a.jpg', 'b.pdf']);
    expect(refused).toEqual([
      { reason: 'type', file: files[1] },
      { reason: 'size', file: files[2] },
      { reason: 'queue', file: files[4], queued: 49 * MB },
    ]);
  });
  it('admits a file that fills the bound exactly, not a byte more', () => {
    expect(admitFiles([f('x.jpg', 10 * MB)], 0, MAX_QUEUED_BYTES - 10 * MB).admitted).toHaveLength(1);
    expect(admitFiles([f('x.jpg', 10 * MB)], 0, MAX_QUEUED_BYTES - 10 * MB + 1).refused[0]?.reason).toBe('queue');
  });
  it('keeps a record to 10 files, counting those it has', () => {
    const { admitted, refused } = admitFiles([f('1.jpg', 1), f('2.jpg', 1), f('3.jpg', 1)], 8, 0);
    expect(admitted.map((x) => x.name)).toEqual(['1.jpg', '2.jpg']);
    expect(refused).toEqual([{ reason: 'count', file: { name: '3.jpg', size: 1, type: 'image/jpeg' } }]);
  });
});

describe('byCategory', () => {
  it('reads a map or a list, largest first, drops zeros, folds unknown categories into other', () => {
    expect(byCategory({ service: 320.5, tax: 0, insurance: 610, parking: 12.3 })).toEqual([
      { category: 'insurance', amount: '610' }, { category: 'service', amount: '320.5' }, { category: 'parking', amount: '12.3' },
    ]);
    expect(byCategory([{ category: 'wash', amount: 0.1 }, { category: 'other', amount: 0.2 }, { category: 'ferry', amount: 0.1 }])).toEqual([
      { category: 'other', amount: '0.3' }, { category: 'wash', amount: '0.1' },
    ]);
    expect(byCategory(undefined)).toEqual([]);
  });
});

describe('fuelAndOther', () => {
  it('sums the fuel of every energy in decimal and reads each month’s other costs once', () => {
    const gasoline = [{ month: '2026-01', amount: 60.1, expenses_amount: 120 }, { month: '2026-02', amount: 0.2, expenses_amount: 0 }];
    const electricity = [{ month: '2026-02', amount: 0.1, expenses_amount: 0 }, { month: '2026-03', amount: 15, expenses_amount: 45.5 }];
    expect(fuelAndOther([electricity, gasoline])).toEqual([
      { month: '2026-01', fuel: '60.1', other: '120' },
      { month: '2026-02', fuel: '0.3', other: '0' },
      { month: '2026-03', fuel: '15', other: '45.5' },
    ]);
  });
  it('a series without other costs (an older service) reads 0', () => {
    expect(fuelAndOther([[{ month: '2026-01', amount: 10 }]])).toEqual([{ month: '2026-01', fuel: '10', other: '0' }]);
  });
});

describe('the whole cost per km: the fuel per km plus the other costs over the distance', () => {
  // Golf: full 1000 km (70,00 €), full 1600 km (72,36 €), partial 2000 km (19,00 €): 72,36 € over 600 km.
  const golf = { by_energy: [{ weighted_cost_per_km: 0.1206, cost_per_km: 0.1206, consumption_samples: 1 }], total_distance: 1000 };

  it('without other costs it is the fuel cost per km, not all the fuel money over all the km (0,16136)', () => {
    expect(wholeCostPerKm({ ...golf, expenses_amount: 0 })).toEqual({ fuel: '0.1206', other: '0.0000', total: '0.1206' });
    expect(wholeCostPerKm(golf)).toEqual({ fuel: '0.1206', other: '0.0000', total: '0.1206' });
  });

  it('other costs add their amount over the distance driven, in decimal', () => {
    // 89,90 € over 1000 km = 0,0899 €/km.
    expect(wholeCostPerKm({ ...golf, expenses_amount: 89.9 })).toEqual({ fuel: '0.1206', other: '0.0899', total: '0.2105' });
    // 100 € over 3 km: 33,33333… rounded half up at 4 places.
    expect(wholeCostPerKm({ ...golf, total_distance: 3, expenses_amount: 100 })?.other).toBe('33.3333');
  });

  it("several energies: every energy's fuel per km added up (the service's combined figure)", () => {
    const phev = { by_energy: [{ cost_per_km: 0.1, consumption_samples: 1 }, { cost_per_km: 0.02, consumption_samples: 2 }], combined_cost_per_km: 0.1173, total_distance: 600, expenses_amount: 60 };
    expect(wholeCostPerKm(phev)).toEqual({ fuel: '0.1173', other: '0.1000', total: '0.2173' });
    expect(wholeCostPerKm({ ...phev, combined_cost_per_km: 0 })).toBeNull();
  });

  it('unknown without a full-to-full sample, or with other costs and no distance', () => {
    expect(wholeCostPerKm({ by_energy: [{ cost_per_km: 0, consumption_samples: 0 }], total_distance: 500, expenses_amount: 0 })).toBeNull();
    expect(wholeCostPerKm({ ...golf, total_distance: 0, expenses_amount: 10 })).toBeNull();
    // An older answer without weighted_cost_per_km: the mean of the samples.
    expect(wholeCostPerKm({ by_energy: [{ cost_per_km: 0.12, consumption_samples: 2 }], total_distance: 500 })?.total).toBe('0.1200');
  });
});
