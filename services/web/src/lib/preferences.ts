// The owner's preferences (GET/PUT /api/preferences): their shape, the
// defaults a first start takes from the browser's locale, and the ones in
// force, which the pages read while they render (App sets them before).
// The language of the words (en, de, zh) and the locale of numbers and dates
// (de-DE) are two preferences: an English interface in a German browser
// writes 1.234,5 and says "December" (lib/format.ts).
import { browserLanguage, LANGUAGES, loadLanguage, setLanguage, type Language } from '../i18n';
import { setFormat, wordsLocale } from './format';
import {
  CONSUMPTION_UNITS, DISTANCE_UNITS, ELECTRIC_CONSUMPTION_UNITS, GAS_CONSUMPTION_UNITS, VOLUME_UNITS,
  type ConsumptionUnit, type DistanceUnit, type ElectricConsumptionUnit, type GasConsumptionUnit, type Units, type VolumeUnit,
} from './units';
import { SYSTEM_UNITS } from './unitsystems';

/** Preferences as the service keeps them: null is "not chosen yet". */
export interface StoredPreferences {
  distance_unit: DistanceUnit | null;
  volume_unit: VolumeUnit | null;
  consumption_unit: ConsumptionUnit | null;
  electric_consumption_unit: ElectricConsumptionUnit | null;
  gas_consumption_unit: GasConsumptionUnit | null;
  currency: string | null;
  /** The locale of numbers and dates (BCP 47, de-DE). */
  locale: string | null;
  time_zone: string | null;
  /** The language of the interface's words. */
  language: Language | null;
  updated_at?: string | null;
}

export type PreferenceField = Exclude<keyof StoredPreferences, 'updated_at'>;
export const PREFERENCE_FIELDS: PreferenceField[] = [
  'distance_unit', 'volume_unit', 'consumption_unit', 'electric_consumption_unit', 'gas_consumption_unit', 'currency', 'locale', 'time_zone', 'language',
];

/** Preferences with every field chosen (the ones in force). */
export type Preferences = { [K in PreferenceField]: NonNullable<StoredPreferences[K]> };

/** A patch for PUT /api/preferences: only the fields present change. */
export type PreferencesPatch = Partial<Preferences>;

// Currencies of the regions whose browsers we expect; Intl has no region ->
// currency table. Euro area first.
const EURO = 'AT BE HR CY EE FI FR DE GR IE IT LV LT LU MT NL PT SK SI ES AD MC SM VA ME XK';
const CURRENCY_OF: Record<string, string> = {
  US: 'USD', GB: 'GBP', CN: 'CNY', TW: 'TWD', HK: 'HKD', MO: 'MOP', SG: 'SGD', JP: 'JPY', KR: 'KRW', IN: 'INR',
  CA: 'CAD', AU: 'AUD', NZ: 'NZD', CH: 'CHF', LI: 'CHF', SE: 'SEK', NO: 'NOK', DK: 'DKK', IS: 'ISK', PL: 'PLN',
  CZ: 'CZK', HU: 'HUF', RO: 'RON', BG: 'BGN', RS: 'RSD', UA: 'UAH', TR: 'TRY', IL: 'ILS', AE: 'AED', SA: 'SAR',
  ZA: 'ZAR', BR: 'BRL', MX: 'MXN', AR: 'ARS', CL: 'CLP', CO: 'COP', PE: 'PEN', MY: 'MYR', TH: 'THB', ID: 'IDR',
  PH: 'PHP', VN: 'VND', RU: 'RUB', EG: 'EGP', NG: 'NGN', KE: 'KES', PR: 'USD', EC: 'USD', SV: 'USD', PA: 'USD',
};
for (const r of EURO.split(' ')) CURRENCY_OF[r] = 'EUR';

/** regionOf: the region of a locale ("en-US" -> "US"; "zh" -> "CN" by likely subtags). */
export function regionOf(locale: string): string | undefined {
  try {
    return new Intl.Locale(locale).maximize().region;
  } catch {
    return undefined;
  }
}

/**
 * defaultsFor: the preferences of a first start in locale: the unit system
 * of its region (lib/unitsystems.ts). The United States (and the few others
 * still on miles and US gallons) reads miles, US gallons and mpg; the United
 * Kingdom reads miles and mpg (UK gallons) but buys litres, as its pumps
 * sell them; everyone else km, litres and L/100 km. The currency is
 * the region's, USD when the region is unknown. The language is the first
 * of the browser's the app has (i18n browserLanguage), else that of locale.
 */
export function defaultsFor(locale: string, timeZone: string, language: Language = browserLanguage([locale])): Preferences {
  const region = regionOf(locale);
  const base = {
    currency: (region && CURRENCY_OF[region]) || 'USD',
    locale,
    time_zone: timeZone,
    language,
  };
  const system = region === 'US' || region === 'PR' || region === 'LR' || region === 'MM' ? 'us' : region === 'GB' ? 'uk' : 'metric';
  return { ...base, ...unitPreferences(SYSTEM_UNITS[system]) };
}

/** unitPreferences: units as the preference fields that hold them. */
export function unitPreferences(u: Units): Pick<Preferences, 'distance_unit' | 'volume_unit' | 'consumption_unit' | 'electric_consumption_unit' | 'gas_consumption_unit'> {
  return {
    distance_unit: u.distance, volume_unit: u.volume, consumption_unit: u.consumption,
    electric_consumption_unit: u.electric, gas_consumption_unit: u.gas,
  };
}

/** valid: whether a stored value is one this client knows (an unknown one falls back to the default). */
function valid(field: PreferenceField, v: string): boolean {
  switch (field) {
    case 'distance_unit': return (DISTANCE_UNITS as string[]).includes(v);
    case 'volume_unit': return (VOLUME_UNITS as string[]).includes(v);
    case 'consumption_unit': return (CONSUMPTION_UNITS as string[]).includes(v);
    case 'electric_consumption_unit': return (ELECTRIC_CONSUMPTION_UNITS as string[]).includes(v);
    case 'gas_consumption_unit': return (GAS_CONSUMPTION_UNITS as string[]).includes(v);
    case 'language': return (LANGUAGES as string[]).includes(v);
    default: return v !== '';
  }
}

/**
 * complete fills what is not chosen yet from defaults; missing lists those
 * fields (the guesses of this device, in force here and saved only when the
 * owner saves Settings: web-decisions.md, "Guessed preferences stay on the
 * device").
 */
export function complete(stored: Partial<StoredPreferences>, defaults: Preferences): { prefs: Preferences; missing: PreferencesPatch } {
  const prefs = { ...defaults };
  const missing: PreferencesPatch = {};
  for (const f of PREFERENCE_FIELDS) {
    const v = stored[f];
    if (typeof v === 'string' && valid(f, v)) (prefs as Record<string, string>)[f] = v;
    else if (v === null || v === undefined) (missing as Record<string, string>)[f] = defaults[f];
  }
  return { prefs, missing };
}

export function unitsOf(p: Preferences): Units {
  return {
    distance: p.distance_unit, volume: p.volume_unit, consumption: p.consumption_unit,
    electric: p.electric_consumption_unit, gas: p.gas_consumption_unit,
  };
}

/** browserLanguages: the browser's languages in the person's order. */
export function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

export function browserLocale(): string {
  return (typeof navigator !== 'undefined' && navigator.language) || 'en-US';
}

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

let current: Preferences = defaultsFor(browserLocale(), browserTimeZone(), browserLanguage(browserLanguages()));

/** The key of the language last in force on this device: main.tsx loads its catalogue before the first render. */
export const LANGUAGE_KEY = 'carhub-language';

/**
 * activate puts p in force: units, the catalogue, Intl's locales and
 * currency, the page's lang (the language of its words). Call prepare(p)
 * first where the language may change: its catalogue is a chunk.
 */
export function activate(p: Preferences): void {
  current = p;
  setLanguage(p.language);
  setFormat(p.locale, p.currency);
  if (typeof document !== 'undefined') document.documentElement.lang = wordsLocale();
  try {
    localStorage.setItem(LANGUAGE_KEY, p.language);
  } catch {
    // Storage denied: the next start loads the browser's language first.
  }
}

/** prepare loads what activate(p) needs that may not be loaded yet: the catalogue of p's language. */
export function prepare(p: Preferences): Promise<void> {
  return loadLanguage(p.language);
}

/** keptLanguage: the language last in force on this device, else the browser's. */
export function keptLanguage(): Language {
  try {
    const l = localStorage.getItem(LANGUAGE_KEY);
    if (l && (LANGUAGES as string[]).includes(l)) return l as Language;
  } catch {
    // Storage denied.
  }
  return browserLanguage(browserLanguages());
}

/** prefs: the preferences in force. */
export function prefs(): Preferences {
  return current;
}

/** units: the units in force. */
export function units(): Units {
  return unitsOf(current);
}
