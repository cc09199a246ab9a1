// The strings of the currency question (pages/CurrencyChange.tsx), in every
// language. They are apart from en.ts, de.ts and zh.ts because the question is a
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
  'currency.undoHint': 'To undo this conversion later, change the currency back to {from} here: this device remembers the rate and offers to undo it.',
  'currency.preview': 'For example: {before} → {after}',
  'currency.shared': 'Vehicles shared with you keep their owner\'s currency; those you share show yours.',
  'currency.apply': 'Change currency',
  'currency.errMode': 'Choose: relabel or convert.',
  'currency.errModeUndo': 'Choose: undo the conversion, relabel or convert.',
  'currency.errRate': 'Rate: enter a number greater than 0, written like {example} (at most 9 digits before the decimal separator and 12 after).',
  'currency.offline': 'Changing the currency needs a connection: nothing was changed. Try again when you are online.',
  'currency.relabelled': 'Currency changed to {to}; no amount changed.',
  'currency.converted': 'Currency changed to {to}; {refuels} and {expenses} converted.',
  'currency.failed': 'Currency not changed: {message}',
  'currency.restore': 'Undo the conversion of {date} ({equation}): every amount comes back exactly as it was.',
  'currency.restoreNear': 'Undo the conversion of {date} ({equation}): every amount comes back as it was, or within a thousandth where that rate, below 1, rounded two amounts into one.',
  'currency.equation': '1 {one} = {rate} {other}',
  'currency.rateOne': '1 {one} =',
  'currency.previewEquation': 'Read as: {equation}.',
  'currency.notUndo': 'This does not undo the conversion of {date} ({equation}): {example} becomes {after}, but it was {before} before that conversion. To get the amounts back, choose “Undo the conversion of {date}”.',
  'currency.isUndo': 'This undoes the conversion of {date}: the amounts come back as they were.',
  'currency.backExact': 'Converted back to {from} later at this same rate, every amount comes back exactly.',
  'currency.backNotExact': 'At this rate a conversion back cannot restore every amount exactly: amounts keep 3 decimal places, and a rate that shrinks them merges some. This one would come back as {after} → {back}.',
  'currency.restored': 'Currency changed back to {to}; the conversion of {date} is undone: {refuels} and {expenses} converted back.',
  'currency.refuels_one': '{n} refuel',
  'currency.refuels_other': '{n} refuels',
  'currency.expenses_one': '{n} expense',
  'currency.expenses_other': '{n} expenses',
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
  'currency.undoHint': '以后要撤销这次换算，请在这里把货币改回 {from}：本设备会记住汇率并提供撤销。',
  'currency.preview': '例如：{before} → {after}',
  'currency.shared': '别人共享给您的车辆保持其车主的货币；您共享出去的车辆显示您的货币。',
  'currency.apply': '更改货币',
  'currency.errMode': '请选择：仅更换标签或换算。',
  'currency.errModeUndo': '请选择：撤销换算、仅更换标签或换算。',
  'currency.errRate': '汇率：请输入大于 0 的数字，写法如 {example}（小数点前最多 9 位，小数点后最多 12 位）。',
  'currency.offline': '更改货币需要网络连接：没有任何更改。请在联网后重试。',
  'currency.relabelled': '货币已改为 {to}；金额没有变化。',
  'currency.converted': '货币已改为 {to}；已换算 {refuels}和{expenses}。',
  'currency.failed': '货币未更改：{message}',
  'currency.restore': '撤销 {date} 的换算（{equation}）：每一笔金额都完全恢复原样。',
  'currency.restoreNear': '撤销 {date} 的换算（{equation}）：每一笔金额恢复原样；该汇率小于 1 时若曾把两个金额并为一个，相差不超过千分之一。',
  'currency.equation': '1 {one} = {rate} {other}',
  'currency.rateOne': '1 {one} =',
  'currency.previewEquation': '汇率读作：{equation}。',
  'currency.notUndo': '这不会撤销 {date} 的换算（{equation}）：{example} 会变为 {after}，而该换算之前是 {before}。要恢复金额，请选择“撤销 {date} 的换算”。',
  'currency.isUndo': '这会撤销 {date} 的换算：金额恢复原样。',
  'currency.backExact': '以后按同一汇率换算回 {from} 时，每一笔金额都会完全恢复。',
  'currency.backNotExact': '按此汇率换算回去无法完全恢复每一笔金额：金额保留 3 位小数，缩小金额的汇率会使某些金额合并。此金额会这样回来：{after} → {back}。',
  'currency.restored': '货币已改回 {to}；{date} 的换算已撤销：已换算回 {refuels}和{expenses}。',
  'currency.refuels_one': '{n} 条加油记录',
  'currency.refuels_other': '{n} 条加油记录',
  'currency.expenses_one': '{n} 笔费用',
  'currency.expenses_other': '{n} 笔费用',
};

export const currencyDe: Record<CurrencyKey, string> = {
  'currency.title': 'Währung von {from} auf {to} ändern',
  'currency.explain': 'Ihre Beträge sind als Zahlen in {from} gespeichert. Was bedeutet die Änderung?',
  'currency.relabel': 'Umbenennen: Meine Einträge waren schon immer in {to}. Die Zahlen bleiben; nur das Symbol ändert sich.',
  'currency.convert': 'Umrechnen: Jeder Betrag meiner Fahrzeuge wird zu einem von mir angegebenen Kurs umgerechnet.',
  'currency.direction': 'Der Kurs ist angegeben als',
  'currency.rateForward': '1 {from} = … {to}',
  'currency.rateInverse': '1 {to} = … {from}',
  'currency.undoHint': 'Um diese Umrechnung später rückgängig zu machen, wechseln Sie hier zurück zu {from}: Dieses Gerät merkt sich den Kurs und bietet das Rückgängigmachen an.',
  'currency.preview': 'Zum Beispiel: {before} → {after}',
  'currency.shared': 'Mit Ihnen geteilte Fahrzeuge behalten die Währung ihres Besitzers; die von Ihnen geteilten zeigen Ihre.',
  'currency.apply': 'Währung ändern',
  'currency.errMode': 'Wählen Sie: umbenennen oder umrechnen.',
  'currency.errModeUndo': 'Wählen Sie: Umrechnung rückgängig machen, umbenennen oder umrechnen.',
  'currency.errRate': 'Kurs: Geben Sie eine Zahl größer als 0 ein, geschrieben wie {example} (höchstens 9 Stellen vor dem Dezimaltrennzeichen und 12 danach).',
  'currency.offline': 'Zum Ändern der Währung ist eine Verbindung nötig: Es wurde nichts geändert. Versuchen Sie es erneut, wenn Sie online sind.',
  'currency.relabelled': 'Währung auf {to} geändert; kein Betrag wurde geändert.',
  'currency.converted': 'Währung auf {to} geändert; {refuels} und {expenses} umgerechnet.',
  'currency.failed': 'Währung nicht geändert: {message}',
  'currency.restore': 'Umrechnung vom {date} rückgängig machen ({equation}): Jeder Betrag wird genau wie vorher.',
  'currency.restoreNear': 'Umrechnung vom {date} rückgängig machen ({equation}): Jeder Betrag wird wie vorher oder weicht um höchstens ein Tausendstel ab, wo dieser Kurs unter 1 zwei Beträge zu einem gerundet hat.',
  'currency.equation': '1 {one} = {rate} {other}',
  'currency.rateOne': '1 {one} =',
  'currency.previewEquation': 'Gelesen als: {equation}.',
  'currency.notUndo': 'Das macht die Umrechnung vom {date} ({equation}) nicht rückgängig: {example} wird zu {after}, war aber vor dieser Umrechnung {before}. Um die Beträge zurückzuholen, wählen Sie „Umrechnung vom {date} rückgängig machen“.',
  'currency.isUndo': 'Das macht die Umrechnung vom {date} rückgängig: Die Beträge werden wie vorher.',
  'currency.backExact': 'Später zum selben Kurs zurück in {from} umgerechnet, wird jeder Betrag wieder genau wie jetzt.',
  'currency.backNotExact': 'Zu diesem Kurs kann eine Rückumrechnung nicht jeden Betrag genau wiederherstellen: Beträge haben 3 Nachkommastellen, und ein Kurs, der sie verkleinert, fasst manche zusammen. Dieser käme so zurück: {after} → {back}.',
  'currency.restored': 'Währung zurück auf {to} geändert; die Umrechnung vom {date} ist rückgängig gemacht: {refuels} und {expenses} zurückgerechnet.',
  'currency.refuels_one': '{n} Tankvorgang',
  'currency.refuels_other': '{n} Tankvorgänge',
  'currency.expenses_one': '{n} Ausgabe',
  'currency.expenses_other': '{n} Ausgaben',
};

const CURRENCY = { en: currencyEn, zh: currencyZh, de: currencyDe } as const;

/** tc: t for the currency question's strings. */
export function tc(key: CurrencyKey, params?: Record<string, string | number>): string {
  return fill(CURRENCY[language()][key], params);
}

/** tcn: the plural form of base for n ("1 refuel", "5 refuels"), by Intl.PluralRules of the language in force. */
export function tcn(base: 'currency.refuels' | 'currency.expenses', n: number): string {
  return tc(new Intl.PluralRules(language()).select(n) === 'one' ? `${base}_one` : `${base}_other`, { n });
}
