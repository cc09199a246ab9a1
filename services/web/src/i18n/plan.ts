// The strings of the maintenance plan proposed from a manual, in every
// language. Apart from en.ts, de.ts and zh.ts, as costs.ts is: they load with the
// plan's chunk, not with the first screen. i18n.test.ts checks that both
// have the same keys and parameters.
import { fill, language } from './index';

export const planEn = {
  'plan.heading': 'Maintenance plan from {name}',
  'plan.reading': 'Reading the maintenance schedule of the manual…',
  'plan.modeRules': 'Read by rules, as no AI model is configured: check each item against its page before you add it.',
  'plan.modeModel': 'Read by the AI model; each item’s numbers were found on its page.',
  'plan.none': 'No maintenance schedule was found in this manual.',
  'plan.vehicle': 'Reminders for',
  'plan.items': 'Proposed items',
  'plan.everyKm': 'every {distance}',
  'plan.everyMonths_one': 'every {count} month',
  'plan.everyMonths_other': 'every {count} months',
  'plan.or': ' or ',
  'plan.pageLabel': 'Show page {page}',
  'plan.planned': 'already planned: {title} (your reminder)',
  'plan.takeInterval': 'Use the manual’s interval in it: {interval}',
  'plan.intervalTaken': '{title} is now {interval}.',
  'plan.intervalNotTaken': 'The interval was not changed: {message}',
  'plan.notApplicable': 'does not apply to this vehicle ({fuel})',
  'plan.add_one': 'Add {count} reminder to {vehicle}',
  'plan.add_other': 'Add {count} reminders to {vehicle}',
  'plan.close': 'Close the plan',
  'plan.added_one': 'Added {count} reminder to {vehicle}.',
  'plan.added_other': 'Added {count} reminders to {vehicle}.',
  'plan.queued_one': '{count} reminder waits for a connection and is sent when you are back online.',
  'plan.queued_other': '{count} reminders wait for a connection and are sent when you are back online.',
  'plan.refused': 'Not added: “{title}”: {message}',
  'plan.failed': 'The plan could not be read: {message}',
  'plan.seeReminders': 'See the reminders',
};

export type PlanKey = keyof typeof planEn;

export const planZh: Record<PlanKey, string> = {
  'plan.heading': '来自 {name} 的保养计划',
  'plan.reading': '正在读取手册中的保养周期表…',
  'plan.modeRules': '未配置 AI 模型，由规则读取：添加前请对照页面核对每一项。',
  'plan.modeModel': '由 AI 模型读取；每一项的数字都已在其页面上找到。',
  'plan.none': '这本手册中没有找到保养周期表。',
  'plan.vehicle': '提醒添加到',
  'plan.items': '建议的项目',
  'plan.everyKm': '每 {distance}',
  'plan.everyMonths_one': '每 {count} 个月',
  'plan.everyMonths_other': '每 {count} 个月',
  'plan.or': '或',
  'plan.pageLabel': '查看第 {page} 页',
  'plan.planned': '已在计划中：{title}（您的提醒）',
  'plan.takeInterval': '改用手册的周期：{interval}',
  'plan.intervalTaken': '{title} 现为{interval}。',
  'plan.intervalNotTaken': '周期未更改：{message}',
  'plan.notApplicable': '不适用于此车辆（{fuel}）',
  'plan.add_one': '为{vehicle}添加 {count} 条提醒',
  'plan.add_other': '为{vehicle}添加 {count} 条提醒',
  'plan.close': '关闭计划',
  'plan.added_one': '已为{vehicle}添加 {count} 条提醒。',
  'plan.added_other': '已为{vehicle}添加 {count} 条提醒。',
  'plan.queued_one': '{count} 条提醒正在等待网络连接，恢复联网后会发送。',
  'plan.queued_other': '{count} 条提醒正在等待网络连接，恢复联网后会发送。',
  'plan.refused': '未添加“{title}”：{message}',
  'plan.failed': '无法读取计划：{message}',
  'plan.seeReminders': '查看提醒',
};

export const planDe: Record<PlanKey, string> = {
  'plan.heading': 'Wartungsplan aus {name}',
  'plan.reading': 'Der Wartungsplan des Handbuchs wird gelesen…',
  'plan.modeRules': 'Nach Regeln gelesen, da kein KI-Modell eingerichtet ist: Prüfen Sie jeden Punkt anhand seiner Seite, bevor Sie ihn hinzufügen.',
  'plan.modeModel': 'Vom KI-Modell gelesen; die Zahlen jedes Punkts wurden auf seiner Seite gefunden.',
  'plan.none': 'In diesem Handbuch wurde kein Wartungsplan gefunden.',
  'plan.vehicle': 'Erinnerungen für',
  'plan.items': 'Vorgeschlagene Punkte',
  'plan.everyKm': 'alle {distance}',
  'plan.everyMonths_one': 'jeden Monat',
  'plan.everyMonths_other': 'alle {count} Monate',
  'plan.or': ' oder ',
  'plan.pageLabel': 'Seite {page} anzeigen',
  'plan.planned': 'bereits geplant: {title} (Ihre Erinnerung)',
  'plan.takeInterval': 'Das Intervall des Handbuchs übernehmen: {interval}',
  'plan.intervalTaken': '{title} ist jetzt {interval}.',
  'plan.intervalNotTaken': 'Das Intervall wurde nicht geändert: {message}',
  'plan.notApplicable': 'gilt nicht für dieses Fahrzeug ({fuel})',
  'plan.add_one': '{count} Erinnerung zu {vehicle} hinzufügen',
  'plan.add_other': '{count} Erinnerungen zu {vehicle} hinzufügen',
  'plan.close': 'Plan schließen',
  'plan.added_one': '{count} Erinnerung zu {vehicle} hinzugefügt.',
  'plan.added_other': '{count} Erinnerungen zu {vehicle} hinzugefügt.',
  'plan.queued_one': '{count} Erinnerung wartet auf eine Verbindung und wird gesendet, sobald Sie wieder online sind.',
  'plan.queued_other': '{count} Erinnerungen warten auf eine Verbindung und werden gesendet, sobald Sie wieder online sind.',
  'plan.refused': 'Nicht hinzugefügt: „{title}“: {message}',
  'plan.failed': 'Der Plan konnte nicht gelesen werden: {message}',
  'plan.seeReminders': 'Erinnerungen ansehen',
};

const PLAN = { en: planEn, zh: planZh, de: planDe } as const;

/** tp: t for the strings of the maintenance plan. */
export function tp(key: PlanKey, params?: Record<string, string | number>): string {
  return fill(PLAN[language()][key], params);
}

/** tpn: tp of a plural key: base_one for 1, base_other otherwise (both languages' rule here). */
export function tpn(base: 'plan.everyMonths' | 'plan.add' | 'plan.added' | 'plan.queued', n: number, params?: Record<string, string | number>): string {
  return tp(`${base}_${n === 1 ? 'one' : 'other'}`, { count: n, ...params });
}
