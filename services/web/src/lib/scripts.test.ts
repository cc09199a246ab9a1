import { afterEach, describe, expect, it } from 'vitest';
import { noticeOf } from '../api/docqa';
import { setLanguage } from '../i18n';
import { otherLanguageNotice, otherScriptNotice, scriptName } from './scripts';

afterEach(() => setLanguage('en'));

describe('the other-script notice', () => {
  it('says in English that the manuals are in another language, naming their script', () => {
    setLanguage('en');
    expect(otherScriptNotice(['Latin'])).toBe(
      'Your manuals are in another language: the passages that match your question are written in the Latin alphabet. ' +
        'Without an AI model nothing is translated, so none is quoted. Ask in the language of the manuals, or open a passage under "More sources".',
    );
    expect(otherScriptNotice(['Latin', 'Han', 'Cyrillic'])).toContain('written in the Latin alphabet, Chinese characters, and Cyrillic.');
  });
  it('and in Chinese', () => {
    setLanguage('zh');
    expect(otherScriptNotice(['Latin'])).toBe(
      '你的手册是另一种语言：与你的问题相符的段落是用拉丁字母写的。未配置 AI 模型时无法翻译，因此不作引用。请用手册的语言提问，或在“更多出处”中打开段落。',
    );
    expect(otherScriptNotice(['Latin', 'Han'])).toContain('是用拉丁字母和汉字写的');
  });
  it('names a script it has no word for by its Unicode name, and none as another script', () => {
    setLanguage('en');
    expect(scriptName('Georgian')).toBe('Georgian');
    expect(scriptName('Japanese')).toBe('Japanese');
    expect(otherScriptNotice([])).toContain('written in another script.');
    setLanguage('zh');
    expect(scriptName('Han')).toBe('汉字');
    expect(otherScriptNotice([])).toContain('是用另一种文字写的');
  });
});

describe('the other-language notice', () => {
  it('names the manuals\' languages in the app\'s language', () => {
    setLanguage('en');
    expect(otherLanguageNotice(['en'])).toBe(
      'Your manuals are in another language: the passages that match your question are written in English. ' +
        'Without an AI model nothing is translated, so none is quoted. Ask in the language of the manuals, or open a passage under "More sources".',
    );
    setLanguage('de');
    expect(otherLanguageNotice(['en', 'fr'])).toContain('sind auf Englisch und Französisch geschrieben.');
    setLanguage('zh');
    expect(otherLanguageNotice(['en'])).toContain('是用英语写的');
    expect(otherLanguageNotice([])).toContain('是用另一种语言写的');
  });
});

describe('noticeOf: the notice of a sources event', () => {
  it('reads other_script with its scripts, dropping what is not a name', () => {
    expect(noticeOf({ mode: 'quotes', notice: 'other_script', scripts: ['Latin', 7, 'Han'] })).toEqual({ kind: 'other_script', scripts: ['Latin', 'Han'] });
    expect(noticeOf({ mode: 'quotes', notice: 'other_script' })).toEqual({ kind: 'other_script', scripts: [] });
  });
  it('is null without one, for a notice it does not know, and in answer mode', () => {
    expect(noticeOf({ mode: 'quotes', notice: 'no_match', sources: [], more: [] })).toEqual({ kind: 'no_match' });
    expect(noticeOf({ mode: 'answer', notice: 'no_match' })).toBeNull();
    expect(noticeOf({ mode: 'quotes', notice: 'other_language', languages: ['en', 3] })).toEqual({ kind: 'other_language', languages: ['en'] });
    expect(noticeOf({ mode: 'quotes', sources: [], more: [] })).toBeNull();
    expect(noticeOf({ mode: 'quotes', notice: 'something_new', scripts: ['Latin'] })).toBeNull();
    expect(noticeOf({ mode: 'answer', notice: 'other_script', scripts: ['Latin'] })).toBeNull();
  });
});
