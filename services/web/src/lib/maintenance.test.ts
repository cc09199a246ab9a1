import { afterEach, describe, expect, it, vi } from 'vitest';
import { applies, categoryOf, clip, initialTicks, jobOf, keepTicks, keptTicks, plannedAs, reminderOf, type MaintenanceItem } from './maintenance';

const item = (over: Partial<MaintenanceItem>): MaintenanceItem => ({
  title: 'Engine oil and filter', every_km: 15000, every_miles: null, every_months: 12, conditions: '', page: 4, quote: 'Engine oil and filter 15,000 12', ...over,
});

describe('reminderOf', () => {
  it('keeps the manual’s km and months, names the page in the notes and matches the task by its name', () => {
    expect(reminderOf(item({ pageLabel: '8-3' }), 7, 'golf.pdf')).toEqual({
      vehicle_id: 7, title: 'Engine oil and filter', category: 'service', match: 'Engine oil and filter',
      every_km: 15000, every_months: 12, notes: 'golf.pdf, p. 8-3: “Engine oil and filter 15,000 12”',
    });
  });
  it('turns miles into km when the manual gives no km, and uses the page number without a label', () => {
    const r = reminderOf(item({ every_km: null, every_miles: 10000, every_months: null }), 1, 'm.pdf');
    expect(r.every_km).toBe(16093);
    expect(r.every_months).toBeNull();
    expect(r.notes.startsWith('m.pdf, p. 4: ')).toBe(true);
  });
  it('prefers the printed km over a conversion of the miles', () => {
    expect(reminderOf(item({ every_km: 15000, every_miles: 10000 }), 1, 'm.pdf').every_km).toBe(15000);
  });
  it('puts the conditions into the title, so two items of one task stay apart', () => {
    const severe = reminderOf(item({ every_km: 7500, every_months: 6, conditions: 'Under severe conditions' }), 1, 'm.pdf');
    expect(severe.title).toBe('Engine oil and filter (Under severe conditions)');
    expect(severe.match).toBe('Engine oil and filter');
  });
  it('clips a long title and long notes to what fuel accepts', () => {
    const r = reminderOf(item({ title: 'x'.repeat(300), quote: 'q'.repeat(2000) }), 1, 'm.pdf');
    expect([...r.title].length).toBe(200);
    expect(r.title.endsWith('…')).toBe(true);
    expect([...r.notes].length).toBe(1000);
  });
});

describe('categoryOf', () => {
  it('reads tyres and inspections in English, German and Chinese; the rest is service', () => {
    expect(categoryOf('Rotate the tires')).toBe('tyres');
    expect(categoryOf('Reifen wechseln')).toBe('tyres');
    expect(categoryOf('检查轮胎')).toBe('tyres');
    expect(categoryOf('Inspektion')).toBe('inspection');
    expect(categoryOf('Brake fluid')).toBe('service');
    expect(categoryOf('Tyrell')).toBe('service');
  });
});

describe('plannedAs by title, and clip', () => {
  it('compares titles without case or spacing, whole', () => {
    expect(plannedAs({ title: 'Battery  check' }, [{ title: 'battery check ' }])).not.toBeNull();
    expect(plannedAs({ title: 'Battery check' }, [{ title: 'Battery check light' }])).toBeNull();
  });
  it('counts code points, not UTF-16 units', () => {
    expect(clip('机油机油', 4)).toBe('机油机油');
    expect(clip('机油机油机', 4)).toBe('机油机…');
  });
});

describe('applies', () => {
  it.each([
    // Spark ignition: petrol and the (petrol) hybrids only.
    ['Spark plugs', 'gasoline', true], ['Spark plugs', 'hybrid', true], ['Spark plugs', 'plug_in_hybrid', true],
    ['Spark plugs', 'diesel', false], ['Replace spark plug', 'electric', false], ['Zündkerzen ersetzen', 'diesel', false], ['更换火花塞', 'diesel', false],
    // A diesel's own.
    ['AdBlue', 'diesel', true], ['AdBlue', 'gasoline', false], ['Glow plugs', 'gasoline', false], ['Diesel particulate filter', 'hybrid', false],
    ['Harnstofflösung nachfüllen', 'gasoline', false], ['DEF top-up', 'electric', false], ['尿素溶液', 'gasoline', false],
    // Any engine burning fuel.
    ['Engine oil and filter', 'gasoline', true], ['Engine oil and filter', 'diesel', true], ['Engine oil and filter', 'hybrid', true],
    ['Engine oil and filter', 'electric', false], ['Motorölwechsel', 'electric', false], ['Timing belt', 'electric', false], ['发动机机油及机油滤清器', 'electric', false],
    ['Air filter', 'electric', false], ['Luftfilter', 'electric', false], ['Exhaust system check', 'electric', false], ['Diesel exhaust fluid', 'diesel', true],
    // Every car's: a cabin's filter, brakes, tyres, coolant; and what the rules do not know.
    ['Cabin air filter', 'electric', true], ['Innenraumluftfilter', 'electric', true], ['Brake fluid', 'electric', true], ['Tyre rotation', 'diesel', true],
    ['Coolant', 'electric', true], ['Wiper blades', 'electric', true], ['Defrost vents', 'gasoline', true], ['Oiling the door hinges', 'electric', true],
  ] as const)('%s on a %s car: %s', (title, fuel, want) => {
    expect(applies(title, fuel)).toBe(want);
  });
});

describe('initialTicks', () => {
  const proposed = ['Engine oil and filter', 'Spark plugs', 'AdBlue', 'Brake fluid'].map((title) => ({ item: { conditions: '' }, reminder: { title } }));
  it('ticks what applies and is not a reminder yet', () => {
    expect([...initialTicks(proposed, [{ title: 'brake  FLUID' }], 'diesel', {})]).toEqual([0, 2]);
    expect([...initialTicks(proposed, [], 'gasoline', {})]).toEqual([0, 1, 3]);
  });
  it('follows the owner\'s own ticks, but never ticks a job the vehicle has a reminder of', () => {
    const own = { 'Spark plugs': true, 'Engine oil and filter': false, 'Brake fluid': true };
    expect([...initialTicks(proposed, [{ title: 'Brake fluid' }], 'diesel', own)]).toEqual([1, 2]);
    // The owner's "Oil change" is the engine oil's job, whatever the ticks say.
    expect([...initialTicks(proposed, [{ title: 'Oil change' }], 'diesel', { 'Engine oil and filter': true })]).toEqual([2, 3]);
  });
});

describe('plannedAs', () => {
  const mine = [{ id: 1, title: 'Oil change' }, { id: 2, title: 'Bremsflüssigkeit wechseln' }, { id: 3, title: 'Cabin filter' }, { id: 4, title: 'engine OIL and filter' }];
  it('finds the reminder of the same title first, else of the same job in any of the three languages', () => {
    expect(plannedAs({ title: 'Engine oil and filter' }, mine)?.id).toBe(4);
    expect(plannedAs({ title: 'Engine oil and oil filter' }, mine)?.id).toBe(1);
    expect(plannedAs({ title: 'Motorölwechsel' }, mine)?.id).toBe(1);
    expect(plannedAs({ title: '发动机机油及机油滤清器' }, mine)?.id).toBe(1);
    expect(plannedAs({ title: 'Brake fluid' }, mine)?.id).toBe(2);
  });
  it('keeps apart what is not one job: the engine\'s air filter and the cabin\'s, and an item under conditions', () => {
    expect(plannedAs({ title: 'Air filter' }, mine)).toBeNull();
    expect(plannedAs({ title: 'Pollen filter' }, mine)?.id).toBe(3);
    expect(plannedAs({ title: 'Engine oil and oil filter (severe conditions)' }, mine, 'severe conditions')).toBeNull();
    expect(plannedAs({ title: 'Wiper blades' }, mine)).toBeNull();
  });
});

describe('jobOf', () => {
  it.each([
    ['Engine oil and filter', 'engine-oil'], ['Ölwechsel', 'engine-oil'], ['Oil change', 'engine-oil'], ['更换机油', 'engine-oil'],
    ['Cabin air filter', 'cabin-filter'], ['Innenraumluftfilter', 'cabin-filter'], ['Air filter element', 'air-filter'], ['Luftfilter', 'air-filter'],
    ['Brake fluid', 'brake-fluid'], ['Zahnriemen', 'timing-belt'], ['Rotate the tyres', 'tyre-rotation'], ['Tire rotation', 'tyre-rotation'],
    ['Battery check', null], ['Boiling point of the brake', null],
  ])('%s is %s', (title, job) => {
    expect(jobOf(title)).toBe(job);
  });
});

describe('keptTicks', () => {
  // The browser's storage, in memory (vitest runs in node; e2e/manuals.test.mjs uses Chromium's).
  const stored = new Map<string, string>();
  vi.stubGlobal('localStorage', {
    getItem: (k: string) => stored.get(k) ?? null,
    setItem: (k: string, v: string) => void stored.set(k, v),
  });
  afterEach(() => stored.clear());
  it('keeps the ticks per vehicle and manual, and reads nothing broken', () => {
    keepTicks(1, 'a'.repeat(32), { 'Spark plugs': false });
    expect(keptTicks(1, 'a'.repeat(32))).toEqual({ 'Spark plugs': false });
    expect(keptTicks(2, 'a'.repeat(32))).toEqual({});
    localStorage.setItem(`carhub-plan-ticks:3:${'b'.repeat(32)}`, '[1,2]');
    expect(keptTicks(3, 'b'.repeat(32))).toEqual({});
    localStorage.setItem(`carhub-plan-ticks:4:${'b'.repeat(32)}`, '{broken');
    expect(keptTicks(4, 'b'.repeat(32))).toEqual({});
  });
});
