// Tyre pressures in the owner's unit: exact conversions (1 bar = 100 kPa, 1 psi =
// 6.894757293168361... kPa), rounded once for display, and what the manual
// printed kept beside them; anything but a pressure is shown as printed.
import { describe, expect, it } from 'vitest';
import { convertPressure, isSpecKey, pressureUnitOf, shownValue } from './specs';
import { SYSTEM_UNITS } from './unitsystems';

const item = (quantity: string | null, unit: string, value = `${quantity} ${unit}`) => ({ value, quantity, unit });

describe('pressures', () => {
  it('converts with the exact factors', () => {
    expect(convertPressure('1', 'bar', 'kPa')).toBe('100');
    expect(convertPressure('230', 'kPa', 'bar')).toBe('2.3');
    // NIST SP 811: 1 psi = 6.894 757 293 168 kPa.
    expect(convertPressure('1', 'psi', 'kPa').startsWith('6.894757293168')).toBe(true);
    expect(convertPressure('2.3', 'bar', 'psi').startsWith('33.35867')).toBe(true);
    // There and back stays within big.js's 20 places.
    expect(Number(convertPressure(convertPressure('33', 'psi', 'bar'), 'bar', 'psi'))).toBeCloseTo(33, 15);
  });
  it('follows the distance unit: psi with miles, bar with km', () => {
    expect(pressureUnitOf(SYSTEM_UNITS.us)).toBe('psi');
    expect(pressureUnitOf(SYSTEM_UNITS.uk)).toBe('psi');
    expect(pressureUnitOf(SYSTEM_UNITS.metric)).toBe('bar');
  });
  it('rounds psi and kPa to whole numbers, bar to a tenth, and keeps what was printed', () => {
    // The en-manual's placard prints both: the conversion gives the psi it prints.
    const psi = (q: string) => shownValue(item(q, 'bar'), 'psi');
    expect(['2.3', '2.5', '2.1', '2.9'].map((q) => psi(q).converted?.quantity)).toEqual(['33', '36', '30', '42']);
    expect(psi('2.3')).toEqual({ printed: '2.3 bar', converted: { quantity: '33', unit: 'psi', places: 0 } });
    expect(shownValue(item('35', 'psi'), 'bar').converted?.quantity).toBe('2.4');
    expect(shownValue(item('36', 'psi'), 'bar').converted?.quantity).toBe('2.5');
    expect(shownValue(item('230', 'kPa'), 'bar').converted).toEqual({ quantity: '2.3', unit: 'bar', places: 1 });
    expect(shownValue(item('2', 'bar'), 'bar')).toEqual({ printed: '2 bar', converted: null });
    expect(shownValue(item('2.4', 'bar', '2,4 bar'), 'psi')).toEqual({ printed: '2,4 bar', converted: { quantity: '35', unit: 'psi', places: 0 } });
  });
  it('shows everything but a pressure as printed', () => {
    for (const it of [item('4.3', 'l'), item('140', 'Nm'), item('95', 'RON'), item('60', 'Ah'), item(null, '', 'SAE 0W-30')]) {
      expect(shownValue(it, 'psi')).toEqual({ printed: it.value, converted: null });
    }
  });
  it('knows the keys docqa answers', () => {
    expect(isSpecKey('tyre_pressure_rear_full_load')).toBe(true);
    expect(isSpecKey('wiper_blades')).toBe(false);
  });
});
