// The specifications card's catalogue keeps the rules of the main ones (the
// same keys in every language, the same {parameters}, nothing empty), has a
// label for every key docqa answers, and says a converted pressure with the
// printed one beside it, in the owner's number format.
import { describe, expect, it } from 'vitest';
import { specLabel, specValue, specsDe, specsEn, specsZh, ts } from './specs';
import { setLanguage } from './index';
import { setFormat } from '../lib/format';
import { SPEC_KEYS } from '../lib/specs';

const params = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the specifications catalogue', () => {
  it('has every key in every language, with the same parameters', () => {
    for (const other of [specsDe, specsZh]) {
      expect(Object.keys(other).sort()).toEqual(Object.keys(specsEn).sort());
      for (const k of Object.keys(specsEn) as (keyof typeof specsEn)[]) {
        expect(other[k].trim().length, k).toBeGreaterThan(0);
        expect(params(other[k]), k).toEqual(params(specsEn[k]));
      }
    }
  });
  it('labels each key in the app\'s language, an unknown one as docqa names it', () => {
    setLanguage('en');
    expect(SPEC_KEYS.map(specLabel)).toEqual([
      'Engine oil', 'Engine oil capacity (with filter)', 'Tyre pressure, front', 'Tyre pressure, rear',
      'Tyre pressure, front, full load', 'Tyre pressure, rear, full load', 'Fuel', 'Coolant', 'AdBlue tank',
      'Wheel bolt torque', 'Battery',
    ]);
    expect(specLabel('wiper_blades')).toBe('wiper_blades');
    expect(ts('specs.page', { page: '212' })).toBe('From the manual, p. 212');
    setLanguage('de');
    expect(specLabel('tyre_pressure_front_full_load')).toBe('Reifendruck vorn, volle Beladung');
    setLanguage('zh');
    expect(specLabel('wheel_bolt_torque')).toBe('车轮螺栓拧紧力矩');
    setLanguage('en');
  });
  it('says a converted pressure with the printed one, in the owner\'s number format', () => {
    setLanguage('en');
    setFormat('en-US', 'USD');
    expect(specValue({ value: '2.3 bar', quantity: '2.3', unit: 'bar' }, 'psi')).toBe('33 psi (2.3 bar as printed)');
    expect(specValue({ value: '33 psi', quantity: '33', unit: 'psi' }, 'psi')).toBe('33 psi');
    expect(specValue({ value: '4.3 l', quantity: '4.3', unit: 'l' }, 'psi')).toBe('4.3 l');
    setLanguage('de');
    setFormat('de-DE', 'EUR');
    expect(specValue({ value: '36 psi', quantity: '36', unit: 'psi' }, 'bar')).toBe('2,5 bar (gedruckt: 36 psi)');
    setLanguage('en');
    setFormat('en-US', 'USD');
  });
});
