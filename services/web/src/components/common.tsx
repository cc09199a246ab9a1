import type { ComponentChildren } from 'preact';
import { fmtDateTime } from '../lib/format';
import type { Vehicle } from '../api/fuel';

/** AsOf marks data that is a snapshot. */
export function AsOf({ asOf }: { asOf: string | null }) {
  if (!asOf) return null;
  return (
    <p class="asof" role="status">
      Offline: showing the data as of {fmtDateTime(asOf)}
    </p>
  );
}

export function ErrorText({ error }: { error: Error | string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {typeof error === 'string' ? error : error.message}
    </p>
  );
}

export function Status({ children }: { children: ComponentChildren }) {
  return (
    <p class="status" role="status">
      {children}
    </p>
  );
}

interface PickerProps {
  vehicles: Vehicle[];
  value: number | null;
  onChange: (id: number) => void;
  id?: string;
}

export function VehiclePicker({ vehicles, value, onChange, id = 'vehicle' }: PickerProps) {
  return (
    <div class="field">
      <label for={id}>Vehicle</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(Number(e.currentTarget.value))}>
        {vehicles.map((v) => (
          <option key={v.id} value={v.id}>
            {v.name}
            {v.default_vehicle ? ' (default)' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

/** chooseVehicle keeps the chosen vehicle when it still exists, else the default, else the first. */
export function chooseVehicle(vehicles: Vehicle[] | undefined, chosen: number | null): number | null {
  if (!vehicles || vehicles.length === 0) return null;
  if (chosen !== null && vehicles.some((v) => v.id === chosen)) return chosen;
  return (vehicles.find((v) => v.default_vehicle) ?? vehicles[0])!.id;
}
