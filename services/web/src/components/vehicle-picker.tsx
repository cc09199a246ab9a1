// Which vehicle a form or a page is about: the picker, what shows when
// there is none yet, and the choice kept across a list's reloads.
import type { Vehicle } from '../api/fuel';
import { t } from '../i18n';
import { FieldMessage, type FormErrors } from './form-errors';

interface PickerProps {
  vehicles: Vehicle[];
  value: number | null;
  onChange: (id: number) => void;
  id?: string;
  /** The errors of the form it is part of (the service may refuse the vehicle). */
  form?: FormErrors;
}

export function VehiclePicker({ vehicles, value, onChange, id = 'vehicle', form }: PickerProps) {
  return (
    <div class="field">
      <label for={id}>{t('common.vehicle')}</label>
      <select id={id} value={value ?? ''} {...form?.control(id)} onChange={(e) => onChange(Number(e.currentTarget.value))}>
        {vehicles.map((v) => (
          <option key={v.id} value={v.id}>
            {v.name}
            {v.default_vehicle ? t('common.defaultSuffix') : ''}
          </option>
        ))}
      </select>
      {form && <FieldMessage form={form} id={id} />}
    </div>
  );
}

/** NoVehicle points to the Vehicles page when there is no vehicle yet. */
export function NoVehicle() {
  return <p>{t('common.noVehicleBefore')}<a href="/vehicles">{t('common.noVehicleLink')}</a>{t('common.noVehicleAfter')}</p>;
}

/** chooseVehicle keeps the chosen vehicle when it still exists, else the default, else the first. */
export function chooseVehicle(vehicles: Vehicle[] | undefined, chosen: number | null): number | null {
  if (!vehicles || vehicles.length === 0) return null;
  if (chosen !== null && vehicles.some((v) => v.id === chosen)) return chosen;
  return (vehicles.find((v) => v.default_vehicle) ?? vehicles[0])!.id;
}
