// What an edit form's Undo sends: the members the form sends, as the record
// held them before the edit, so that one PUT of them puts the record back
// exactly (the stored decimals as the API wrote them, the time as it was).
// Where the record as answered does not hold what the owner had stored (a
// vehicle's reading that a refuel's outgrew, a reminder's last service taken
// from an expense, the default that moved from another vehicle), no PUT can
// restore it: those answer null, and the confirmation offers Edit instead.
import type { RefuelInput, RefuelRecord, Vehicle, VehicleFields } from './fuel';
import type { Expense, ExpenseInput, Reminder, ReminderInput } from './costs';
import { Dec } from '../lib/decimal';

/** dec: a number from the API as a Dec, with the digits it was written with. */
function dec(n: number): Dec {
  return new Dec(String(n));
}

/** refuelAsBefore: what History's edit form sends, as the refuel held it. */
export function refuelAsBefore(record: RefuelRecord): Partial<RefuelInput> {
  return {
    refuel_time: record.refuel_time,
    odometer: dec(record.odometer),
    liters: dec(record.liters),
    energy: record.energy, fuel_type: record.fuel_type,
    missed_previous: record.missed_previous,
    total_amount: dec(record.total_amount),
    is_full: record.is_full, station_name: record.station_name, remark: record.remark,
  };
}

/** expenseAsBefore: what the expense form sends, as the expense held it (its reading, or none). */
export function expenseAsBefore(record: Expense): Partial<ExpenseInput> {
  return {
    time: record.time, category: record.category, title: record.title, amount: dec(record.amount),
    vendor: record.vendor, notes: record.notes, odometer: record.odometer === null ? null : dec(record.odometer),
  };
}

/**
 * reminderAsBefore: what the reminder form sent, as the reminder held it;
 * null when the form changed a last service the reminder answered from an
 * expense (the owner's own, hidden behind it, is not known here).
 */
export function reminderAsBefore(record: Reminder, sent: ReminderInput): ReminderInput | null {
  const before: ReminderInput = {
    title: record.title, category: record.category, notes: record.notes,
    every_km: record.every_km === null ? null : dec(record.every_km),
    every_months: record.every_months,
  };
  if (sent.last_done === undefined) return before;
  const done = record.last_done;
  if (done === null) return { ...before, last_done: null };
  if (done.expense_id != null) return null;
  return { ...before, last_done: { time: done.time, odometer: done.odometer === null ? null : dec(done.odometer) } };
}

/**
 * vehicleAsBefore: what the vehicle form sent, as the vehicle held it; null
 * when the form set the reading (the one answered may be a refuel's, not the
 * owner's) or made it the default (which another vehicle was).
 */
export function vehicleAsBefore(vehicle: Vehicle, sent: VehicleFields): VehicleFields | null {
  if (sent.current_odometer !== undefined) return null;
  if (sent.default_vehicle && !vehicle.default_vehicle) return null;
  return {
    name: vehicle.name, brand: vehicle.brand, model: vehicle.model, plate_number: vehicle.plate_number,
    fuel_type: vehicle.fuel_type, tank_capacity: dec(vehicle.tank_capacity), default_vehicle: vehicle.default_vehicle,
    ...(sent.manual_md5s !== undefined ? { manual_md5s: vehicle.manual_md5s ?? [] } : {}),
  };
}
