// A car's specifications as the owner reads them: tyre pressures in the
// owner's pressure unit, converted in big.js with the exact factors (1 bar =
// 100 kPa; 1 psi = 1 lbf/in² = 4.4482216152605 N / 0.00064516 m²), rounded
// once for display; every other quantity as the manual printed it. The app
// has no pressure preference: the unit follows the distance unit (miles:
// psi, as US and UK tyre placards and pumps read; km: bar).
// proto-docs/web-decisions.md, "Specifications card".
import Big from 'big.js';
import { canonical } from './decimal';
import type { Units } from './units';

export type PressureUnit = 'bar' | 'kPa' | 'psi';
export const PRESSURE_UNITS: PressureUnit[] = ['bar', 'kPa', 'psi'];

/** The keys docqa answers, in its order (proto-docs/docqa-specifications-decisions.md). */
export const SPEC_KEYS = [
  'engine_oil_grade', 'engine_oil_capacity',
  'tyre_pressure_front', 'tyre_pressure_rear', 'tyre_pressure_front_full_load', 'tyre_pressure_rear_full_load',
  'fuel_grade', 'coolant', 'adblue', 'wheel_bolt_torque', 'battery',
] as const;
export type SpecKey = (typeof SPEC_KEYS)[number];

/** isSpecKey: whether docqa's key is one the app has a label for (a newer service may answer more). */
export function isSpecKey(key: string): key is SpecKey {
  return (SPEC_KEYS as readonly string[]).includes(key);
}

/** Pascals per unit, exact: a psi is a pound-force (4.4482216152605 N) on a square inch (0.00064516 m²). */
const PA_PER: Record<PressureUnit, Big> = {
  bar: new Big(100_000),
  kPa: new Big(1_000),
  psi: new Big('4.4482216152605').div('0.00064516'),
};

/** Places shown for each pressure unit: whole psi and kPa, bar to a tenth, as placards print them. */
export const PRESSURE_PLACES: Record<PressureUnit, number> = { bar: 1, kPa: 0, psi: 0 };

/** pressureUnitOf: the owner's pressure unit: psi with miles, bar with km. */
export function pressureUnitOf(u: Units): PressureUnit {
  return u.distance === 'mi' ? 'psi' : 'bar';
}

export function isPressureUnit(unit: string): unit is PressureUnit {
  return (PRESSURE_UNITS as string[]).includes(unit);
}

/** convertPressure: quantity (a decimal string) from one unit to another, exact (rounded to 20 places). */
export function convertPressure(quantity: string, from: PressureUnit, to: PressureUnit): string {
  if (from === to) return canonical(new Big(quantity));
  return canonical(new Big(quantity).times(PA_PER[from]).div(PA_PER[to]));
}

/** What of an item (api/docqa's SpecificationItem) the display needs. */
interface Item {
  value: string;
  quantity: string | null;
  unit: string;
}

/**
 * Shown: an item as the owner reads it. converted is null when the value is
 * shown as printed; else the quantity in unit, rounded half-up to places, with
 * printed beside it (the manual's own text is never hidden).
 */
export type Shown =
  | { printed: string; converted: null }
  | { printed: string; converted: { quantity: string; unit: PressureUnit; places: number } };

/** shownValue: a pressure printed in another unit than the owner's is converted; anything else is as printed. */
export function shownValue(item: Item, owner: PressureUnit): Shown {
  if (item.quantity === null || !isPressureUnit(item.unit) || item.unit === owner) return { printed: item.value, converted: null };
  const places = PRESSURE_PLACES[owner];
  const exact = new Big(convertPressure(item.quantity, item.unit, owner));
  return { printed: item.value, converted: { quantity: exact.round(places, Big.roundHalfUp).toFixed(places), unit: owner, places } };
}
