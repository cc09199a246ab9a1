import { useEffect, useState } from 'preact/hooks';
import { LANGUAGES, t } from '../i18n';
import { activate, PREFERENCE_FIELDS, prepare, unitPreferences, unitsOf, type Preferences, type PreferencesPatch } from '../lib/preferences';
import { currencyName, languageName } from '../lib/format';
import {
  CONSUMPTION_UNITS, DISTANCE_UNITS, ELECTRIC_CONSUMPTION_UNITS, GAS_CONSUMPTION_UNITS, VOLUME_UNITS, type Units,
} from '../lib/units';
import { changeUnit, SYSTEM_UNITS, systemOf, UNIT_SYSTEMS, type UnitField, type UnitSystem } from '../lib/unitsystems';
import { guessedFields, queuedPreferences, savePreferences } from '../offline/preferences';
import { outbox, sync } from '../offline/sync';
import type { OutboxItem } from '../offline/outbox';
import { Status } from '../components/messages';
import { ErrorSummary, FieldMessage, fromService, useFormErrors, type FieldError } from '../components/form-errors';
import type { User } from '../api/session';
import { Account } from './Account';
// The currency question loads when a currency is picked: few open it, and the first screen's budget is tight.
type CurrencyModule = typeof import('./CurrencyChange');
// Notifications load as a chunk with their own words (components/notifications.tsx), shown under the form once loaded.
type NotificationsModule = typeof import('../components/notifications');

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

/** formatExample: how a format locale writes a number and a date ("1.234,5 · 31.12.26"): what the choice changes. */
function formatExample(locale: string): string {
  try {
    return `${new Intl.NumberFormat(locale, { minimumFractionDigits: 1 }).format(1234.5)} · ${new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeZone: 'UTC' }).format(Date.UTC(2026, 11, 31))}`;
  } catch {
    return locale;
  }
}

/** withoutCurrency: the edits but the currency's (changed, or given up, through CurrencyChange). */
function withoutCurrency(edits: PreferencesPatch): PreferencesPatch {
  const next = { ...edits };
  delete next.currency;
  return next;
}

/** Each preference's label, as its field shows it (read when used: the language can change). */
const LABELS: Record<(typeof PREFERENCE_FIELDS)[number], () => string> = {
  distance_unit: () => t('settings.distance'),
  volume_unit: () => t('settings.volume'),
  consumption_unit: () => t('settings.consumption'),
  electric_consumption_unit: () => t('settings.electric'),
  gas_consumption_unit: () => t('settings.gas'),
  locale: () => t('settings.locale'),
  currency: () => t('settings.currency'),
  time_zone: () => t('settings.timeZone'),
  language: () => t('settings.language'),
};

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
  const [errors, setErrors] = useState<FieldError[]>([]);
  const errorsOf = useFormErrors(errors);
  const [refused, setRefused] = useState<OutboxItem[]>([]);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const update = () => void queuedPreferences().then((q) => setRefused(q.filter((i) => i.state === 'attention')));
    update();
    return outbox.subscribe(update);
  }, []);

  const set = <K extends keyof Preferences>(k: K, v: Preferences[K]) => setEdits((x) => ({ ...x, [k]: v }));
  const changing = form.currency !== preferences.currency;
  const [currencyModule, setCurrencyModule] = useState<CurrencyModule | null>(null);
  const [notifications, setNotifications] = useState<NotificationsModule | null>(null);
  useEffect(() => void import('../components/notifications').then((m) => setNotifications(() => m), () => undefined), []);
  useEffect(() => {
    if (changing && !currencyModule) void import('./CurrencyChange').then((m) => setCurrencyModule(() => m));
  }, [changing, currencyModule]);
  // Which units followed the last change of distance or volume (said under the fields, not saved yet).
  const [followed, setFollowed] = useState<UnitField[]>([]);
  const setUnit = (field: UnitField, value: string) => {
    const r = changeUnit(unitsOf(form), field, value as never);
    setEdits((x) => ({ ...x, ...unitPreferences(r.units) }));
    setFollowed(r.followed);
  };
  const setSystem = (system: UnitSystem) => {
    setEdits((x) => ({ ...x, ...unitPreferences(SYSTEM_UNITS[system]) }));
    setFollowed([]);
  };

  async function submit(e: Event) {
    e.preventDefault();
    setStatus(null);
    setErrors([]);
    const patch: PreferencesPatch = {};
    // What the owner changed, and what this device guessed and the owner now saves as shown (never saved
    // before: the first browser does not choose for the others). The currency changes through its own
    // choice (CurrencyChange), never with the others; a guessed one is saved as it is shown.
    const guessed = new Set(guessedFields());
    for (const f of PREFERENCE_FIELDS) {
      const changed = f !== 'currency' && form[f] !== preferences[f];
      const confirmed = guessed.has(f) && (f !== 'currency' || edits.currency === undefined);
      if (changed || confirmed) (patch as Record<string, string>)[f] = f === 'currency' ? preferences.currency : form[f];
    }
    setEdits(edits.currency === undefined ? {} : { currency: edits.currency });
    setFollowed([]);
    if (Object.keys(patch).length === 0) return setStatus(t('settings.saved'));
    // In force at once, whatever the connection (once the catalogue of a new language has loaded).
    const before = preferences;
    const saved = { ...form, currency: preferences.currency };
    await prepare(saved).catch(() => undefined);
    activate(saved);
    onChange(saved);
    setBusy(true);
    try {
      const r = await savePreferences(patch);
      if (r.kind === 'refused') {
        activate(before);
        onChange(before);
        setEdits(patch); // the owner's choice stays on the form, to correct
        // Each preference the service names is marked on its field; the rest is said of the form.
        setErrors(fromService(r.message, Object.fromEntries(PREFERENCE_FIELDS.map((f) => [f, { id: `pref-${f}`, label: LABELS[f]() }])),
          (message) => t('settings.notSaved', { message })));
        errorsOf.reveal();
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
      <select id={`pref-${k}`} value={form[k]} {...errorsOf.control(`pref-${k}`)} onChange={(e) => set(k, e.currentTarget.value as Preferences[K])}>
        {options.map((o) => <option key={o.value} value={o.value} lang={o.lang}>{o.label}</option>)}
      </select>
      <FieldMessage form={errorsOf} id={`pref-${k}`} />
    </div>
  );
  const units = (list: string[]) => list.map((u) => ({ value: u, label: t(`settings.opt.${u}` as Parameters<typeof t>[0]) }));
  const unitSelect = (field: UnitField, k: keyof Preferences, label: string, list: string[]) => (
    <div class="field">
      <label for={`pref-${k}`}>{label}</label>
      <select id={`pref-${k}`} value={form[k]} onChange={(e) => setUnit(field, e.currentTarget.value)}>
        {units(list).map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </div>
  );
  const formUnits: Units = unitsOf(form);
  const system = systemOf(formUnits);
  const followedText = followed.map((f) => t('settings.followed', {
    field: t(f === 'consumption' ? 'settings.consumption' : 'settings.electric'),
    unit: t(`settings.opt.${formUnits[f]}` as Parameters<typeof t>[0]),
  })).join(' ');
  const locales = withCurrent(LOCALES, form.locale, preferences.locale, navigator.language);
  const someGuessed = guessedFields().length > 0;
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
      <form class="form" noValidate onSubmit={(e) => void submit(e)}>
        <ErrorSummary form={errorsOf} />
        {someGuessed && <p class="hint" id="pref-guessed">{t('settings.guessed')}</p>}
        <fieldset>
          <legend>{t('settings.units')}</legend>
          <div class="field">
            <label for="pref-unit-system">{t('settings.system')}</label>
            <select id="pref-unit-system" value={system} aria-describedby="pref-unit-system-hint"
              onChange={(e) => e.currentTarget.value !== 'custom' && setSystem(e.currentTarget.value as UnitSystem)}>
              {UNIT_SYSTEMS.map((x) => <option key={x} value={x}>{t(`settings.system.${x}`)}</option>)}
              {system === 'custom' && <option value="custom" disabled>{t('settings.system.custom')}</option>}
            </select>
            <p class="hint" id="pref-unit-system-hint">{t('settings.systemHint')}</p>
          </div>
          {unitSelect('distance', 'distance_unit', t('settings.distance'), DISTANCE_UNITS)}
          {unitSelect('volume', 'volume_unit', t('settings.volume'), VOLUME_UNITS)}
          {unitSelect('consumption', 'consumption_unit', t('settings.consumption'), CONSUMPTION_UNITS)}
          {unitSelect('electric', 'electric_consumption_unit', t('settings.electric'), ELECTRIC_CONSUMPTION_UNITS)}
          {unitSelect('gas', 'gas_consumption_unit', t('settings.gas'), GAS_CONSUMPTION_UNITS)}
          <p class="hint" aria-live="polite">{followedText}</p>
        </fieldset>
        <fieldset>
          <legend>{t('settings.region')}</legend>
          {/* Each language in its own words, so each is found by who reads it. */}
          {select('language', t('settings.language'), LANGUAGES.map((l) => ({ value: l, label: languageName(l === 'zh' ? 'zh-Hans' : l, true), lang: l })))}
          {/* Each format named in the app's language ("German (Germany)"), what it writes said below. */}
          {select('locale', t('settings.locale'), locales.map((l) => ({ value: l, label: languageName(l) })))}
          <p class="hint" id="pref-locale-example">{t('settings.localeExample', { example: formatExample(form.locale) })}</p>
          <p class="hint">{t('settings.localeHint')}</p>
          {select('currency', t('settings.currency'), currencies.map((c) => ({ value: c, label: `${currencyName(c)} (${c})` })))}
          {changing && currencyModule && (
            <currencyModule.CurrencyChange from={preferences.currency} to={form.currency}
              onCancel={() => setEdits(withoutCurrency)}
              onDone={(r, message) => {
                const next = { ...preferences, currency: r.currency };
                activate(next);
                onChange(next);
                setEdits(withoutCurrency);
                setErrors([]);
                setStatus(message);
              }} />
          )}
          {select('time_zone', t('settings.timeZone'), zones.map((z) => ({ value: z, label: z })))}
        </fieldset>
        {status && <Status>{status}</Status>}
        <div class="buttons">
          <button type="submit" disabled={busy}>{t('settings.save')}</button>
        </div>
      </form>
      {notifications && <notifications.Notifications timeZone={preferences.time_zone} accounts={user !== null} />}
      {user && <Account user={user} oidc={oidc} />}
    </>
  );
}
