// "Add reminders to your calendar": the reminders of every vehicle as a
// calendar feed (GET /api/reminders.ics) that a calendar app subscribes to.
// A calendar app cannot sign in, so with accounts on the link carries a
// read-only personal access token, made here on the spot with the password
// (as Settings' token form does) and named for the feed, so that Settings'
// token list shows it and it can be revoked there or here
// (proto-docs/auth-decisions.md, "The calendar feed's token"). The secret
// is shown once and kept nowhere: a new link can be made any time.
import { useMemo, useState } from 'preact/hooks';
import { authApi } from '../api/auth';
import type { User } from '../api/session';
import { useOnline } from '../hooks';
import { tk } from '../i18n/costs';
import { t } from '../i18n';
import { ErrorText, Status } from './messages';
import { ErrorSummary, FieldMessage, fromService, useFormErrors } from './form-errors';

/** FEED_PATH: the calendar feed's route, and the query parameter its token goes in. */
export const FEED_PATH = '/api/reminders.ics';

/** feedUrls: the feed's https address (token: a read-only access token, none with accounts off) and its webcal:// twin. */
export function feedUrls(origin: string, token: string | null): { https: string; webcal: string } {
  const url = new URL(FEED_PATH, origin);
  if (token !== null) url.searchParams.set('token', token);
  return { https: url.href, webcal: url.href.replace(/^https?:/, 'webcal:') };
}

/** user: the signed-in user, null with accounts off (the feed then needs no token). */
export function CalendarFeed({ user }: { user: User | null }) {
  const online = useOnline();
  // The link made here, with the token's id to revoke it (null: accounts off, a link without a token).
  const [made, setMade] = useState<{ id: number | null; token: string | null } | null>(() => (user === null ? { id: null, token: null } : null));
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  // The form's error (its summary, beside the password) and a revocation's.
  const [formError, setFormError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const hasPassword = user !== null && user.has_password !== false;
  // One list per error (useFormErrors keeps what was edited since per list).
  const found = useMemo(() => fromService(formError, { current_password: { id: 'cal-password', label: t('account.current') } }), [formError]);
  const form = useFormErrors(found);

  async function make(e: Event) {
    e.preventDefault();
    setBusy(true);
    setFormError(null);
    setError(null);
    setStatus(null);
    try {
      const answer = await authApi.createToken(tk('cal.tokenName'), 'read', null, hasPassword ? password : null);
      setMade({ id: answer.id, token: answer.token });
      setPassword('');
      setStatus(tk('cal.made', { name: answer.name }));
    } catch (err) {
      setFormError((err as Error).message);
      form.reveal();
    } finally {
      setBusy(false);
    }
  }

  async function revoke(id: number) {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      await authApi.revokeToken(id);
      setMade(null);
      setStatus(tk('cal.revoked'));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function copy(url: string) {
    try {
      await navigator.clipboard.writeText(url);
      setStatus(tk('cal.copied'));
    } catch {
      setStatus(tk('cal.copyFailed'));
    }
  }

  const urls = made ? feedUrls(location.origin, made.token) : null;
  return (
    <details class="calendar-feed">
      <summary>{tk('cal.heading')}</summary>
      <p class="hint">{tk('cal.intro')}</p>
      {urls && made && (
        <>
          <div class="field">
            <label for="cal-link">{tk('cal.link')}</label>
            <input id="cal-link" readOnly value={urls.https} spellcheck={false} onFocus={(e) => e.currentTarget.select()}
              aria-describedby={made.token !== null ? 'cal-link-hint' : undefined} />
            {made.token !== null && <p class="hint" id="cal-link-hint">{tk('cal.tokenHint', { name: tk('cal.tokenName') })}</p>}
          </div>
          <div class="buttons">
            <button type="button" class="secondary" onClick={() => void copy(urls.https)}>{tk('cal.copy')}</button>
            <a class="button secondary" href={urls.webcal}>{tk('cal.subscribe')}</a>
            {made.id !== null && (
              <button type="button" class="danger" disabled={busy || !online} onClick={() => made.id !== null && void revoke(made.id)}>{tk('cal.revoke')}</button>
            )}
          </div>
        </>
      )}
      {!made && user !== null && (
        <form class="form" noValidate aria-label={tk('cal.make')} onSubmit={(e) => void make(e)}>
          <ErrorSummary form={form} />
          {hasPassword && (
            <div class="field">
              <label for="cal-password">{t('account.current')}</label>
              <input id="cal-password" type="password" autocomplete="current-password" value={password}
                onInput={(e) => setPassword(e.currentTarget.value)} {...form.control('cal-password', 'cal-password-hint')} />
              <p class="hint" id="cal-password-hint">{tk('cal.passwordHint')}</p>
              <FieldMessage form={form} id="cal-password" />
            </div>
          )}
          {!online && <p class="hint">{tk('cal.needsConnection')}</p>}
          <div class="buttons">
            <button type="submit" disabled={busy || !online}>{tk('cal.make')}</button>
          </div>
        </form>
      )}
      {status && <Status>{status}</Status>}
      <ErrorText error={error} />
    </details>
  );
}
