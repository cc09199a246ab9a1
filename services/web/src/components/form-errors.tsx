// A form's errors the way the GOV.UK Design System shows them: a summary at
// the top of the form listing each error as a link to its field, and the
// same message beside the field (aria-invalid, aria-describedby). After a
// failed submit the first bad field takes the focus, scrolled clear of the
// sticky header and the bottom bar (styles.css scroll-margin). One shared
// way for every form: Add refuel, History's edit form, the vehicle form,
// Settings and Account. An error goes once its cause is fixed: a form that
// passes its check (recheck) has each of its own errors re-checked as the
// owner types, and any other error of a field (the service's) goes when that
// field is changed; the next Save checks everything again.
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { t } from '../i18n';

/** FieldError: one thing wrong with a form. */
export interface FieldError {
  /** The id of the control it is about; null: the form as a whole (the summary shows it without a link). */
  id: string | null;
  /** The whole message, naming the field ("Odometer: enter the reading…"): it reads the same in the summary and beside the field. */
  message: string;
}

/** ServiceFields: for each field name of the API a form sends, its control's id and its label. */
export type ServiceFields = Record<string, { id: string; label: string }>;

/**
 * fromService: a service's error message as the form's errors. Its messages
 * about input start with the API's field name ("odometer: must be at least
 * 0"), several joined by "; "; each part naming one of the form's fields is
 * that field's error (written with the field's label), a part naming none
 * belongs to the part before it (a message may hold "; " itself), and a
 * message naming no field is one error of the whole form, wrapped by whole
 * when given ("Not saved: {message}").
 */
export function fromService(message: string | null | undefined, fields: ServiceFields, whole?: (message: string) => string): FieldError[] {
  if (!message) return [];
  const found: { name: string; text: string }[] = [];
  let lead = '';
  for (const part of message.split('; ')) {
    const name = Object.keys(fields).find((n) => part.startsWith(`${n}: `));
    if (name !== undefined) found.push({ name, text: part.slice(name.length + 2) });
    else if (found.length > 0) found[found.length - 1]!.text += `; ${part}`;
    else lead = lead ? `${lead}; ${part}` : part;
  }
  if (found.length === 0) return [{ id: null, message: whole ? whole(message) : message }];
  const errors: FieldError[] = lead ? [{ id: null, message: whole ? whole(lead) : lead }] : [];
  for (const f of found) {
    const field = fields[f.name]!;
    errors.push({ id: field.id, message: t('form.fieldMessage', { label: field.label, message: f.text }) });
  }
  return errors;
}

/**
 * focusInView focuses el without the browser's own scroll, then scrolls its
 * field (label, input and message together; the control alone when it has
 * none) into view inside the scroll margins: below the sticky header, above
 * the bottom bar.
 */
export function focusInView(el: HTMLElement | null | undefined): void {
  if (!el) return;
  el.focus({ preventScroll: true });
  (el.closest('.field, .check') ?? el).scrollIntoView({ block: 'nearest' });
}

export interface FormErrors {
  errors: FieldError[];
  /** reveal: after a failed submit, once the errors have rendered, focus the first bad field (or the summary, for an error of the whole form). */
  reveal: () => void;
  /** The attributes of the control id: aria-invalid when it has an error, and aria-describedby the given ids (hints, units) and its error. */
  control: (id: string, ...describedBy: (string | false | undefined)[]) => {
    'aria-invalid'?: true; 'aria-describedby'?: string; onInputCapture: () => void; onChangeCapture: () => void;
  };
  summaryRef: { current: HTMLDivElement | null };
}

/** errorId: the id of the message beside the control id. */
export const errorId = (id: string) => `${id}-error`;

/**
 * stillShown: of the errors a submit found, those whose cause may remain.
 * edited: the controls changed since; checked: the controls the form's own
 * check found wrong at the submit; live: what that check finds now (null:
 * the form has none). An error of the form as a whole stays; one the check
 * found stays while the check still finds its control wrong; any other (the
 * service's) stays until its control is changed.
 */
export function stillShown(errors: FieldError[], edited: ReadonlySet<string>, checked: ReadonlySet<string>, live: FieldError[] | null): FieldError[] {
  return errors.filter((e) => {
    if (e.id === null) return true;
    if (live !== null && checked.has(e.id)) return live.some((l) => l.id === e.id);
    return !edited.has(e.id);
  });
}

/**
 * useFormErrors: the form's errors as they are now (from the form's own
 * state, less those fixed since: stillShown) and the focus after a failed
 * submit. recheck: the form's own check of its present state, pure (the one
 * its submit runs), so that its errors go as soon as they are fixed.
 */
export function useFormErrors(found: FieldError[], recheck?: () => FieldError[]): FormErrors {
  const [revealed, setRevealed] = useState(0);
  const [, changed] = useState(0);
  const summaryRef = useRef<HTMLDivElement>(null);
  // Per submit (a new list of errors): the controls changed since, and those its check found wrong.
  const since = useRef<{ of: FieldError[]; edited: Set<string>; checked: Set<string> } | null>(null);
  if (since.current?.of !== found) {
    const checked = new Set(found.length > 0 && recheck ? recheck().flatMap((e) => (e.id === null ? [] : [e.id])) : []);
    since.current = { of: found, edited: new Set(), checked };
  }
  const { edited, checked } = since.current;
  const errors = found.length === 0 ? found : stillShown(found, edited, checked, recheck && checked.size > 0 ? recheck() : null);
  const edit = (id: string) => {
    if (edited.has(id) || !found.some((e) => e.id === id)) return;
    edited.add(id);
    // Rendered after the event's own handlers: a render between this capture handler and the
    // control's onInput would write the old state back into the control, losing what was typed.
    setTimeout(() => changed((n) => n + 1), 0);
  };
  const latest = useRef(errors);
  latest.current = errors;
  useEffect(() => {
    if (revealed === 0) return;
    const first = latest.current[0];
    if (!first) return;
    focusInView((first.id !== null ? document.getElementById(first.id) : null) ?? summaryRef.current);
  }, [revealed]);
  return {
    errors,
    reveal: () => setRevealed((n) => n + 1),
    control: (id, ...describedBy) => {
      const bad = errors.some((e) => e.id === id);
      const ids = [...describedBy, bad && errorId(id)].filter(Boolean).join(' ');
      return {
        ...(bad ? { 'aria-invalid': true as const } : {}), ...(ids ? { 'aria-describedby': ids } : {}),
        // Changing the control may fix its error (stillShown).
        onInputCapture: () => edit(id), onChangeCapture: () => edit(id),
      };
    },
    summaryRef,
  };
}

/** ErrorSummary: at the top of a form, every error of it, each a link to its field. */
export function ErrorSummary({ form }: { form: FormErrors }) {
  const id = useId();
  if (form.errors.length === 0) return null;
  return (
    <div class="error-summary" ref={form.summaryRef} tabIndex={-1} role="alert" aria-labelledby={id}>
      <h2 id={id}>{t('form.problem')}</h2>
      <ul>
        {form.errors.map((e, i) => (
          <li key={i}>
            {e.id === null ? e.message : (
              <a href={`#${e.id}`} onClick={(ev) => {
                ev.preventDefault();
                focusInView(document.getElementById(e.id!));
              }}>{e.message}</a>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** FieldMessage: beside the control id, its errors (none: nothing). */
export function FieldMessage({ form, id }: { form: FormErrors; id: string }) {
  const mine = form.errors.filter((e) => e.id === id);
  if (mine.length === 0) return null;
  return <p class="error field-error" id={errorId(id)}>{mine.map((e) => e.message).join(' ')}</p>;
}
