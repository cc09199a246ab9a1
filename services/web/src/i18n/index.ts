// t(key, params): the interface's strings from the catalogue of the owner's
// language (English, German or Simplified Chinese). A tiny function of our
// own instead of a library: three catalogues, "{name}" parameters and
// Intl.PluralRules are all the interface needs.
//
// Each catalogue is a chunk of its own, loaded for the language in force
// (loadLanguage, awaited before the first render by main.tsx and before a
// change of language is put in force), so the first screen carries one
// language, not three (its 60 KB budget: scripts/size.mjs counts the
// largest catalogue in). Until the language's catalogue has loaded, t says
// its strings in the first one loaded.
import type { MessageKey } from './en';

export type { MessageKey } from './en';
export type Language = 'en' | 'de' | 'zh';
export const LANGUAGES: Language[] = ['en', 'de', 'zh'];

type Catalogue = Record<MessageKey, string>;

const LOADERS: Record<Language, () => Promise<Catalogue>> = {
  en: () => import('./en').then((m) => m.en),
  de: () => import('./de').then((m) => m.de),
  zh: () => import('./zh').then((m) => m.zh),
};

const loaded: Partial<Record<Language, Catalogue>> = {};
let fallback: Catalogue | undefined;

/** loadLanguage loads the catalogue of l (once); t uses it from then on. */
export async function loadLanguage(l: Language): Promise<void> {
  if (loaded[l]) return;
  const cat = await LOADERS[l]();
  loaded[l] = cat;
  fallback ??= cat;
}

/** catalogue: the strings t says: the language's, else the first loaded (every catalogue has every key). */
function catalogue(): Partial<Catalogue> {
  return loaded[lang] ?? fallback ?? {};
}

/** hasKey: whether key is a key of the catalogues (a name from outside, such as a script's, may not be). */
export function hasKey(key: string): key is MessageKey {
  return key in catalogue();
}

/** languageOf: the catalogue for a BCP 47 locale: German for de-*, Simplified Chinese for zh-*, English otherwise. */
export function languageOf(locale: string): Language {
  const l = locale.trim();
  if (/^zh(-|_|$)/i.test(l)) return 'zh';
  if (/^de(-|_|$)/i.test(l)) return 'de';
  return 'en';
}

/**
 * browserLanguage: the language a first start speaks: the first of the
 * browser's languages (navigator.languages, in the order the person set)
 * that the app has, else English. ["fr-FR", "de-DE"] reads German.
 */
export function browserLanguage(languages: readonly string[] = typeof navigator !== 'undefined' ? (navigator.languages ?? [navigator.language]) : []): Language {
  for (const l of languages) {
    const lang = languageOf(l);
    if (lang !== 'en' || /^en(-|_|$)/i.test(l.trim())) return lang;
  }
  return 'en';
}

let lang: Language = browserLanguage();

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
  return fill(catalogue()[key] ?? key, params);
}

type PluralBase<K> = K extends `${infer B}_other` ? B : never;
export type PluralKey = PluralBase<MessageKey>;

/** tn: the plural form of base for n (Intl.PluralRules of the language), with {n} and params. */
export function tn(base: PluralKey, n: number, params?: Params): string {
  const cat = catalogue();
  const rule = new Intl.PluralRules(loaded[lang] ? lang : 'en').select(n);
  const key = (rule === 'one' ? `${base}_one` : `${base}_other`) as MessageKey;
  return fill(cat[key] ?? cat[`${base}_other` as MessageKey] ?? base, { n, ...params });
}
