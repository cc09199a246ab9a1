import { describe, expect, it } from 'vitest';
import { changeUnit, SYSTEM_UNITS, systemOf } from './unitsystems';
import type { Units } from './units';

const { metric, us, uk } = SYSTEM_UNITS;

describe('unit systems', () => {
  it('each system sets all five units together', () => {
    expect(metric).toEqual({ distance: 'km', volume: 'l', consumption: 'l_per_100km', electric: 'kwh_per_100km', gas: 'kg_per_100km' });
    expect(us).toEqual({ distance: 'mi', volume: 'gal_us', consumption: 'mpg_us', electric: 'mi_per_kwh', gas: 'kg_per_100km' });
    // The United Kingdom: miles and mpg in imperial gallons, litres at the pump.
    expect(uk).toEqual({ distance: 'mi', volume: 'l', consumption: 'mpg_uk', electric: 'mi_per_kwh', gas: 'kg_per_100km' });
  });

  it('the system shown is the one whose units match exactly, else Custom', () => {
    expect(systemOf(metric)).toBe('metric');
    expect(systemOf(us)).toBe('us');
    expect(systemOf(uk)).toBe('uk');
    // One unit off makes it Custom, whichever unit it is.
    expect(systemOf({ ...metric, consumption: 'km_per_l' })).toBe('custom');
    expect(systemOf({ ...metric, gas: 'km_per_kg' })).toBe('custom');
    expect(systemOf({ ...metric, electric: 'km_per_kwh' })).toBe('custom');
    expect(systemOf({ ...us, volume: 'gal_uk' })).toBe('custom');
    expect(systemOf({ ...uk, consumption: 'mpg_us' })).toBe('custom');
    // The defect this replaces: miles and US gallons with L/100 km.
    expect(systemOf({ ...metric, distance: 'mi', volume: 'gal_us' })).toBe('custom');
  });
});

describe('a change of one unit, and what follows', () => {
  const cases: { name: string; from: Units; field: keyof Units; value: string; to: Units; followed: (keyof Units)[] }[] = [
    // Distance.
    { name: 'metric, distance to miles: mpg in the UK gallon (miles with litres is the UK way) and mi/kWh', from: metric, field: 'distance', value: 'mi', to: uk, followed: ['consumption', 'electric'] },
    { name: 'US, distance to km: L/100 km and kWh/100 km; the gallons stay', from: us, field: 'distance', value: 'km',
      to: { distance: 'km', volume: 'gal_us', consumption: 'l_per_100km', electric: 'kwh_per_100km', gas: 'kg_per_100km' }, followed: ['consumption', 'electric'] },
    { name: 'UK, distance to km: metric', from: uk, field: 'distance', value: 'km', to: metric, followed: ['consumption', 'electric'] },
    { name: 'km, US gallons and L/100 km, distance to miles: mpg (US)', from: { ...metric, volume: 'gal_us' }, field: 'distance', value: 'mi', to: us, followed: ['consumption', 'electric'] },
    { name: 'km, UK gallons, distance to miles: mpg (UK)', from: { ...metric, volume: 'gal_uk' }, field: 'distance', value: 'mi',
      to: { ...uk, volume: 'gal_uk' }, followed: ['consumption', 'electric'] },
    { name: 'km/L and km/kWh, distance to miles: they follow too', from: { ...metric, consumption: 'km_per_l', electric: 'km_per_kwh' }, field: 'distance', value: 'mi', to: uk, followed: ['consumption', 'electric'] },
    { name: 'km/L and km/kWh kept when the distance is km again', from: { ...metric, consumption: 'km_per_l', electric: 'km_per_kwh' }, field: 'distance', value: 'km',
      to: { ...metric, consumption: 'km_per_l', electric: 'km_per_kwh' }, followed: [] },
    { name: 'gas never follows (no miles-based unit)', from: { ...metric, gas: 'km_per_kg' }, field: 'distance', value: 'mi', to: { ...uk, gas: 'km_per_kg' }, followed: ['consumption', 'electric'] },
    // Volume.
    { name: 'US, volume to litres: mpg (UK), so the UK system', from: us, field: 'volume', value: 'l', to: uk, followed: ['consumption'] },
    { name: 'UK, volume to US gallons: mpg (US), so the US system', from: uk, field: 'volume', value: 'gal_us', to: us, followed: ['consumption'] },
    { name: 'US, volume to UK gallons: mpg (UK)', from: us, field: 'volume', value: 'gal_uk', to: { ...us, volume: 'gal_uk', consumption: 'mpg_uk' }, followed: ['consumption'] },
    { name: 'UK, volume to UK gallons: mpg (UK) already fits', from: uk, field: 'volume', value: 'gal_uk', to: { ...uk, volume: 'gal_uk' }, followed: [] },
    { name: 'metric, volume to US gallons: L/100 km still fits km', from: metric, field: 'volume', value: 'gal_us', to: { ...metric, volume: 'gal_us' }, followed: [] },
    { name: 'a volume change never moves the electric unit', from: { ...us, electric: 'kwh_per_100km' }, field: 'volume', value: 'l',
      to: { ...uk, electric: 'kwh_per_100km' }, followed: ['consumption'] },
    // Consumption units chosen themselves are kept, whatever the mix.
    { name: 'US, consumption to L/100 km: kept (Custom)', from: us, field: 'consumption', value: 'l_per_100km', to: { ...us, consumption: 'l_per_100km' }, followed: [] },
    { name: 'metric, consumption to mpg (US): kept', from: metric, field: 'consumption', value: 'mpg_us', to: { ...metric, consumption: 'mpg_us' }, followed: [] },
    { name: 'metric, electric to mi/kWh: kept', from: metric, field: 'electric', value: 'mi_per_kwh', to: { ...metric, electric: 'mi_per_kwh' }, followed: [] },
    { name: 'UK, gas to km/kg: kept', from: uk, field: 'gas', value: 'km_per_kg', to: { ...uk, gas: 'km_per_kg' }, followed: [] },
    // The same unit again changes nothing.
    { name: 'US, distance to miles again: nothing follows', from: us, field: 'distance', value: 'mi', to: us, followed: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(changeUnit(c.from, c.field, c.value as never)).toEqual({ units: c.to, followed: c.followed });
    });
  }

  it('the systems read back after each switch', () => {
    expect(systemOf(changeUnit(us, 'distance', 'km').units)).toBe('custom');
    expect(systemOf(changeUnit(metric, 'distance', 'mi').units)).toBe('uk');
    expect(systemOf(changeUnit(us, 'volume', 'l').units)).toBe('uk');
    expect(systemOf(changeUnit(uk, 'distance', 'km').units)).toBe('metric');
  });
});
