// The catalogue of the maintenance plan keeps the rules of the main ones:
// the same keys in both languages, the same {parameters}, nothing empty;
// tp and tpn follow the language in force.
import { describe, expect, it } from 'vitest';
import { planEn, planZh, tp, tpn } from './plan';
import { setLanguage } from './index';

const params = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the plan catalogue', () => {
  it('has every key in both languages, with the same parameters', () => {
    expect(Object.keys(planZh).sort()).toEqual(Object.keys(planEn).sort());
    for (const k of Object.keys(planEn) as (keyof typeof planEn)[]) {
      expect(planZh[k].trim().length, k).toBeGreaterThan(0);
      expect(params(planZh[k]), k).toEqual(params(planEn[k]));
    }
  });
  it('tpn picks one or other and fills the parameters', () => {
    setLanguage('en');
    expect(tpn('plan.add', 1, { vehicle: 'Golf' })).toBe('Add 1 reminder to Golf');
    expect(tpn('plan.add', 4, { vehicle: 'Golf' })).toBe('Add 4 reminders to Golf');
    expect(tp('plan.pageLabel', { page: '8-3' })).toBe('Show page 8-3');
    setLanguage('zh');
    expect(tpn('plan.add', 4, { vehicle: 'Golf' })).toBe('为Golf添加 4 条提醒');
    setLanguage('en');
  });
});
