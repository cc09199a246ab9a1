// Every catalogue has every key of the English one and no other, with the
// same {parameters}; and no string of the interface is written in a .tsx
// file outside the catalogues (JSX text, the accessible-name and hint
// attributes, string literals shown as children), read with the TypeScript
// compiler's own parser.
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { browserLanguage, LANGUAGES, languageOf, setLanguage, t, tn } from './index';
import { en } from './en';
import { de } from './de';
import { zh } from './zh';
import { costsDe, costsEn, costsZh } from './costs';
import { currencyDe, currencyEn, currencyZh } from './currency';
import { planDe, planEn, planZh } from './plan';
import { notifyDe, notifyEn, notifyZh } from './notifications';
import { receiptsDe, receiptsEn, receiptsZh } from './receipts';

const params = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '').sort();

// Values that are rightly the same in English and in another language:
// names, abbreviations and words both languages share. A value equal to the
// English one is otherwise a forgotten translation, unless it has no word
// at all (a pattern like "{quantity}, {amount} — {date}") or is a unit
// symbol (the keys unit.*).
// "MM" is the month's letters in a date's pattern in English and German alike.
// Webhook, Push, ntfy and Gotify are the names German and Chinese use too.
const SAME_IN_EVERY_LANGUAGE = new Set(['{page} · CarHub', 'CSV', 'PDF', 'Diesel', 'Hybrid', 'Name', 'Tank', 'Export: {message}', 'MM', 'Webhook', 'Push', 'ntfy', 'Gotify']);
const hasWord = (v: string) => /\p{L}/u.test(v.replace(/\{\w+\}/g, ''));
const untranslated = (key: string, english: string, v: string) =>
  v === english && hasWord(v) && !key.startsWith('unit.') && !SAME_IN_EVERY_LANGUAGE.has(v);

/** problems: what is wrong in cat against the English catalogue base (missing, extra, empty, other parameters, left in English). */
function problems(base: Record<string, string>, cat: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [k, english] of Object.entries(base)) {
    const v = cat[k];
    if (v === undefined) {
      out.push(`${k}: missing`);
      continue;
    }
    if (v.trim() === '' && english.trim() !== '') out.push(`${k}: empty`);
    // A "_one" form may say the one in words ("jeden Monat" for "every {count} month") or as the number.
    const counts = (ps: string[]) => (k.endsWith('_one') ? ps.filter((p) => p !== 'n' && p !== 'count') : ps);
    const want = params(english);
    const have = params(v);
    const ok = counts(have).join() === counts(want).join();
    if (!ok) out.push(`${k}: parameters ${have.join(',')} instead of ${want.join(',')}`);
    if (untranslated(k, english, v)) out.push(`${k}: still English (${JSON.stringify(v)})`);
  }
  for (const k of Object.keys(cat)) if (!(k in base)) out.push(`${k}: not in English`);
  return out;
}

describe('catalogues', () => {
  const sets: [string, Record<string, string>, Record<string, Record<string, string>>][] = [
    ['main', en, { de, zh }],
    ['costs', costsEn, { de: costsDe, zh: costsZh }],
    ['currency', currencyEn, { de: currencyDe, zh: currencyZh }],
    ['plan', planEn, { de: planDe, zh: planZh }],
    ['notifications', notifyEn, { de: notifyDe, zh: notifyZh }],
    ['receipts', receiptsEn, { de: receiptsDe, zh: receiptsZh }],
  ];
  for (const [name, base, others] of sets) {
    for (const [lang, cat] of Object.entries(others)) {
      it(`${name}: ${lang} has every key and no extra one, translated, with the same parameters`, () => {
        expect(problems(base, cat)).toEqual([]);
      });
    }
  }
  it('quotation marks are those of the language: „…“ in German only, “…” in English and Chinese', () => {
    const wrong: string[] = [];
    for (const [name, base, others] of sets) {
      for (const [k, v] of Object.entries(base)) if (/[„»«]/.test(v)) wrong.push(`${name} en ${k}`);
      for (const [k, v] of Object.entries(others.zh ?? {})) if (/[„»«]/.test(v)) wrong.push(`${name} zh ${k}`);
      for (const [k, v] of Object.entries(others.de ?? {})) {
        const open = (v.match(/„/g) ?? []).length;
        const close = (v.match(/“/g) ?? []).length;
        if (open !== close || /[”"]/.test(v)) wrong.push(`${name} de ${k}`);
      }
    }
    expect(wrong).toEqual([]);
  });
  it('every language has a catalogue', () => {
    expect([...LANGUAGES].sort()).toEqual(['de', 'en', 'zh']);
  });
  it("a first start speaks the first of the browser's languages the app has, else English", () => {
    expect(browserLanguage(['de-DE', 'en-US'])).toBe('de');
    expect(browserLanguage(['fr-FR', 'zh-CN', 'de'])).toBe('zh');
    expect(browserLanguage(['en-GB', 'de-DE'])).toBe('en');
    expect(browserLanguage(['fr-FR', 'it-IT'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });
  it('the check finds a missing key, an extra one, other parameters and a value left in English', () => {
    const base = { 'a.x': 'Save {n} refuels', 'a.y': 'Odometer', 'a.z_one': 'every {count} month', 'unit.km': 'km' };
    expect(problems(base, { 'a.x': 'Speichern {count}', 'a.y': 'Odometer', 'a.z_one': 'jeden Monat', 'unit.km': 'km', 'a.w': 'x' })).toEqual([
      'a.x: parameters count instead of n',
      'a.y: still English ("Odometer")',
      'a.w: not in English',
    ]);
    expect(problems(base, { 'a.x': '{n} speichern' })).toEqual(['a.y: missing', 'a.z_one: missing', 'unit.km: missing']);
  });
  it('t fills parameters; tn picks the plural form of the language', () => {
    setLanguage('en');
    expect(t('vehicles.nowDefault', { name: 'Scooter' })).toBe('Scooter is now the default vehicle.');
    expect(tn('login.waits', 1)).toBe('1 refuel waits on this device; it is sent after you sign in.');
    expect(tn('login.waits', 3)).toBe('3 refuels wait on this device; they are sent after you sign in.');
    setLanguage('zh');
    expect(t('vehicles.nowDefault', { name: 'Scooter' })).toBe('Scooter 现在是默认车辆。');
    expect(tn('login.waits', 3)).toBe('本设备上有 3 条加油记录在等待；登录后会发送。');
    // What a screen reader hears of a chart or a trend of one month: no "1 months", no "1 Monate".
    setLanguage('en');
    expect(tn('stats.chartLabel', 1, { title: 'Consumption' })).toBe('Consumption: chart of one month. Use Show as table for the figures.');
    expect(tn('home.trendLabel', 4)).toBe('Consumption of the last 4 months with a figure');
    setLanguage('de');
    expect(tn('home.trendLabel', 1)).toBe('Verbrauch des letzten Monats mit einem Wert');
    expect(tn('stats.chartLabel', 2, { title: 'Verbrauch' })).toBe('Verbrauch: Diagramm über 2 Monate. Mit „Als Tabelle zeigen“ sehen Sie die Werte.');
    setLanguage('en');
  });
  it('a zh-* locale reads Simplified Chinese, a de-* one German; every other English', () => {
    expect(languageOf('zh-CN')).toBe('zh');
    expect(languageOf('zh')).toBe('zh');
    expect(languageOf('zh-Hant-TW')).toBe('zh');
    expect(languageOf('en-US')).toBe('en');
    expect(languageOf('de-DE')).toBe('de');
    expect(languageOf('de-AT')).toBe('de');
    expect(languageOf('de')).toBe('de');
    expect(languageOf('zu-ZA')).toBe('en');
  });
  it('German plurals follow Intl.PluralRules("de")', () => {
    setLanguage('de');
    expect(tn('login.waits', 1)).toBe('1 Tankvorgang wartet auf diesem Gerät; er wird gesendet, wenn Sie sich angemeldet haben.');
    expect(tn('login.waits', 3)).toBe('3 Tankvorgänge warten auf diesem Gerät; sie werden gesendet, wenn Sie sich angemeldet haben.');
    expect(t('vehicles.nowDefault', { name: 'Golf' })).toBe('Golf ist jetzt das Standardfahrzeug.');
    setLanguage('en');
  });
});

// Attributes people read or hear.
const READ_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label', 'aria-valuetext', 'aria-description']);
// Names that are not words of the interface.
const ALLOWED = new Set(['CarHub']);
const hasWords = (s: string) => /\p{L}/u.test(s) && !ALLOWED.has(s.trim());

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** literalsIn: the string literals an expression can evaluate to directly (through ?:, &&, ||, ??, templates). */
function literalsIn(e: ts.Expression, out: ts.Node[]): void {
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) out.push(e);
  else if (ts.isTemplateExpression(e)) {
    out.push(e.head);
    for (const span of e.templateSpans) {
      out.push(span.literal);
      literalsIn(span.expression, out);
    }
  } else if (ts.isParenthesizedExpression(e)) literalsIn(e.expression, out);
  else if (ts.isConditionalExpression(e)) {
    literalsIn(e.whenTrue, out);
    literalsIn(e.whenFalse, out);
  } else if (ts.isBinaryExpression(e) && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.PlusToken].includes(e.operatorToken.kind)) {
    literalsIn(e.left, out);
    literalsIn(e.right, out);
  }
}

function textOf(n: ts.Node): string {
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) return n.text;
  return n.getText();
}

function uncatalogued(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: Finding[] = [];
  const report = (n: ts.Node, text: string) => {
    if (hasWords(text)) found.push({ file, line: sf.getLineAndCharacterOfPosition(n.getStart()).line + 1, text: text.trim() });
  };
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n)) report(n, n.text);
    else if (ts.isJsxAttribute(n) && READ_ATTRIBUTES.has(n.name.getText()) && n.initializer) {
      const init = n.initializer;
      if (ts.isStringLiteral(init)) report(init, init.text);
      else if (ts.isJsxExpression(init) && init.expression) {
        const lits: ts.Node[] = [];
        literalsIn(init.expression, lits);
        for (const l of lits) report(l, textOf(l));
      }
    } else if (ts.isJsxExpression(n) && n.expression && (ts.isJsxElement(n.parent) || ts.isJsxFragment(n.parent))) {
      // A child {…}: a literal shown as it is.
      const lits: ts.Node[] = [];
      literalsIn(n.expression, lits);
      for (const l of lits) report(l, textOf(l));
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

// Every .tsx file's text, through Vite's glob import (the same files the build reads).
const SOURCES = import.meta.glob<string>(['../**/*.tsx'], { query: '?raw', import: 'default', eager: true });

describe('no interface string outside the catalogues', () => {
  it('src/**/*.tsx has no JSX text, read attribute or shown literal with words in it', () => {
    const files = Object.entries(SOURCES);
    expect(files.length).toBeGreaterThan(8);
    const found = files.flatMap(([file, text]) => uncatalogued(file, text));
    expect(found.map((x) => `${x.file}:${x.line} ${JSON.stringify(x.text)}`)).toEqual([]);
  });
  it('the scanner finds what it is meant to find', () => {
    const sample = `
      const a = <p>Hello there</p>;
      const b = <input placeholder="Type here" aria-label={x ? 'Yes' : \`No \${n}\`} class="plain words" />;
      const c = <p>{ok ? ' (full)' : t('x')}{'·'}{' '}</p>;
      const d = <span class="brand">CarHub</span>;
      const e = <p>{t('fine')}<a href="/x">{t('ok')}</a> </p>;`;
    expect(uncatalogued('sample.tsx', sample).map((x) => x.text)).toEqual(['Hello there', 'Type here', 'Yes', 'No', '(full)']);
  });
});
