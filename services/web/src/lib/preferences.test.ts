import { describe, expect, it } from 'vitest';
import { complete, defaultsFor, PREFERENCE_FIELDS } from './preferences';
import { guessedFields, loadPreferences, overlay } from '../offline/preferences';
import type { OutboxItem } from '../offline/outbox';

describe('defaults from the browser locale', () => {
  it('the United States: miles, US gallons, mpg, dollars', () => {
    expect(defaultsFor('en-US', 'America/Chicago')).toEqual({
      distance_unit: 'mi', volume_unit: 'gal_us', consumption_unit: 'mpg_us', electric_consumption_unit: 'mi_per_kwh',
      gas_consumption_unit: 'kg_per_100km', currency: 'USD', locale: 'en-US', time_zone: 'America/Chicago', language: 'en',
    });
  });
  it('the language is the browser\'s first the app has; by default that of the locale', () => {
    expect(defaultsFor('de-DE', 'Europe/Berlin').language).toBe('de');
    expect(defaultsFor('zh-CN', 'Asia/Shanghai').language).toBe('zh');
    expect(defaultsFor('fr-FR', 'Europe/Paris').language).toBe('en');
    expect(defaultsFor('de-CH', 'Europe/Zurich', 'en')).toMatchObject({ language: 'en', locale: 'de-CH', currency: 'CHF' });
  });
  it('the United Kingdom: miles and mpg (UK), litres at the pump, pounds', () => {
    const p = defaultsFor('en-GB', 'Europe/London');
    expect([p.distance_unit, p.volume_unit, p.consumption_unit, p.electric_consumption_unit, p.currency]).toEqual(['mi', 'l', 'mpg_uk', 'mi_per_kwh', 'GBP']);
  });
  it('elsewhere metric, in the region\'s currency (a bare language by its likely region)', () => {
    const de = defaultsFor('de-DE', 'Europe/Berlin');
    expect([de.distance_unit, de.volume_unit, de.consumption_unit, de.electric_consumption_unit, de.currency]).toEqual(['km', 'l', 'l_per_100km', 'kwh_per_100km', 'EUR']);
    expect(defaultsFor('zh', 'Asia/Shanghai').currency).toBe('CNY');
    expect(defaultsFor('ja-JP', 'Asia/Tokyo').currency).toBe('JPY');
    expect(defaultsFor('en-IE', 'Europe/Dublin').distance_unit).toBe('km');
    expect(defaultsFor('not a locale', 'UTC').currency).toBe('USD');
  });
});

describe('complete and overlay', () => {
  const d = defaultsFor('en-US', 'UTC');
  it('null fields take the defaults and are listed to save; chosen ones stay', () => {
    const { prefs, missing } = complete({ distance_unit: 'km', volume_unit: null, currency: 'EUR', locale: null, language: 'de' }, d);
    expect(prefs.distance_unit).toBe('km');
    expect(prefs.volume_unit).toBe('gal_us');
    expect(prefs.currency).toBe('EUR');
    expect(prefs.language).toBe('de');
    expect(missing).toEqual({
      volume_unit: 'gal_us', consumption_unit: 'mpg_us', electric_consumption_unit: 'mi_per_kwh', gas_consumption_unit: 'kg_per_100km',
      locale: 'en-US', time_zone: 'UTC',
    });
    expect(complete({ language: 'fr' as never }, d).prefs.language).toBe('en');
  });
  it('an unknown unit from a newer service falls back to the default without being overwritten', () => {
    const { prefs, missing } = complete({ distance_unit: 'furlong' as never }, d);
    expect(prefs.distance_unit).toBe('mi');
    expect('distance_unit' in missing).toBe(false);
  });
  it('queued patches are laid over the stored preferences in order; refused ones are not', () => {
    const item = (body: object, state: 'pending' | 'attention' = 'pending'): OutboxItem =>
      ({ key: JSON.stringify(body), kind: 'preferences', method: 'PUT', path: '/api/preferences', body: JSON.stringify(body), createdAt: '', state, attempts: 0 });
    const got = overlay({ distance_unit: 'km', currency: 'EUR' }, [item({ distance_unit: 'mi' }), item({ currency: 'XXX' }, 'attention'), item({ distance_unit: 'km', locale: 'zh-CN' })]);
    expect(got).toEqual({ distance_unit: 'km', currency: 'EUR', locale: 'zh-CN' });
  });
});

describe('loadPreferences', () => {
  const queuedItem = (body: object): OutboxItem =>
    ({ key: 'k', kind: 'preferences', method: 'PUT', path: '/api/preferences', body: JSON.stringify(body), createdAt: '', state: 'pending', attempts: 0 });
  const none = { distance_unit: null, volume_unit: null, consumption_unit: null, electric_consumption_unit: null, gas_consumption_unit: null, currency: null, locale: null, time_zone: null, language: null };

  it('the first browser does not decide for everyone: its guesses are in force on it, the next browser guesses its own', async () => {
    // The deps have no save: loadPreferences has no way to write a guess.
    const gb = await loadPreferences({ fetch: () => Promise.resolve(none), queued: () => Promise.resolve([]), locale: 'en-GB', timeZone: 'Europe/London', language: 'en' });
    expect([gb.distance_unit, gb.consumption_unit, gb.currency, gb.language]).toEqual(['mi', 'mpg_uk', 'GBP', 'en']);
    expect(guessedFields().sort()).toEqual([...PREFERENCE_FIELDS].sort());
    const de = await loadPreferences({ fetch: () => Promise.resolve(none), queued: () => Promise.resolve([]), locale: 'de-DE', timeZone: 'Europe/Berlin', language: 'de' });
    expect([de.distance_unit, de.consumption_unit, de.currency, de.language, de.time_zone]).toEqual(['km', 'l_per_100km', 'EUR', 'de', 'Europe/Berlin']);
  });
  it('without an answer the browser\'s defaults are in force', async () => {
    const p = await loadPreferences({ fetch: () => Promise.reject(new Error('offline')), queued: () => Promise.resolve([]), locale: 'en-GB', timeZone: 'Europe/London', language: 'en' });
    expect([p.distance_unit, p.consumption_unit]).toEqual(['mi', 'mpg_uk']);
  });
  it('a stored or queued choice is in force and not a guess', async () => {
    const stored = { ...none, distance_unit: 'mi' as const, volume_unit: 'gal_us' as const, consumption_unit: 'mpg_us' as const, electric_consumption_unit: 'mi_per_kwh' as const, gas_consumption_unit: 'kg_per_100km' as const, currency: 'USD', locale: 'en-US' };
    const p = await loadPreferences({ fetch: () => Promise.resolve(stored), queued: () => Promise.resolve([queuedItem({ distance_unit: 'km', time_zone: 'UTC' })]), locale: 'de-DE', timeZone: 'Europe/Berlin', language: 'de' });
    expect([p.distance_unit, p.volume_unit, p.time_zone, p.locale, p.language]).toEqual(['km', 'gal_us', 'UTC', 'en-US', 'en']);
    expect(guessedFields()).toEqual(['language']);
  });
  it('without a language chosen, a chosen locale says it (as before the language was a preference); the browser\'s only without either', async () => {
    const load = (stored: object, language: 'en' | 'de' | 'zh') => loadPreferences({ fetch: () => Promise.resolve({ ...none, ...stored }), queued: () => Promise.resolve([]), locale: 'de-DE', timeZone: 'Europe/Berlin', language });
    expect((await load({ locale: 'zh-CN' }, 'de')).language).toBe('zh');
    expect((await load({ locale: 'en-GB' }, 'de')).language).toBe('en');
    expect((await load({ locale: 'zh-CN', language: 'de' }, 'en')).language).toBe('de');
    expect((await load({}, 'de')).language).toBe('de');
  });
});
