// Unit systems: the sets of units a country reads together, which Settings
// offers as one choice, and the rule by which a consumption unit follows a
// change of distance or volume (proto-docs/web-decisions.md, "Unit systems").
import type { ConsumptionUnit, DistanceUnit, ElectricConsumptionUnit, Units, VolumeUnit } from './units';

export type UnitSystem = 'metric' | 'us' | 'uk';
export const UNIT_SYSTEMS: UnitSystem[] = ['metric', 'us', 'uk'];

/**
 * The units of each system. The United Kingdom drives in miles and reads
 * mpg in imperial gallons, but its pumps sell litres: volume is litres.
 * No system has a miles-based gas unit (units.ts offers none), so gas is
 * kg per 100 km in all three, as the browser defaults choose it.
 */
export const SYSTEM_UNITS: Record<UnitSystem, Units> = {
  metric: { distance: 'km', volume: 'l', consumption: 'l_per_100km', electric: 'kwh_per_100km', gas: 'kg_per_100km' },
  us: { distance: 'mi', volume: 'gal_us', consumption: 'mpg_us', electric: 'mi_per_kwh', gas: 'kg_per_100km' },
  uk: { distance: 'mi', volume: 'l', consumption: 'mpg_uk', electric: 'mi_per_kwh', gas: 'kg_per_100km' },
};

/** systemOf: the system whose units are exactly these, or 'custom' when they match none. */
export function systemOf(u: Units): UnitSystem | 'custom' {
  for (const s of UNIT_SYSTEMS) {
    const x = SYSTEM_UNITS[s];
    if (x.distance === u.distance && x.volume === u.volume && x.consumption === u.consumption && x.electric === u.electric && x.gas === u.gas) return s;
  }
  return 'custom';
}

/**
 * fittingConsumption: the liquid-fuel consumption unit that belongs with a
 * distance and a volume. With km, a per-km unit: the one in use when it is
 * one (L/100 km or km/L), else L/100 km. With miles, mpg in the gallon of
 * the volume: US gallons read mpg (US), UK gallons mpg (UK), and litres
 * with miles are the United Kingdom's way, mpg (UK).
 */
export function fittingConsumption(distance: DistanceUnit, volume: VolumeUnit, current: ConsumptionUnit): ConsumptionUnit {
  if (distance === 'km') return current === 'l_per_100km' || current === 'km_per_l' ? current : 'l_per_100km';
  return volume === 'gal_us' ? 'mpg_us' : 'mpg_uk';
}

/** fittingElectric: the electric consumption unit that belongs with a distance (the one in use when it does). */
export function fittingElectric(distance: DistanceUnit, current: ElectricConsumptionUnit): ElectricConsumptionUnit {
  if (distance === 'mi') return 'mi_per_kwh';
  return current === 'mi_per_kwh' ? 'kwh_per_100km' : current;
}

export type UnitField = keyof Units;

/** A change of one unit and what followed it. */
export interface UnitChange {
  units: Units;
  /** The fields that changed to follow, in the order of Units (empty when none did). */
  followed: UnitField[];
}

/**
 * changeUnit sets one unit. A change of distance or volume is followed by
 * the consumption units that would otherwise belong to another system
 * (fittingConsumption; the electric one follows the distance alone,
 * fittingElectric): switching to miles with L/100 km and US gallons gives
 * mpg (US) and mi/kWh. A consumption unit chosen itself is kept
 * as chosen (any mix stays possible: Settings shows it as Custom), and gas
 * never follows (it has no miles-based unit).
 */
export function changeUnit<K extends UnitField>(u: Units, field: K, value: Units[K]): UnitChange {
  const next: Units = { ...u, [field]: value };
  const followed: UnitField[] = [];
  if (field === 'distance' || field === 'volume') {
    const consumption = fittingConsumption(next.distance, next.volume, next.consumption);
    if (consumption !== next.consumption) {
      next.consumption = consumption;
      followed.push('consumption');
    }
  }
  if (field === 'distance') {
    const electric = fittingElectric(next.distance, next.electric);
    if (electric !== next.electric) {
      next.electric = electric;
      followed.push('electric');
    }
  }
  return { units: next, followed };
}
