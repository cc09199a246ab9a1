// The strings of the currency question (pages/CurrencyChange.tsx), in every
// languages. They are apart from en.ts and zh.ts because the question is a
// chunk loaded when a currency is picked: its words load with it, not with the
// first screen, whose 60 KB budget is nearly used. t's rules otherwise: the
// language in force, "{name}" parameters; i18n.test.ts checks that both have
// the same keys and parameters.
import { fill, language } from './index';

export const currencyEn = {
  'currency.title': 'Change the currency from {from} to {to}',
  'currency.explain': 'Your amounts are stored as numbers in {from}. What does the change mean?',
  'currency.relabel': 'Relabel: my records were in {to} all along. The numbers stay; only the symbol changes.',
  'currency.convert': 'Convert: every amount of the vehicles I own is converted at a rate I give.',
  'currency.direction': 'The rate is given as',
  'currency.rateForward': '1 {from} = … {to}',
  'currency.rateInverse': '1 {to} = … {from}',
  'currency.undoHint': 'To undo this conversion later, change back and give the same rate the same way round (1 {from} = … {to}): the amounts come back exactly when that rate is 1 or more.',
  'currency.preview': 'For example: {before} → {after}',
  'currency.shared': 'Vehicles shared with you keep their owner\'s currency; those you share show yours.',
  'currency.apply': 'Change currency',
  'currency.errMode': 'Choose: relabel or convert.',
  'currency.errRate': 'Rate: enter a number greater than 0, written like {example} (at most 9 digits before the decimal separator and 12 after).',
  'currency.offline': 'Changing the currency needs a connection: nothing was changed. Try again when you are online.',
  'currency.relabelled': 'Currency changed to {to}; no amount changed.',
  'currency.converted': 'Currency changed to {to}; {count} refuel records converted.',
  'currency.failed': 'Currency not changed: {message}',
} as const;

export type CurrencyKey = keyof typeof currencyEn;

export const currencyZh: Record<CurrencyKey, string> = {
  'currency.title': '将货币从 {from} 改为 {to}',
  'currency.explain': '您的金额以 {from} 数字保存。这次更改是什么意思？',
  'currency.relabel': '仅更换标签：我的记录本来就是 {to}。数字不变，只更换货币符号。',
  'currency.convert': '换算：按我给出的汇率换算我拥有的车辆的每一笔金额。',
  'currency.direction': '汇率的写法',
  'currency.rateForward': '1 {from} = … {to}',
  'currency.rateInverse': '1 {to} = … {from}',
  'currency.undoHint': '以后要撤销这次换算，请改回原货币并以相同方向给出相同汇率（1 {from} = … {to}）：该汇率不小于 1 时，金额会完全恢复。',
  'currency.preview': '例如：{before} → {after}',
  'currency.shared': '别人共享给您的车辆保持其车主的货币；您共享出去的车辆显示您的货币。',
  'currency.apply': '更改货币',
  'currency.errMode': '请选择：仅更换标签或换算。',
  'currency.errRate': '汇率：请输入大于 0 的数字，写法如 {example}（小数点前最多 9 位，小数点后最多 12 位）。',
  'currency.offline': '更改货币需要网络连接：没有任何更改。请在联网后重试。',
  'currency.relabelled': '货币已改为 {to}；金额没有变化。',
  'currency.converted': '货币已改为 {to}；已换算 {count} 条加油记录。',
  'currency.failed': '货币未更改：{message}',
};

export const currencyDe: Record<CurrencyKey, string> = {
  'currency.title': 'Währung von {from} auf {to} ändern',
  'currency.explain': 'Ihre Beträge sind als Zahlen in {from} gespeichert. Was bedeutet die Änderung?',
  'currency.relabel': 'Umbenennen: Meine Einträge waren schon immer in {to}. Die Zahlen bleiben; nur das Symbol ändert sich.',
  'currency.convert': 'Umrechnen: Jeder Betrag meiner Fahrzeuge wird zu einem von mir angegebenen Kurs umgerechnet.',
  'currency.direction': 'Der Kurs ist angegeben als',
  'currency.rateForward': '1 {from} = … {to}',
  'currency.rateInverse': '1 {to} = … {from}',
  'currency.undoHint': 'Um diese Umrechnung später rückgängig zu machen, wechseln Sie zurück und geben denselben Kurs in derselben Richtung an (1 {from} = … {to}): Die Beträge kommen genau zurück, wenn dieser Kurs 1 oder größer ist.',
  'currency.preview': 'Zum Beispiel: {before} → {after}',
  'currency.shared': 'Mit Ihnen geteilte Fahrzeuge behalten die Währung ihres Besitzers; die von Ihnen geteilten zeigen Ihre.',
  'currency.apply': 'Währung ändern',
  'currency.errMode': 'Wählen Sie: umbenennen oder umrechnen.',
  'currency.errRate': 'Kurs: Geben Sie eine Zahl größer als 0 ein, geschrieben wie {example} (höchstens 9 Stellen vor dem Dezimaltrennzeichen und 12 danach).',
  'currency.offline': 'Zum Ändern der Währung ist eine Verbindung nötig: Es wurde nichts geändert. Versuchen Sie es erneut, wenn Sie online sind.',
  'currency.relabelled': 'Währung auf {to} geändert; kein Betrag wurde geändert.',
  'currency.converted': 'Währung auf {to} geändert; {count} Tankvorgänge umgerechnet.',
  'currency.failed': 'Währung nicht geändert: {message}',
};

const CURRENCY = { en: currencyEn, zh: currencyZh, de: currencyDe } as const;

/** tc: t for the currency question's strings. */
export function tc(key: CurrencyKey, params?: Record<string, string | number>): string {
  return fill(CURRENCY[language()][key], params);
}
