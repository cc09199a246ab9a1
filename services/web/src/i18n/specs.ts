// The strings of the specifications card, in every language. Apart from
// en.ts, de.ts and zh.ts, as plan.ts is: they load with the card's chunk, not
// with the first screen. specs.test.ts checks that the languages have the
// same keys and parameters.
import { fill, language } from './index';
import { fmtNumber } from '../lib/format';
import { shownValue, type PressureUnit, type SpecKey } from '../lib/specs';

export const specsEn = {
  'specs.heading': 'Specifications',
  'specs.show': 'Show the manual’s specifications',
  'specs.hide': 'Hide the specifications',
  'specs.reading': 'Reading the specifications in {name}…',
  'specs.from': 'From {name}',
  'specs.items': 'Specifications from {name}',
  'specs.modeRules': 'Read by rules, as no AI model is configured: check each value against its page.',
  'specs.modeModel': 'Read by the AI model; each value’s numbers were found on its page.',
  'specs.none': 'The specifications in {name} could not be read.',
  'specs.failed': 'The specifications in {name} could not be read: {message}',
  'specs.page': 'From the manual, p. {page}',
  'specs.converted': '{value} ({printed} as printed)',
  'specs.key.engine_oil_grade': 'Engine oil',
  'specs.key.engine_oil_capacity': 'Engine oil capacity (with filter)',
  'specs.key.tyre_pressure_front': 'Tyre pressure, front',
  'specs.key.tyre_pressure_rear': 'Tyre pressure, rear',
  'specs.key.tyre_pressure_front_full_load': 'Tyre pressure, front, full load',
  'specs.key.tyre_pressure_rear_full_load': 'Tyre pressure, rear, full load',
  'specs.key.fuel_grade': 'Fuel',
  'specs.key.coolant': 'Coolant',
  'specs.key.adblue': 'AdBlue tank',
  'specs.key.wheel_bolt_torque': 'Wheel bolt torque',
  'specs.key.battery': 'Battery',
} satisfies Record<`specs.key.${SpecKey}`, string> & Record<string, string>;

export type SpecsKey = keyof typeof specsEn;

export const specsDe: Record<SpecsKey, string> = {
  'specs.heading': 'Technische Daten',
  'specs.show': 'Technische Daten aus dem Handbuch anzeigen',
  'specs.hide': 'Technische Daten ausblenden',
  'specs.reading': 'Die technischen Daten in {name} werden gelesen…',
  'specs.from': 'Aus {name}',
  'specs.items': 'Technische Daten aus {name}',
  'specs.modeRules': 'Nach Regeln gelesen, da kein KI-Modell eingerichtet ist: Prüfen Sie jeden Wert anhand seiner Seite.',
  'specs.modeModel': 'Vom KI-Modell gelesen; die Zahlen jedes Werts wurden auf seiner Seite gefunden.',
  'specs.none': 'Die technischen Daten in {name} konnten nicht gelesen werden.',
  'specs.failed': 'Die technischen Daten in {name} konnten nicht gelesen werden: {message}',
  'specs.page': 'Aus dem Handbuch, S. {page}',
  'specs.converted': '{value} (gedruckt: {printed})',
  'specs.key.engine_oil_grade': 'Motoröl',
  'specs.key.engine_oil_capacity': 'Motoröl-Füllmenge (mit Filter)',
  'specs.key.tyre_pressure_front': 'Reifendruck vorn',
  'specs.key.tyre_pressure_rear': 'Reifendruck hinten',
  'specs.key.tyre_pressure_front_full_load': 'Reifendruck vorn, volle Beladung',
  'specs.key.tyre_pressure_rear_full_load': 'Reifendruck hinten, volle Beladung',
  'specs.key.fuel_grade': 'Kraftstoff',
  'specs.key.coolant': 'Kühlmittel',
  'specs.key.adblue': 'AdBlue-Tank',
  'specs.key.wheel_bolt_torque': 'Anzugsmoment der Radschrauben',
  'specs.key.battery': 'Batterie',
};

export const specsZh: Record<SpecsKey, string> = {
  'specs.heading': '技术参数',
  'specs.show': '显示手册中的技术参数',
  'specs.hide': '隐藏技术参数',
  'specs.reading': '正在读取 {name} 中的技术参数…',
  'specs.from': '出自 {name}',
  'specs.items': '出自 {name} 的技术参数',
  'specs.modeRules': '未配置 AI 模型，由规则读取：请对照页面核对每个数值。',
  'specs.modeModel': '由 AI 模型读取；每个数值的数字都已在其页面上找到。',
  'specs.none': '无法读取 {name} 中的技术参数。',
  'specs.failed': '无法读取 {name} 中的技术参数：{message}',
  'specs.page': '出自手册第 {page} 页',
  'specs.converted': '{value}（手册原文：{printed}）',
  'specs.key.engine_oil_grade': '机油',
  'specs.key.engine_oil_capacity': '机油加注量（含机油滤清器）',
  'specs.key.tyre_pressure_front': '前轮胎压',
  'specs.key.tyre_pressure_rear': '后轮胎压',
  'specs.key.tyre_pressure_front_full_load': '前轮胎压（满载）',
  'specs.key.tyre_pressure_rear_full_load': '后轮胎压（满载）',
  'specs.key.fuel_grade': '燃油',
  'specs.key.coolant': '冷却液',
  'specs.key.adblue': 'AdBlue 尿素罐容量',
  'specs.key.wheel_bolt_torque': '车轮螺栓拧紧力矩',
  'specs.key.battery': '蓄电池',
};

const SPECS = { en: specsEn, de: specsDe, zh: specsZh } as const;

/** ts: t for the strings of the specifications card. */
export function ts(key: SpecsKey, params?: Record<string, string | number>): string {
  return fill(SPECS[language()][key], params);
}

/** specLabel: what an item is, in the app's language; a key this app does not know yet is shown as docqa names it. */
export function specLabel(key: string): string {
  const k = `specs.key.${key}`;
  return k in specsEn ? ts(k as SpecsKey) : key;
}

/** specValue: an item's value as the owner reads it: "33 psi (2.3 bar as printed)" when converted, else as printed. */
export function specValue(item: { value: string; quantity: string | null; unit: string }, owner: PressureUnit): string {
  const s = shownValue(item, owner);
  if (!s.converted) return s.printed;
  return ts('specs.converted', { value: `${fmtNumber(s.converted.quantity, s.converted.places)} ${s.converted.unit}`, printed: s.printed });
}
