// The short messages pages put above or beside what they show: a snapshot's
// age, what went wrong, a badge after a name, a status line.
import type { ComponentChildren } from 'preact';
import { fmtDateTime } from '../lib/format';
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
