// What App hands the vehicle pages: the vehicles, the chosen one and the
// user. A module of its own, so that pages import nothing of App (which
// imports them).
import type { Vehicle } from '../api/fuel';
import type { User } from '../api/session';

export interface VehicleContext {
  vehicles: Vehicle[] | undefined;
  vehiclesAsOf: string | null;
  vehiclesError: Error | null;
  reloadVehicles: () => void;
  chosen: number | null;
  choose: (id: number) => void;
  /** The signed-in user (null with accounts off). */
  user: User | null;
}
