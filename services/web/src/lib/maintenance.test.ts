import { describe, expect, it } from 'vitest';
import { alreadyReminded, categoryOf, clip, reminderOf, type MaintenanceItem } from './maintenance';

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

describe('alreadyReminded and clip', () => {
  it('compares titles without case or spacing', () => {
    expect(alreadyReminded({ title: 'Engine  oil' }, [{ title: 'engine oil ' }])).toBe(true);
    expect(alreadyReminded({ title: 'Engine oil' }, [{ title: 'Engine oil filter' }])).toBe(false);
  });
  it('counts code points, not UTF-16 units', () => {
    expect(clip('机油机油', 4)).toBe('机油机油');
    expect(clip('机油机油机', 4)).toBe('机油机…');
  });
});
