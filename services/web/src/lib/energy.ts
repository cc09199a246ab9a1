// The vehicles' and refuels' kinds of fuel and energy, as fuel-service names
// them (proto-docs/fuel-service.openapi.yaml). They live in lib/ so that
// formatting and units need nothing of api/, which depends on lib/.
export type FuelType = 'gasoline' | 'diesel' | 'hybrid' | 'electric' | 'plug_in_hybrid';
export const FUEL_TYPES: FuelType[] = ['gasoline', 'diesel', 'hybrid', 'electric', 'plug_in_hybrid'];
export type Energy = 'gasoline' | 'diesel' | 'lpg' | 'cng' | 'electricity' | 'hydrogen';
export const ENERGIES: Energy[] = ['gasoline', 'diesel', 'lpg', 'cng', 'electricity', 'hydrogen'];
export type EnergyUnit = 'l' | 'kWh' | 'kg';

/** The unit of an energy's quantity, as the service names it. */
export function unitOf(energy: Energy): EnergyUnit {
  if (energy === 'electricity') return 'kWh';
  if (energy === 'cng' || energy === 'hydrogen') return 'kg';
  return 'l';
}
