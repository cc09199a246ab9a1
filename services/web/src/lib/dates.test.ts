import { describe, expect, it } from 'vitest';
import { dateExample, datePattern, fmtDateInput, fmtTimeInput, parseDateInput, parseTimeInput, timeExample } from './dates';

describe('fmtDateInput', () => {
  it.each([
    ['de-DE', '06.12.2026'], ['de-CH', '06.12.2026'], ['en-US', '12/06/2026'], ['en-GB', '06/12/2026'],
    ['fr-FR', '06/12/2026'], ['zh-CN', '2026/12/06'], ['nl-NL', '06-12-2026'], ['sv-SE', '2026-12-06'],
  ])('%s writes 6 December 2026 as %s, and reads it back', (locale, want) => {
    expect(fmtDateInput('2026-12-06', locale)).toBe(want);
    expect(parseDateInput(want, locale)).toBe('2026-12-06');
    expect(dateExample(locale)).toBe(want);
  });
  it('writes nothing for an empty or broken value', () => {
    expect(fmtDateInput('', 'de-DE')).toBe('');
    expect(fmtDateInput('2026-12-06T17:10', 'de-DE')).toBe('');
  });
});

describe('datePattern', () => {
  it.each([
    ['de-DE', { y: 'JJJJ', m: 'MM', d: 'TT' }, 'TT.MM.JJJJ'], ['en-US', { y: 'YYYY', m: 'MM', d: 'DD' }, 'MM/DD/YYYY'],
    ['en-GB', { y: 'YYYY', m: 'MM', d: 'DD' }, 'DD/MM/YYYY'], ['zh-CN', { y: '年', m: '月', d: '日' }, '年/月/日'],
  ])('%s orders the parts as %s', (locale, words, want) => {
    expect(datePattern(locale, words)).toBe(want);
  });
});

describe('parseDateInput', () => {
  it.each([
    // The locale's own order, with any separators and without leading zeros.
    ['de-DE', '6.12.2026', '2026-12-06'], ['de-DE', '6,12,2026', '2026-12-06'], ['de-DE', ' 6. 12. 2026 ', '2026-12-06'],
    ['en-US', '12/6/2026', '2026-12-06'], ['en-US', '1/2/2026', '2026-01-02'], ['en-GB', '1/2/2026', '2026-02-01'],
    ['fr-FR', '1/2/2026', '2026-02-01'], ['zh-CN', '2026/1/2', '2026-01-02'], ['zh-CN', '2026年12月6日', '2026-12-06'],
    // A year first is year, month, day everywhere.
    ['de-DE', '2026-12-06', '2026-12-06'], ['en-US', '2026-1-2', '2026-01-02'], ['en-GB', '2026/12/06', '2026-12-06'],
    // Leap years.
    ['de-DE', '29.02.2028', '2028-02-29'],
  ])('%s reads %j as %s', (locale, typed, want) => {
    expect(parseDateInput(typed, locale)).toBe(want);
  });
  it.each([
    // Not a date in the owner's order: never read in another order.
    ['en-US', '13/12/2026'], ['de-DE', '12.13.2026'], ['de-DE', '31.02.2026'], ['de-DE', '29.02.2027'], ['en-GB', '31/04/2026'],
    // A two-digit year: which century is a guess.
    ['de-DE', '6.12.26'], ['en-US', '12/6/26'],
    // Not three parts, or not digits.
    ['de-DE', '6.12'], ['de-DE', '6.12.2026.1'], ['de-DE', ''], ['de-DE', 'morgen'], ['de-DE', '06122026'],
    ['de-DE', '00.12.2026'], ['de-DE', '06.00.2026'], ['de-DE', '06.12.0026'],
  ])('%s refuses %j', (locale, typed) => {
    expect(parseDateInput(typed, locale)).toBeNull();
  });
});

describe('fmtTimeInput and parseTimeInput', () => {
  it.each([
    ['de-DE', '17:10', '17:10'], ['de-DE', '05:10', '05:10'], ['en-GB', '17:10', '17:10'], ['zh-CN', '17:10', '17:10'],
    ['en-US', '17:10', '5:10 PM'], ['en-US', '05:10', '5:10 AM'], ['en-US', '00:05', '12:05 AM'], ['en-US', '12:30', '12:30 PM'],
  ])('%s writes %s as %s, and reads it back', (locale, value, want) => {
    expect(fmtTimeInput(value, locale)).toBe(want);
    expect(parseTimeInput(want, locale)).toBe(value);
  });
  it('gives examples as the clock writes them', () => {
    expect(timeExample('de-DE')).toBe('17:10');
    expect(timeExample('en-US')).toBe('5:10 PM');
  });
  it.each([
    ['de-DE', '17.10', '17:10'], ['de-DE', '7:05', '07:05'], ['de-DE', '0:00', '00:00'], ['de-DE', '17,10', '17:10'], ['de-DE', '17:10 Uhr', '17:10'], ['fr-FR', '17h10', '17:10'],
    ['en-US', '5:10 pm', '17:10'], ['en-US', '5:10pm', '17:10'], ['en-US', '5:10 p.m.', '17:10'], ['en-US', '12:05 am', '00:05'],
    // A 24-hour time is read on a twelve-hour clock too: 17 can only be the afternoon.
    ['en-US', '17:10', '17:10'], ['en-US', '0:30', '00:30'], ['en-US', '08:10', '08:10'],
  ])('%s reads %j as %s', (locale, typed, want) => {
    expect(parseTimeInput(typed, locale)).toBe(want);
  });
  it.each([
    // On a twelve-hour clock, 5:10 is morning or evening: refused, not guessed.
    ['en-US', '5:10'], ['en-US', '12:00'], ['en-US', '10:10'], ['en-US', '8:10'],
    ['de-DE', '24:00'], ['de-DE', '17:60'], ['de-DE', '17'], ['de-DE', ''], ['en-US', '13:10 PM'], ['en-US', '0:10 AM'],
    ['de-DE', '5:10 Uhr abends'], ['en-US', 'PM 5:10 PM'],
  ])('%s refuses %j', (locale, typed) => {
    expect(parseTimeInput(typed, locale)).toBeNull();
  });
});
