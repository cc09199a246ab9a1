import { describe, expect, it } from 'vitest';
import { expenseAsBefore, refuelAsBefore, reminderAsBefore, vehicleAsBefore } from './restore';
import { Dec, jsonWithDecimals } from '../lib/decimal';
import type { RefuelRecord, Vehicle } from './fuel';
import type { Expense, Reminder } from './costs';

const vehicle: Vehicle = {
  id: 3, name: 'Golf', brand: 'VW', model: 'Golf 8', plate_number: 'B-CH 1', fuel_type: 'diesel', tank_capacity: 50.5,
  current_odometer: 15760, default_vehicle: false, created_at: '', updated_at: '', manual_md5s: ['a1', 'b2'],
};

const reminder: Reminder = {
  id: 9, vehicle_id: 3, title: 'Oil change', category: 'service', every_km: 15000, every_months: 12,
  last_done: { time: '2026-03-01T11:00:00Z', odometer: 40000 }, notes: '5W-30', soon_km: 1000, soon_days: 30,
  due_odometer: 55000, due_date: '2027-03-01', due_in_km: 3000, due_in_days: 80, status: 'ok', estimated_due_date: null,
};

describe('refuelAsBefore', () => {
  it('sends every member the edit form sends, with the stored digits', () => {
    const r = {
      id: 1, vehicle_id: 3, refuel_time: '2026-10-05T06:00:00Z', odometer: 16480.5, fuel_type: 'Diesel', energy: 'diesel', unit: 'l',
      liters: 41.234, total_amount: 71.5, price_per_liter: 1.734, station_name: 'Aral', is_full: true, missed_previous: false, remark: 'A2',
    } as RefuelRecord;
    expect(jsonWithDecimals(refuelAsBefore(r))).toBe(
      '{"refuel_time":"2026-10-05T06:00:00Z","odometer":16480.5,"liters":41.234,"energy":"diesel","fuel_type":"Diesel",' +
      '"missed_previous":false,"total_amount":71.5,"is_full":true,"station_name":"Aral","remark":"A2"}');
  });
});

describe('expenseAsBefore', () => {
  const e: Expense = {
    id: 4, vehicle_id: 3, time: '2026-11-30T09:15:00Z', odometer: 15500, category: 'service', title: 'Oil change',
    amount: 129.9, vendor: 'ATU', notes: 'filter too', items: [], tags: [],
  };
  it('puts back every field the form sends, its reading included', () => {
    expect(jsonWithDecimals(expenseAsBefore(e))).toBe(
      '{"time":"2026-11-30T09:15:00Z","category":"service","title":"Oil change","amount":129.9,"vendor":"ATU","notes":"filter too","odometer":15500}');
  });
  it('clears a reading the expense did not have (the edit may have added one)', () => {
    expect(expenseAsBefore({ ...e, odometer: null }).odometer).toBeNull();
  });
});

describe('reminderAsBefore', () => {
  it('leaves the last service alone when the edit did not send it', () => {
    const before = reminderAsBefore(reminder, { title: 'Oil', category: 'service', notes: '', every_months: 24 });
    expect(before).not.toBeNull();
    expect(jsonWithDecimals(before)).toBe('{"title":"Oil change","category":"service","notes":"5W-30","every_km":15000,"every_months":12}');
  });
  it('puts back the owner\'s own last service, or none', () => {
    const sent = { title: 'Oil change', last_done: { time: null, odometer: new Dec('41000') } };
    expect(reminderAsBefore(reminder, sent)?.last_done).toEqual({ time: '2026-03-01T11:00:00Z', odometer: new Dec('40000') });
    expect(reminderAsBefore({ ...reminder, last_done: null }, sent)?.last_done).toBeNull();
  });
  it('cannot undo a change to a last service answered from an expense', () => {
    const fromExpense = { ...reminder, last_done: { time: '2026-03-01T11:00:00Z', odometer: 40000, expense_id: 12 } };
    expect(reminderAsBefore(fromExpense, { last_done: null })).toBeNull();
    // The same reminder, edited elsewhere, still undoes.
    expect(reminderAsBefore(fromExpense, { title: 'Oil' })).not.toBeNull();
  });
});

describe('vehicleAsBefore', () => {
  const sent = { name: 'Golf GTD', brand: 'VW', model: 'Golf 8', plate_number: 'B-CH 2', fuel_type: 'diesel' as const, tank_capacity: new Dec('50.5'), default_vehicle: false };
  it('puts back the vehicle\'s fields, its manuals only when the form sent them', () => {
    expect(jsonWithDecimals(vehicleAsBefore(vehicle, sent))).toBe(
      '{"name":"Golf","brand":"VW","model":"Golf 8","plate_number":"B-CH 1","fuel_type":"diesel","tank_capacity":50.5,"default_vehicle":false}');
    expect(vehicleAsBefore(vehicle, { ...sent, manual_md5s: ['a1'] })?.manual_md5s).toEqual(['a1', 'b2']);
  });
  it('cannot undo a reading set, nor a default taken from another vehicle', () => {
    expect(vehicleAsBefore(vehicle, { ...sent, current_odometer: new Dec('16000') })).toBeNull();
    expect(vehicleAsBefore(vehicle, { ...sent, default_vehicle: true })).toBeNull();
    // Giving up the default is undone by taking it back.
    expect(vehicleAsBefore({ ...vehicle, default_vehicle: true }, sent)?.default_vehicle).toBe(true);
  });
});
