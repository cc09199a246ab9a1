import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  addMonths, applies, categoryOf, clip, dayIn, distancePerDay, firstDue, initialTicks, jobOf, keepTicks, keptTicks, plannedAs, reminderOf,
  type CarFacts, type MaintenanceItem,
} from './maintenance';

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

describe('firstDue', () => {
  // A car bought used at 15 760 km, first recorded on 12 March 2024, today 6 December 2026 in Berlin.
  const car = (over: Partial<CarFacts> = {}): CarFacts => ({
    start: '2024-03-12T09:00:00Z', odometer: 15760, expenses: [], perDay: null, today: '2026-12-06', zone: 'Europe/Berlin', ...over,
  });
  const belt = reminderOf(item({ title: 'Timing belt', every_km: 120000, every_months: null }), 1, 'm.pdf');
  const oil = reminderOf(item({}), 1, 'm.pdf'); // every 15 000 km or 12 months
  const expense = (over: Partial<{ time: string; odometer: number | null; category: string; title: string }>) => ({
    time: '2025-05-03T10:00:00Z', odometer: 30000, category: 'service', title: 'Engine oil and filter at the garage', ...over,
  });

  it('counts a car with no history from its start (0 km), not from today: the timing belt is due at 120 000 km, not 135 760', () => {
    const d = firstDue(belt, null, car());
    expect(d.km).toEqual({ due: 120000, left: 104240, year: null });
    expect(d.base).toEqual({ from: 'start' });
    expect(d.lastDone).toEqual({ time: '2024-03-12T09:00:00Z', odometer: '0' });
    expect(d.date).toBeNull();
  });
  it('counts months from the start\'s day in the owner\'s zone, and says when that day has passed', () => {
    const d = firstDue(oil, null, car({ start: '2024-03-11T23:30:00Z' }));
    expect(d.date).toEqual({ due: '2025-03-12', passed: true });
    expect(d.km).toEqual({ due: 15000, left: -760, year: null });
    expect(firstDue(oil, null, car({ start: '2026-03-01T12:00:00Z' })).date).toEqual({ due: '2027-03-01', passed: false });
  });
  it('estimates the year from the distance a day, and not at all without one or beyond a century', () => {
    expect(firstDue(belt, null, car({ perDay: 50 })).km?.year).toBe(2032); // 104 240 km in 2 085 days from 6 Dec 2026: 21 Aug 2032
    expect(firstDue(belt, null, car({ perDay: 40 })).km?.year).toBe(2034);
    expect(firstDue(belt, null, car({ perDay: 0.001 })).km?.year).toBeNull();
  });
  it('counts from the owner\'s last done, each part the owner left empty from the start', () => {
    const both = firstDue(oil, { time: '2026-06-01T10:00:00Z', odometer: '12000' }, car());
    expect(both.lastDone).toEqual({ time: '2026-06-01T10:00:00Z', odometer: '12000' });
    expect(both.base).toEqual({ from: 'own', odometer: true, time: true });
    expect(both.km).toEqual({ due: 27000, left: 11240, year: null });
    expect(both.date).toEqual({ due: '2027-06-01', passed: false });
    // A reading alone: with months, the months count from the start; without, fuel gets the reading alone.
    const reading = firstDue(oil, { time: null, odometer: '12000' }, car());
    expect(reading.lastDone).toEqual({ time: '2024-03-12T09:00:00Z', odometer: '12000' });
    expect(reading.base).toEqual({ from: 'own', odometer: true, time: false });
    expect(firstDue(belt, { time: null, odometer: '90000.5' }, car()).lastDone).toEqual({ time: null, odometer: '90000.5' });
    // A day alone: the distance counts from 0 km.
    const day = firstDue(belt, { time: '2023-05-03T10:00:00Z', odometer: null }, car());
    expect(day.lastDone).toEqual({ time: '2023-05-03T10:00:00Z', odometer: '0' });
    expect(day.km?.due).toBe(120000);
    // Nothing typed is no last done.
    expect(firstDue(belt, { time: null, odometer: null }, car()).base).toEqual({ from: 'start' });
  });
  it('lets the newest matching expense replace a last done it is later than, as fuel does', () => {
    const logged = [expense({}), expense({ time: '2024-09-01T10:00:00Z', odometer: 20000 }), expense({ time: '2026-01-01T10:00:00Z', category: 'repair' }), expense({ time: '2026-02-01T10:00:00Z', title: 'Brake pads' })];
    const d = firstDue(oil, null, car({ expenses: logged }));
    expect(d.base).toEqual({ from: 'expense', expense: logged[0] });
    expect(d.km?.due).toBe(45000);
    expect(d.date?.due).toBe('2026-05-03');
    // The start is still sent: fuel lets the expense win on its own.
    expect(d.lastDone).toEqual({ time: '2024-03-12T09:00:00Z', odometer: '0' });
    // The owner's later last done stays; an expense without a reading leaves the distance unknown.
    expect(firstDue(oil, { time: '2026-06-01T10:00:00Z', odometer: '35000' }, car({ expenses: logged })).base.from).toBe('own');
    expect(firstDue(oil, null, car({ expenses: [expense({ odometer: null })] })).km).toBeNull();
    // Matched by title, case aside: "ENGINE OIL AND FILTER" is the job; the timing belt's is not.
    expect(firstDue(oil, null, car({ expenses: [expense({ title: 'ENGINE OIL AND FILTER' })] })).base.from).toBe('expense');
    expect(firstDue(belt, null, car({ expenses: logged })).base.from).toBe('start');
  });
  it('compares an expense with a reading given alone by its reading', () => {
    const own = { time: null, odometer: '90000' };
    const at = (odometer: number) => car({ expenses: [expense({ title: 'Timing belt', odometer })] });
    expect(firstDue(belt, own, at(80000)).base.from).toBe('own');
    expect(firstDue(belt, own, at(95000)).km?.due).toBe(215000);
  });
});

describe('distancePerDay, addMonths, dayIn', () => {
  it('takes the earliest and the latest reading, over at least a week of a growing odometer', () => {
    expect(distancePerDay([{ time: '2026-03-11T00:00:00Z', odometer: 11000 }, { time: '2026-01-01T00:00:00Z', odometer: 10000 }, { time: '2026-02-01T00:00:00Z', odometer: 10300 }])).toBeCloseTo(1000 / 69, 9);
    expect(distancePerDay([{ time: '2026-01-01T00:00:00Z', odometer: 10000 }])).toBeNull();
    expect(distancePerDay([{ time: '2026-01-01T00:00:00Z', odometer: 10000 }, { time: '2026-01-05T00:00:00Z', odometer: 10500 }])).toBeNull();
    expect(distancePerDay([{ time: '2026-01-01T00:00:00Z', odometer: 10000 }, { time: '2026-03-01T00:00:00Z', odometer: 10000 }])).toBeNull();
  });
  it('adds months as fuel does, keeping the day or the month\'s last', () => {
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2024-03-12', 120)).toBe('2034-03-12');
    expect(addMonths('2025-11-30', 3)).toBe('2026-02-28');
  });
  it('reads an instant as the day in the owner\'s zone', () => {
    expect(dayIn('2024-03-11T23:30:00Z', 'Europe/Berlin')).toBe('2024-03-12');
    expect(dayIn('2024-03-11T23:30:00Z', 'America/New_York')).toBe('2024-03-11');
  });
});
