import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n';
import { activate, PREFERENCE_FIELDS, type Preferences, type PreferencesPatch } from '../lib/preferences';
import {
  CONSUMPTION_UNITS, DISTANCE_UNITS, ELECTRIC_CONSUMPTION_UNITS, GAS_CONSUMPTION_UNITS, VOLUME_UNITS,
} from '../lib/units';
import { queuedPreferences, savePreferences } from '../offline/preferences';
import { outbox, sync } from '../offline/sync';
import type { OutboxItem } from '../offline/outbox';
import { ErrorText, Status } from '../components/common';
import type { User } from '../api/session';
import { Account } from './Account';
import { CurrencyChange } from './CurrencyChange';

/** Locales offered; the current one and the browser's are added when missing. */
const LOCALES = [
  'en-US', 'en-GB', 'en-IE', 'en-CA', 'en-AU', 'en-NZ', 'en-IN', 'de-DE', 'de-AT', 'de-CH', 'fr-FR', 'fr-CA', 'es-ES', 'es-MX',
  'it-IT', 'nl-NL', 'pl-PL', 'pt-BR', 'pt-PT', 'sv-SE', 'ja-JP', 'ko-KR', 'zh-CN', 'zh-TW', 'zh-HK',
];

function supportedValues(kind: 'currency' | 'timeZone', fallback: string[]): string[] {
  try {
    return Intl.supportedValuesOf(kind);
  } catch {
    return fallback;
  }
}

/** nameOf: a locale in its own language ("Deutsch (Deutschland)"), so each is found by who reads it. */
function nameOf(locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
}

function currencyName(code: string, locale: string): string {
  try {
    return `${new Intl.DisplayNames([locale], { type: 'currency' }).of(code) ?? code} (${code})`;
  } catch {
    return code;
  }
}

/** withoutCurrency: the edits but the currency's (changed, or given up, through CurrencyChange). */
function withoutCurrency(edits: PreferencesPatch): PreferencesPatch {
  const next = { ...edits };
  delete next.currency;
  return next;
}

const withCurrent = (list: string[], ...more: string[]) => [...new Set([...list, ...more])];

interface Props {
  preferences: Preferences;
  onChange: (p: Preferences) => void;
  /** The signed-in user with accounts on (their password, and the users for an administrator); else null. */
  user: User | null;
  /** Single sign-on is on (an account without a password signs in again with it). */
  oidc: boolean;
}

export function Settings({ preferences, onChange, user, oidc }: Props) {
  // Only what the owner changed is kept here: preferences that arrive meanwhile (loaded late, or
  // another device's change sent) show in the other fields without undoing a choice being made.
  const [edits, setEdits] = useState<PreferencesPatch>({});
  const form: Preferences = { ...preferences, ...edits };
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [refused, setRefused] = useState<OutboxItem[]>([]);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const update = () => void queuedPreferences().then((q) => setRefused(q.filter((i) => i.state === 'attention')));
    update();
    return outbox.subscribe(update);
  }, []);

  const set = <K extends keyof Preferences>(k: K, v: Preferences[K]) => setEdits((x) => ({ ...x, [k]: v }));

  async function submit(e: Event) {
    e.preventDefault();
    setStatus(null);
    setError(null);
    const patch: PreferencesPatch = {};
    // The currency changes through its own choice (CurrencyChange), never with the others.
    for (const f of PREFERENCE_FIELDS) if (f !== 'currency' && form[f] !== preferences[f]) (patch as Record<string, string>)[f] = form[f];
    setEdits(edits.currency === undefined ? {} : { currency: edits.currency });
    if (Object.keys(patch).length === 0) return setStatus(t('settings.saved'));
    // In force at once, whatever the connection.
    const before = preferences;
    const saved = { ...form, currency: preferences.currency };
    activate(saved);
    onChange(saved);
    setBusy(true);
    try {
      const r = await savePreferences(patch);
      if (r.kind === 'refused') {
        activate(before);
        onChange(before);
        setEdits(patch); // the owner's choice stays on the form, to correct
        setError(t('settings.notSaved', { message: r.message }));
      } else {
        setStatus(r.kind === 'saved' ? t('settings.saved') : t('settings.queued'));
      }
    } finally {
      setBusy(false);
    }
  }

  const select = <K extends keyof Preferences>(k: K, label: string, options: { value: string; label: string; lang?: string }[]) => (
    <div class="field">
      <label for={`pref-${k}`}>{label}</label>
      <select id={`pref-${k}`} value={form[k]} onChange={(e) => set(k, e.currentTarget.value as Preferences[K])}>
        {options.map((o) => <option key={o.value} value={o.value} lang={o.lang}>{o.label}</option>)}
      </select>
    </div>
  );
  const units = (list: string[]) => list.map((u) => ({ value: u, label: t(`settings.opt.${u}` as Parameters<typeof t>[0]) }));
  const locales = withCurrent(LOCALES, form.locale, preferences.locale, navigator.language);
  const currencies = withCurrent(supportedValues('currency', ['CNY', 'EUR', 'GBP', 'USD']), form.currency);
  const zones = withCurrent(supportedValues('timeZone', ['UTC']), form.time_zone);

  return (
    <>
      <h1 tabIndex={-1}>{t('nav.settings')}</h1>
      {refused.map((i) => (
        <div key={i.key} class="error" role="alert">
          <p>{t('settings.pendingRefused', { message: i.message ?? '' })}</p>
          <div class="buttons">
            <button type="button" class="secondary" onClick={() => void outbox.retry(i.key).then(sync)}>{t('history.sendAgain')}</button>
            <button type="button" class="danger" onClick={() => void outbox.discard(i.key)}>{t('history.discard')}</button>
          </div>
        </div>
      ))}
      <form class="form" onSubmit={(e) => void submit(e)}>
        <fieldset>
          <legend>{t('settings.units')}</legend>
          {select('distance_unit', t('settings.distance'), units(DISTANCE_UNITS))}
          {select('volume_unit', t('settings.volume'), units(VOLUME_UNITS))}
          {select('consumption_unit', t('settings.consumption'), units(CONSUMPTION_UNITS))}
          {select('electric_consumption_unit', t('settings.electric'), units(ELECTRIC_CONSUMPTION_UNITS))}
          {select('gas_consumption_unit', t('settings.gas'), units(GAS_CONSUMPTION_UNITS))}
        </fieldset>
        <fieldset>
          <legend>{t('settings.region')}</legend>
          {select('locale', t('settings.locale'), locales.map((l) => ({ value: l, label: nameOf(l), lang: l })))}
          <p class="hint">{t('settings.localeHint')}</p>
          {select('currency', t('settings.currency'), currencies.map((c) => ({ value: c, label: currencyName(c, preferences.locale) })))}
          {form.currency !== preferences.currency && (
            <CurrencyChange from={preferences.currency} to={form.currency}
              onCancel={() => setEdits(withoutCurrency)}
              onDone={(r, message) => {
                const next = { ...preferences, currency: r.currency };
                activate(next);
                onChange(next);
                setEdits(withoutCurrency);
                setError(null);
                setStatus(message);
              }} />
          )}
          {select('time_zone', t('settings.timeZone'), zones.map((z) => ({ value: z, label: z })))}
        </fieldset>
        <ErrorText error={error} />
        {status && <Status>{status}</Status>}
        <div class="buttons">
          <button type="submit" disabled={busy}>{t('settings.save')}</button>
        </div>
      </form>
      {user && <Account user={user} oidc={oidc} />}
    </>
  );
}
