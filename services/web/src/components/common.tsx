import type { ComponentChildren } from 'preact';
import { fmtDateTime } from '../lib/format';
import type { Vehicle } from '../api/fuel';
import { fileUrl, openFile } from '../api/docqa';
import { t } from '../i18n';

/** AsOf marks data that is a snapshot. */
export function AsOf({ asOf }: { asOf: string | null }) {
  if (!asOf) return null;
  return (
    <p class="asof" role="status">
      {t('common.asOf', { when: fmtDateTime(asOf) })}
    </p>
  );
}

/** ErrorText shows what went wrong; id lets the input it is about point to it (aria-describedby). */
/** ErrorText shows an error; beside a field (field set), only what it says of that field, without the field's name. */
export function ErrorText({ error, id, field }: { error: Error | string | null | undefined; id?: string; field?: string }) {
  if (!error) return null;
  const message = typeof error === 'string' ? error : error.message;
  return (
    <p class="error" role="alert" id={id}>
      {field === undefined ? message : messageFor(message, field)}
    </p>
  );
}

/**
 * messageFor: the parts of a service's message that name field, without
 * the name ("does not match" of "current_password: does not match"); the
 * whole message when no part names it.
 */
export function messageFor(message: string, field: string): string {
  const prefix = `${field}: `;
  const parts = message.split('; ').filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
  return parts.length > 0 ? parts.join('; ') : message;
}

/**
 * fieldNamed: which of a form's fields a service's message is about, the
 * first it names (null: none of them). Its messages about input start with
 * the field's name ("current_password: does not match"), several joined by
 * "; ". The form shows the message beside that field.
 */
export function fieldNamed<F extends string>(message: string | null, fields: readonly F[]): F | null {
  for (const part of message?.split('; ') ?? []) {
    const f = fields.find((name) => part.startsWith(`${name}: `));
    if (f !== undefined) return f;
  }
  return null;
}

/** Badge: a short mark after a heading's name ("default", "you"), set off by a space for screen readers too. */
export function Badge({ children }: { children: ComponentChildren }) {
  return <>{' '}<span class="badge">{children}</span></>;
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
      <label for={id}>{t('common.vehicle')}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(Number(e.currentTarget.value))}>
        {vehicles.map((v) => (
          <option key={v.id} value={v.id}>
            {v.name}
            {v.default_vehicle ? t('common.defaultSuffix') : ''}
          </option>
        ))}
      </select>
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

interface DocumentLinkProps {
  md5: string;
  page: number;
  /** The file's name, for the new tab and the error message. */
  name: string;
  /** With accounts (AUTH_MODE=local) the file is fetched with the token (openFile); without, the link is a plain one. */
  withToken: boolean;
  /** Called with null when an opening starts, and with what went wrong if it fails. */
  onError: (message: string | null) => void;
  class?: string;
  children: ComponentChildren;
}

/** DocumentLink opens a document's original PDF at a page in a new tab. */
export function DocumentLink({ md5, page, name, withToken, onError, class: cls, children }: DocumentLinkProps) {
  const open = (e: MouseEvent) => {
    if (!withToken) return;
    e.preventDefault();
    onError(null);
    openFile(md5, page, name).catch((err: Error) => onError(t('common.couldNotOpen', { name, message: err.message })));
  };
  return (
    <a class={cls} href={fileUrl(md5, page)} target="_blank" rel="noopener" onClick={open}
      onAuxClick={(e) => {
        if (e.button === 1) open(e); // the middle button, which would open the plain link
      }}>{children}</a>
  );
}
