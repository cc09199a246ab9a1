// t(key, params): the interface's strings from the catalogue of the owner's
// language (English, German or Simplified Chinese). A tiny function of our
// own instead of a library: three catalogues, "{name}" parameters and
// Intl.PluralRules are all the interface needs.
import { en, type MessageKey } from './en';
import { zh } from './zh';
import { de } from './de';

export type { MessageKey } from './en';
export type Language = 'en' | 'de' | 'zh';
export const LANGUAGES: Language[] = ['en', 'de', 'zh'];

export const CATALOGUES: Record<Language, Record<MessageKey, string>> = { en, de, zh };

/** languageOf: the catalogue for a BCP 47 locale: German for de-*, Simplified Chinese for zh-*, English otherwise. */
export function languageOf(locale: string): Language {
  const l = locale.trim();
  if (/^zh(-|_|$)/i.test(l)) return 'zh';
  if (/^de(-|_|$)/i.test(l)) return 'de';
  return 'en';
}

let lang: Language = languageOf(typeof navigator !== 'undefined' ? navigator.language : 'en');

export function setLanguage(l: Language): void {
  lang = l;
}

export function language(): Language {
  return lang;
}

export type Params = Record<string, string | number>;

/** fill puts params into the "{name}" places of s. */
export function fill(s: string, params?: Params): string {
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));
}

/** t: the string of key in the current language, with its parameters filled in. */
export function t(key: MessageKey, params?: Params): string {
  return fill(CATALOGUES[lang][key], params);
}

type PluralBase<K> = K extends `${infer B}_other` ? B : never;
export type PluralKey = PluralBase<MessageKey>;

/** tn: the plural form of base for n (Intl.PluralRules of the language), with {n} and params. */
export function tn(base: PluralKey, n: number, params?: Params): string {
  const rule = new Intl.PluralRules(lang).select(n);
  const key = (rule === 'one' ? `${base}_one` : `${base}_other`) as MessageKey;
  return fill(CATALOGUES[lang][key] ?? CATALOGUES[lang][`${base}_other` as MessageKey], { n, ...params });
}
