// DateField: a date (and time) typed as the owner writes them. The browser's
// own date controls draw themselves in the browser's language and order
// ("12/06/2026, 05:10 PM" on a German screen in a US-English Chromium), so
// these are text fields written and read in the format locale by lib/dates.ts,
// beside a button that opens the device's own calendar for picking a day.
//
// The page keeps the value it kept for the browser's control:
// "YYYY-MM-DDTHH:MM" (withTime) or "YYYY-MM-DD", "" when left empty, and
// UNREAD while what is typed is not a date (lib/format.ts fromLocalInput
// reads that as none, so the page's check names the field).
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { datePattern, fmtDateInput, fmtTimeInput, parseDateInput, parseTimeInput } from '../lib/dates';
import { numberLocale } from '../lib/format';
import { t } from '../i18n';

/** What the field answers while its text is not a date or time. */
export const UNREAD = '?';

type ControlProps = Pick<JSX.InputHTMLAttributes<HTMLInputElement>, 'aria-invalid' | 'aria-describedby' | 'onInputCapture' | 'onChangeCapture'>;

interface Props {
  /** The date input's id: its label's for, and the id its errors name. */
  id: string;
  value: string;
  onChange: (value: string) => void;
  /** With a time of day beside the date. */
  withTime?: boolean;
  required?: boolean;
  /** The form's marks for the field (form-errors.tsx control()). */
  control?: ControlProps;
}

function split(value: string): { date: string; time: string } {
  const [date = '', time = ''] = value.split('T');
  return { date, time };
}

export function DateField({ id, value, onChange, withTime = false, required, control }: Props) {
  const locale = numberLocale();
  const shown = (v: string) => ({ date: fmtDateInput(split(v).date, locale), time: fmtTimeInput(split(v).time, locale) });
  const [text, setText] = useState(() => shown(value));
  // The value last given to the page: a new one from elsewhere (a form reset) is shown afresh.
  const given = useRef(value);
  useEffect(() => {
    if (value === given.current) return;
    given.current = value;
    setText(shown(value));
  }, [value]);
  const picker = useRef<HTMLInputElement>(null);
  // Marked wrong is the part that is: the date, or the time (a good time beside a bad date stays unmarked);
  // when both read well (the service's error), the date.
  const timeOk = !withTime || parseTimeInput(text.time, locale) !== null;
  const markDate = Boolean(control?.['aria-invalid']) && (parseDateInput(text.date, locale) === null || timeOk);
  const markTime = Boolean(control?.['aria-invalid']) && !timeOk;

  function changed(next: { date: string; time: string }) {
    setText(next);
    const date = parseDateInput(next.date, locale);
    const time = withTime ? parseTimeInput(next.time, locale) : '';
    const empty = next.date.trim() === '' && (!withTime || next.time.trim() === '');
    const v = empty ? '' : date === null || time === null ? UNREAD : withTime ? `${date}T${time}` : date;
    given.current = v;
    onChange(v);
  }

  return (
    <div class={withTime ? 'date-field with-time' : 'date-field'}>
      <input id={id} class="date-input" inputMode="decimal" autoComplete="off" required={required} value={text.date}
        placeholder={datePattern(locale, { y: t('date.yyyy'), m: t('date.mm'), d: t('date.dd') })}
        {...control} aria-invalid={markDate || undefined} onInput={(e) => changed({ ...text, date: e.currentTarget.value })} />
      {withTime && (
        <input id={`${id}-time`} class="time-input" aria-label={t('date.time')} autoComplete="off" required={required} value={text.time}
          {...control} aria-invalid={markTime || undefined} onInput={(e) => changed({ ...text, time: e.currentTarget.value })} />
      )}
      <span class="date-pick">
        <button type="button" class="secondary icon" aria-label={t('date.pick')} title={t('date.pick')}
          onClick={() => {
            const el = picker.current;
            if (!el) return;
            el.value = parseDateInput(text.date, locale) ?? '';
            try {
              el.showPicker();
            } catch {
              // No picker here (an old browser): typing is the way.
              el.focus();
            }
          }}>
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2">
            <rect x="3" y="5" width="18" height="16" rx="2" /><path d="M3 10h18M8 3v4M16 3v4" />
          </svg>
        </button>
        {/* The device's calendar; what is picked is written into the field as the owner writes dates. */}
        <input ref={picker} type="date" class="date-picker-proxy" tabIndex={-1} aria-hidden="true"
          onChange={(e) => {
            const picked = e.currentTarget.value;
            if (picked) changed({ ...text, date: fmtDateInput(picked, locale) });
          }} />
      </span>
    </div>
  );
}
