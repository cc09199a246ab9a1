// The owner's measures: every conversion between the contract's metric
// units (km, L, kWh, kg) and the units the owner chose, in big.js with the
// exact factors (1 mi = 1.609344 km, 1 US gal = 3.785411784 L, 1 UK gal =
// 4.54609 L). Input goes to metric rounded to the scale the service stores
// (3 places); a value for display comes back exact (not rounded), and only
// the formatter (lib/format.ts) rounds it, once, to the places of its measure
// (PLACES below), so no figure is rounded and then converted or rounded
// again. A form's field asks for the stored precision (3 places); since a
// stored value is off by at most 0.0005 metric units, i.e. less than 0.0005
// owner units for every factor >= 1, a value typed with up to 3 decimals
// reads back exactly (12 345 mi stays 12 345 mi). Consumptions expressed as
// distance per quantity (mpg, km/L, mi/kWh, km/kg) are the inverse of the
// service's own averages, never averaged anew.
import Big from 'big.js';
import { canonical } from './decimal';
import type { EnergyUnit } from './energy';

export type DistanceUnit = 'km' | 'mi';
export type VolumeUnit = 'l' | 'gal_us' | 'gal_uk';
export type ConsumptionUnit = 'l_per_100km' | 'km_per_l' | 'mpg_us' | 'mpg_uk';
export type ElectricConsumptionUnit = 'kwh_per_100km' | 'km_per_kwh' | 'mi_per_kwh';
export type GasConsumptionUnit = 'kg_per_100km' | 'km_per_kg';
export type AnyConsumptionUnit = ConsumptionUnit | ElectricConsumptionUnit | GasConsumptionUnit;

export const DISTANCE_UNITS: DistanceUnit[] = ['km', 'mi'];
export const VOLUME_UNITS: VolumeUnit[] = ['l', 'gal_us', 'gal_uk'];
export const CONSUMPTION_UNITS: ConsumptionUnit[] = ['l_per_100km', 'km_per_l', 'mpg_us', 'mpg_uk'];
export const ELECTRIC_CONSUMPTION_UNITS: ElectricConsumptionUnit[] = ['kwh_per_100km', 'km_per_kwh', 'mi_per_kwh'];
export const GAS_CONSUMPTION_UNITS: GasConsumptionUnit[] = ['kg_per_100km', 'km_per_kg'];

/** The units an owner reads, one per kind of measure. */
export interface Units {
  distance: DistanceUnit;
  volume: VolumeUnit;
  consumption: ConsumptionUnit;
  electric: ElectricConsumptionUnit;
  gas: GasConsumptionUnit;
}

export const METRIC: Units = { distance: 'km', volume: 'l', consumption: 'l_per_100km', electric: 'kwh_per_100km', gas: 'kg_per_100km' };

/** The exact factors: metric units per owner unit. */
export const KM_PER_MI = new Big('1.609344');
export const L_PER: Record<VolumeUnit, Big> = { l: new Big(1), gal_us: new Big('3.785411784'), gal_uk: new Big('4.54609') };

/** The scale the service stores odometers and quantities with (numeric(14,3)). */
export const STORED_PLACES = 3;

/**
 * Display places of each measure, fixed: every figure of a measure shows
 * this many decimals (services/web/README.md, "Figures"). Money is not here:
 * it has its currency's minor units (lib/format.ts fmtMoney), a price per
 * unit one more, a cost per distance two more.
 */
export const PLACES = {
  odometer: 0,
  distance: 0,
  quantity: 2,
} as const;

/** Places shown for each consumption unit (mpg as pumps and brochures give it, with one). */
export const CONSUMPTION_PLACES: Record<AnyConsumptionUnit, number> = {
  l_per_100km: 2, km_per_l: 2, mpg_us: 1, mpg_uk: 1,
  kwh_per_100km: 2, km_per_kwh: 2, mi_per_kwh: 2,
  kg_per_100km: 2, km_per_kg: 2,
};

type Num = number | string | Big;
const big = (v: Num): Big => (v instanceof Big ? v : new Big(v));
/** r: v rounded half-up to places, or exact when places is undefined (a figure for display). */
const r = (v: Big, places?: number): string => canonical(places === undefined ? v : v.round(places, Big.roundHalfUp));

/** distanceFactor: km per owner distance unit. */
function distanceFactor(u: DistanceUnit): Big {
  return u === 'mi' ? KM_PER_MI : new Big(1);
}

/**
 * quantityFactor: metric units (L, kWh, kg) per owner unit of the energy's
 * quantity. Only liters follow the volume preference; kWh and kg are kept.
 */
export function quantityFactor(energyUnit: EnergyUnit, units: Units): Big {
  return energyUnit === 'l' ? L_PER[units.volume] : new Big(1);
}

/** distanceToKm: a distance typed in the owner's unit, as the km to send (3 places). */
export function distanceToKm(value: string, units: Units): string {
  return r(big(value).times(distanceFactor(units.distance)), STORED_PLACES);
}

/** kmToDistance: km from the service in the owner's unit, rounded to places (exact without). */
export function kmToDistance(km: Num, units: Units, places?: number): string {
  return r(big(km).div(distanceFactor(units.distance)), places);
}

/** quantityToMetric: a quantity typed in the owner's unit, as the metric quantity to send (3 places). */
export function quantityToMetric(value: string, energyUnit: EnergyUnit, units: Units): string {
  return r(big(value).times(quantityFactor(energyUnit, units)), STORED_PLACES);
}

/** metricToQuantity: a metric quantity from the service in the owner's unit, rounded to places (exact without). */
export function metricToQuantity(q: Num, energyUnit: EnergyUnit, units: Units, places?: number): string {
  return r(big(q).div(quantityFactor(energyUnit, units)), places);
}

/** pricePerOwnerUnit: a price per metric unit (an average of the service) as a price per owner unit, exact. */
export function pricePerOwnerUnit(pricePerMetric: Num, energyUnit: EnergyUnit, units: Units, places?: number): string {
  return r(big(pricePerMetric).times(quantityFactor(energyUnit, units)), places);
}

/**
 * recordPrice: the unit price of one record in the owner's unit, computed as
 * the service defines it (total / quantity) from the stored total and the
 * quantity, so a price typed per gallon reads back without the 4-place
 * rounding of price_per_liter multiplied by the factor; exact (rounded to 20
 * places, big.js's DP), for the formatter to round. null for no quantity.
 */
export function recordPrice(total: Num, metricQuantity: Num, energyUnit: EnergyUnit, units: Units, places?: number): string | null {
  const q = big(metricQuantity);
  if (q.lte(0)) return null;
  return r(big(total).div(q).times(quantityFactor(energyUnit, units)), places);
}

/** costPerDistance: the service's cost per km as cost per owner distance unit, exact. */
export function costPerDistance(perKm: Num, units: Units, places?: number): string {
  return r(big(perKm).times(distanceFactor(units.distance)), places);
}

/** consumptionUnitOf: which preference applies to an energy's quantity unit. */
export function consumptionUnitOf(energyUnit: EnergyUnit, units: Units): AnyConsumptionUnit {
  if (energyUnit === 'kWh') return units.electric;
  if (energyUnit === 'kg') return units.gas;
  return units.consumption;
}

const HUNDRED = new Big(100);

/**
 * inverseConstant: for a distance-per-quantity unit, the constant K with
 * value = K / (metric quantity per 100 km); null for quantity-per-distance
 * units (value = metric value). mpg US: 100 x 3.785411784 / 1.609344 =
 * 235.2145833...; mpg UK: 282.4809363...; mi/kWh: 62.1371192...
 */
export function inverseConstant(u: AnyConsumptionUnit): Big | null {
  switch (u) {
    case 'l_per_100km':
    case 'kwh_per_100km':
    case 'kg_per_100km':
      return null;
    case 'km_per_l':
    case 'km_per_kwh':
    case 'km_per_kg':
      return HUNDRED;
    case 'mpg_us':
      return HUNDRED.times(L_PER.gal_us).div(KM_PER_MI);
    case 'mpg_uk':
      return HUNDRED.times(L_PER.gal_uk).div(KM_PER_MI);
    case 'mi_per_kwh':
      return HUNDRED.div(KM_PER_MI);
  }
}

/**
 * convertConsumption: the service's consumption (metric quantity per 100 km:
 * L, kWh or kg) in the owner's unit, exact (the formatter rounds it to
 * CONSUMPTION_PLACES), or rounded half-up to places with those places
 * written ("30.0"). null when there is nothing to convert (0: no sample).
 */
export function convertConsumption(per100km: Num, u: AnyConsumptionUnit, places?: number): string | null {
  const c = big(per100km);
  if (c.lte(0)) return null;
  const k = inverseConstant(u);
  const v = k ? k.div(c) : c;
  return places === undefined ? canonical(v) : v.round(places, Big.roundHalfUp).toFixed(places);
}
