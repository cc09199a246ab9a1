// Typed client of fuel-service (proto-docs/fuel-service.openapi.yaml).
import { request } from './http';
import { jsonWithDecimals, type Dec } from '../lib/decimal';

import type { Energy, EnergyUnit, FuelType } from '../lib/energy';

export { ENERGIES, FUEL_TYPES, type Energy, type EnergyUnit, type FuelType } from '../lib/energy';

export interface Vehicle {
  id: number;
  name: string;
  brand: string;
  model: string;
  plate_number: string;
  fuel_type: FuelType;
  tank_capacity: number;
  current_odometer: number;
  default_vehicle: boolean;
  created_at: string;
  updated_at: string;
  /** What the signed-in user may do with it; absent in snapshots from a service before roles (then the owner's). */
  role?: Role;
  /** The currency of its amounts: its owner's (null: the owner chose none); absent in older snapshots. */
  currency?: string | null;
  /** The docqa documents (fileMd5) that are its manuals, in the owner's order; absent in older snapshots. */
  manual_md5s?: string[];
}

/** Role: the vehicle's owner, or a member it is shared with (AUTH_MODE=local). */
export type Role = 'owner' | 'editor' | 'viewer';
export type MemberRole = Exclude<Role, 'owner'>;

/** owns: the user may change, share and delete the vehicle. */
export const owns = (v: Vehicle) => (v.role ?? 'owner') === 'owner';
/**
 * currencyOf: the currency of a vehicle's amounts. Its owner's: for the user's own vehicles the
 * user's currency in force (mine; a vehicle read before a change still says the old one), for a
 * shared one the owner's, as the vehicle says.
 */
export const currencyOf = (v: Vehicle | undefined, mine: string): string => (v && !owns(v) && v.currency) || mine;
/** canWriteRefuels: the user may add, change and delete the vehicle's refuels (not a viewer). */
export const canWriteRefuels = (v: Vehicle) => v.role !== 'viewer';

export interface Member {
  user_id: number;
  username: string;
  role: MemberRole;
  created_at: string;
}

export interface VehicleFields {
  name?: string;
  brand?: string;
  model?: string;
  plate_number?: string;
  fuel_type?: FuelType;
  tank_capacity?: Dec;
  current_odometer?: Dec;
  default_vehicle?: boolean;
  manual_md5s?: string[];
}

export interface RefuelRecord {
  id: number;
  vehicle_id: number;
  refuel_time: string;
  odometer: number;
  fuel_type: string;
  energy: Energy;
  unit: EnergyUnit;
  liters: number;
  total_amount: number;
  price_per_liter: number;
  station_name: string;
  is_full: boolean;
  missed_previous: boolean;
  remark: string;
  /** Paid in another currency than the home one (null: the home currency); absent in older snapshots. */
  currency?: string | null;
  /** What was charged in the home currency when currency is set. */
  home_amount?: number | null;
  created_at: string;
  updated_at: string;
}

/** RefuelInput: the creation fields; quantities are exact decimals. */
export interface RefuelInput {
  vehicle_id: number;
  refuel_time: string;
  odometer: Dec;
  fuel_type: string;
  energy: Energy;
  liters: Dec;
  total_amount: Dec;
  station_name: string;
  is_full: boolean;
  missed_previous: boolean;
  remark: string;
  /** Only for a refuel paid in another currency: that currency and what the home currency was charged. */
  currency?: string;
  home_amount?: Dec;
}

/** CurrencyChange: POST /api/preferences/currency (relabel, or convert at rate: new units per old unit). */
export interface CurrencyChange {
  from: string;
  currency: string;
  mode: 'relabel' | 'convert';
  rate?: Dec;
  /** Instead of rate: old units per new unit (amounts are divided by it), the rate of the change being undone. */
  inverse_rate?: Dec;
}

export interface CurrencyChangeResult {
  mode: 'relabel' | 'convert';
  from: string;
  currency: string;
  vehicles: number;
  refuels: number;
  /** The expenses converted (0 for a relabel). */
  expenses: number;
  /** The rate of a conversion, whichever of the two was given (the other is null). */
  rate?: number | null;
  inverse_rate?: number | null;
}

/** CurrencyConversion: the last conversion of the currency, as it was asked for (rate or inverse_rate, the other null). */
export interface CurrencyConversion {
  from: string;
  to: string;
  rate: number | null;
  inverse_rate: number | null;
  /** When it was made (RFC 3339). */
  at: string;
}

export interface EnergyStatistics {
  energy: Energy;
  unit: EnergyUnit;
  total_records: number;
  total_quantity: number;
  total_amount: number;
  avg_price: number;
  avg_consumption: number;
  weighted_consumption: number;
  cost_per_km: number;
  /** Absent in statistics cached from a service older than the field. */
  weighted_cost_per_km?: number;
  consumption_samples: number;
  /** km the weighted figures are over (every km driven between this energy's full records); absent from an older service. */
  sampled_distance?: number;
}

export interface Statistics {
  vehicle_id: number;
  total_records: number;
  total_liters: number;
  total_amount: number;
  avg_price: number;
  avg_consumption: number;
  cost_per_km: number;
  last_refuel: RefuelRecord | null;
  total_distance: number;
  weighted_consumption: number;
  weighted_cost_per_km?: number;
  consumption_samples: number;
  first_refuel_time: string | null;
  last_refuel_time: string | null;
  main_energy: Energy | null;
  by_energy: EnergyStatistics[];
  /** Absent from an older service (statistics cached offline). */
  sampled_distance?: number;
  /** Every energy's money per km driven, added up; 0 while an energy has no sample. */
  combined_cost_per_km?: number;
  // The whole cost (absent from a service before expenses, and in statistics cached from one).
  /** The money of every expense (service, repairs, insurance, …). */
  expenses_amount?: number;
  expenses_by_category?: ExpensesByCategory;
  /** Fuel and expenses. */
  total_cost?: number;
  /** total_cost over total_distance; 0 without a distance. */
  total_cost_per_km?: number;
}

/** The money of the expenses per category: a map, or a list of pairs. */
export type ExpensesByCategory = Record<string, number> | { category: string; amount: number }[];

export interface MonthStatistics {
  month: string;
  energy: Energy;
  unit: EnergyUnit;
  records: number;
  liters: number;
  amount: number;
  avg_price: number;
  distance: number;
  consumption: number;
  /** The month's expenses (absent from a service before expenses). */
  expenses_amount?: number;
}

export interface ImportResult {
  imported: number;
  skipped: number;
  rows: number;
  dry_run: boolean;
  /** The text encoding the file was read in (WHATWG name: utf-8, windows-1252, gb18030, ...). */
  encoding: string;
}

export interface ImportErrorBody {
  code: string;
  message: string;
  rows?: number;
  bad_rows?: number;
  errors?: { row: number; reason: string }[];
}

/** The unit of an energy's quantity, as the service names it (lib/energy.ts, where lib/ reads it too). */
export { unitOf } from '../lib/energy';

/** The default energy of a vehicle, as the service chooses it. */
export function defaultEnergy(fuel: FuelType): Energy {
  if (fuel === 'electric') return 'electricity';
  if (fuel === 'diesel') return 'diesel';
  return 'gasoline';
}

// The names of energies and fuel types are in the catalogues (src/i18n; lib/labels.ts).

const id = (n: number) => encodeURIComponent(String(n));

export const paths = {
  vehicles: '/api/vehicles',
  vehicle: (v: number) => `/api/vehicles/${id(v)}`,
  refuels: (vehicle: number) => `/api/refuels?vehicle_id=${id(vehicle)}`,
  lastRefuel: (vehicle: number) => `/api/refuels?vehicle_id=${id(vehicle)}&limit=1`,
  refuel: (r: number) => `/api/refuels/${id(r)}`,
  createRefuel: '/api/refuels',
  statistics: (v: number) => `/api/vehicles/${id(v)}/statistics`,
  monthly: (v: number, energy: Energy, tz: string) =>
    `/api/vehicles/${id(v)}/statistics/monthly?energy=${encodeURIComponent(energy)}&tz=${encodeURIComponent(tz)}`,
  /** The refuels as CSV, times written in the zone tz (the owner's: the service's own preference may not be saved yet). */
  csv: (v: number, tz: string) => `/api/vehicles/${id(v)}/refuels.csv?tz=${encodeURIComponent(tz)}`,
  /** The same file for a spreadsheet program (byte order mark; semicolons and decimal commas where the owner's language writes them). */
  csvSpreadsheet: (v: number, tz: string) => `/api/vehicles/${id(v)}/refuels.csv?spreadsheet=true&tz=${encodeURIComponent(tz)}`,
  /** tz: the zone of times the file writes without an offset (the owner's). */
  import: (v: number, dryRun: boolean, tz: string) => `/api/vehicles/${id(v)}/refuels/import?dry_run=${dryRun ? 'true' : 'false'}&tz=${encodeURIComponent(tz)}`,
};

export const fuel = {
  createVehicle: (v: VehicleFields) => request<Vehicle>('POST', paths.vehicles, { body: jsonWithDecimals(v) }),
  updateVehicle: (vid: number, v: VehicleFields) => request<Vehicle>('PUT', paths.vehicle(vid), { body: jsonWithDecimals(v) }),
  deleteVehicle: (vid: number) => request<void>('DELETE', paths.vehicle(vid)),
  makeDefault: (vid: number) => request<Vehicle>('POST', `${paths.vehicle(vid)}/default`),
  members: (vid: number) => request<Member[]>('GET', `${paths.vehicle(vid)}/members`),
  /** share: with the user of that name, or a new role for that member (the owner only). */
  share: (vid: number, username: string, role: MemberRole) =>
    request<Member>('POST', `${paths.vehicle(vid)}/members`, { body: JSON.stringify({ username, role }) }),
  unshare: (vid: number, userId: number) => request<void>('DELETE', `${paths.vehicle(vid)}/members/${id(userId)}`),
  updateRefuel: (rid: number, r: Partial<RefuelInput>) => request<RefuelRecord>('PUT', paths.refuel(rid), { body: jsonWithDecimals(r) }),
  deleteRefuel: (rid: number) => request<void>('DELETE', paths.refuel(rid)),
  /** refuelBefore: the vehicle's refuel at or just before the time, in a list of at most one. */
  refuelBefore: (vid: number, at: string) =>
    request<RefuelRecord[]>('GET', `${paths.refuels(vid)}&end_date=${encodeURIComponent(at)}&limit=1`),
  /** changeCurrency: with a key made once per confirmation, so a resend after a lost answer is replayed, never run twice. */
  changeCurrency: (c: CurrencyChange, key: string) =>
    request<CurrencyChangeResult>('POST', '/api/preferences/currency', { body: jsonWithDecimals(c), headers: { 'Idempotency-Key': key } }),
  /** The last conversion of the currency the service keeps for its undo (null: none to undo), read fresh: it needs a connection. */
  lastCurrencyChange: () =>
    request<{ last_currency_change?: CurrencyConversion | null }>('GET', '/api/preferences').then((p) => p.last_currency_change ?? null),
  importCsv: (vid: number, file: File, dryRun: boolean, tz: string) => {
    const form = new FormData();
    form.append('file', file);
    return request<ImportResult>('POST', paths.import(vid, dryRun, tz), { body: form });
  },
};
