// Names of units, energies and fuel types in the interface's language.
import { t, type MessageKey } from '../i18n';
import type { Energy, EnergyUnit, FuelType } from './energy';
import { fmtNumber } from './format';
import { consumptionUnitOf, kmToDistance, PLACES, type Units } from './units';

export function distanceLabel(u: Units): string {
  return t(`unit.${u.distance}`);
}

/** fmtDistance: kilometers in the owner's distance unit, with its label. */
export function fmtDistance(km: number | string, u: Units): string {
  return `${fmtNumber(kmToDistance(km, u), PLACES.distance)} ${distanceLabel(u)}`;
}

/** quantityLabel: the unit of an energy's quantity as the owner reads it (liters follow the volume unit). */
export function quantityLabel(energyUnit: EnergyUnit, u: Units): string {
  return energyUnit === 'l' ? t(`unit.${u.volume}`) : t(`unit.${energyUnit}`);
}

export function consumptionLabel(energyUnit: EnergyUnit, u: Units): string {
  return t(`unit.${consumptionUnitOf(energyUnit, u)}` as MessageKey);
}

export function energyName(e: Energy): string {
  return t(`energy.${e}`);
}

export function fuelTypeName(f: FuelType): string {
  return t(`fuelType.${f}`);
}
