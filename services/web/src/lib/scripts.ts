// The words of docqa's notices of another script or language (the sources
// event's `notice: "other_script"` with the manuals' `scripts`, and
// `"other_language"` with their `languages`): the service sends script names
// and language codes, the app says them in its language.
import { hasKey, t } from '../i18n';
import { fmtList, languageName } from './format';

/** scriptName: a script's name in the current language; one the catalogue does not name keeps its Unicode name. */
export function scriptName(script: string): string {
  const key = `script.${script}`;
  return hasKey(key) ? t(key) : script;
}

/** otherScriptNotice: what the app says when the passages that match a question are in another script than it. */
export function otherScriptNotice(scripts: readonly string[]): string {
  const names = scripts.length > 0 ? scripts.map(scriptName) : [t('script.other')];
  return t('ask.otherScript', { scripts: fmtList(names) });
}

/** otherLanguageNotice: what the app says when the passages that match a question are in its script but another language. */
export function otherLanguageNotice(languages: readonly string[]): string {
  const names = languages.length > 0 ? languages.map((l) => languageName(l)) : [t('language.other')];
  return t('ask.otherLanguage', { languages: fmtList(names) });
}
