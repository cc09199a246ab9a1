import type { ComponentChildren } from 'preact';
import { fmtDateTime } from '../lib/format';
import type { Vehicle } from '../api/fuel';
import { fileUrl, openFile } from '../api/docqa';
import { t } from '../i18n';
import { FieldMessage, type FormErrors } from './form-errors';

/** AsOf marks data that is a snapshot. */
export function AsOf({ asOf }: { asOf: string | null }) {
  if (!asOf) return null;
  return (
    <p class="asof" role="status">
      {t('common.asOf', { when: fmtDateTime(asOf) })}
    </p>
  );
}

/** ErrorText shows what went wrong (a form's errors show in its ErrorSummary and beside its fields: components/form-errors.tsx). */
export function ErrorText({ error }: { error: Error | string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {typeof error === 'string' ? error : error.message}
    </p>
  );
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

/** What a receipt's scan filled: each field's mark (until the owner changes it) and the marks' words (lib/receipts.ts). */
export interface ReadMarks {
  marks: Record<string, 'read' | 'unsure'>;
  words: { read: string; unsure: string };
}

export const NO_MARKS: ReadMarks = { marks: {}, words: { read: '', unsure: '' } };

/** unmark: the marks without those of ids (the owner changed those fields). */
export function unmark(r: ReadMarks, ...ids: string[]): ReadMarks {
  return ids.some((i) => i in r.marks) ? { ...r, marks: Object.fromEntries(Object.entries(r.marks).filter(([k]) => !ids.includes(k))) } : r;
}

/** fieldClass: a field's class, with its mark ("field read", "field unsure"). */
export const fieldClass = (r: ReadMarks, id: string) => `field ${r.marks[id] ?? ''}`.trim();

/** markId: the id of the mark under field id, for its aria-describedby (undefined when not marked). */
export const markId = (r: ReadMarks, id: string) => (r.marks[id] ? `${id}-read` : undefined);

/** ReadMark: "Read from the receipt" under a field the scan filled; an unsure reading says to check it. */
export function ReadMark({ r, id }: { r: ReadMarks; id: string }) {
  const m = r.marks[id];
  if (!m) return null;
  return <p id={`${id}-read`} class={`read-mark ${m}`}>{m === 'unsure' ? r.words.unsure : r.words.read}</p>;
}
