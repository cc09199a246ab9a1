// The words of docqa's other-script notice (the sources event's
// `notice: "other_script"`, with the manuals' `scripts`): the service sends
// script names, the app says them in its language.
import { hasKey, t } from '../i18n';
import { fmtList } from './format';

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
