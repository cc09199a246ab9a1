// What a scanned receipt puts into Add refuel and the expense form: numbers
// in the owner's format (read back by the form's own parser to the same
// decimal), marks and unsure readings, and nothing converted behind the
// owner's back (litres on a form in gallons, another currency on an
// expense), each said instead.
import { afterEach, describe, expect, it } from 'vitest';
import { expenseFill, refuelFill, type FormContext } from './receipts';
import { setFormat } from './format';
import { setLanguage } from '../i18n';
import { readNumber } from './numbers';
import { METRIC } from './units';
import { SYSTEM_UNITS } from './unitsystems';
import type { Scan } from '../api/receipts';
import { unreachable } from '../api/receipts';
import { ApiError, NetworkError } from '../api/http';

// dev-05 of docqa's corpus (services/docqa/internal/receipt/testdata/dev/05-de-aral-e10.txt).
const aral: Scan = {
  kind: 'fuel',
  fields: { date: '2026-11-30', time: '16:05', quantity: '45.32', unit: 'l', unit_price: '1.759', total: '79.72', currency: 'EUR', energy: 'gasoline', vendor: 'ARAL Tankstelle' },
  confidence: { total: 0.93, quantity: 0.91, unit_price: 0.42, date: 0.88 },
};

const metricEUR: FormContext = { energy: 'diesel', units: METRIC, home: 'EUR', when: '2026-12-07T09:30', currencies: ['CHF', 'EUR', 'GBP', 'USD'] };

afterEach(() => {
  setLanguage('en');
  setFormat('en-US', 'USD');
});

describe('refuelFill', () => {
  it('fills every field a fuel receipt prints, in the owner\'s number format, each marked; an unsure one is marked so', () => {
    setLanguage('de');
    setFormat('de-DE', 'EUR');
    const f = refuelFill(aral, metricEUR);
    expect(f.values).toEqual({ when: '2026-11-30T16:05', energy: 'gasoline', station: 'ARAL Tankstelle', total: '79,72', quantity: '45,32', price: '1,759' });
    expect(f.marks).toEqual({ when: 'read', energy: 'read', station: 'read', total: 'read', quantity: 'read', price: 'unsure' });
    expect(f.notes).toEqual([]);
    expect(f.words).toEqual({ read: 'Aus dem Beleg gelesen', unsure: 'Aus dem Beleg gelesen, aber unsicher: bitte prüfen' });
    // The form's own parser reads each back to the receipt's decimal.
    expect([f.values.quantity, f.values.total, f.values.price].map((v) => readNumber(v!, 'decimal', 'de-DE'))).toEqual(['45.32', '79.72', '1.759']);
  });

  it('litres on a form in US gallons: the quantity and its price are left out and said, the total kept', () => {
    setFormat('en-US', 'USD');
    const f = refuelFill({ ...aral, fields: { ...aral.fields, currency: 'USD' } }, { ...metricEUR, units: SYSTEM_UNITS.us, home: 'USD' });
    expect(f.values.quantity).toBeUndefined();
    expect(f.values.price).toBeUndefined();
    expect(f.values.total).toBe('79.72');
    expect(f.notes).toEqual(['The quantity 45.32 L and its price were not used: this form takes gal. Enter the quantity in gal.']);
  });

  it('gallons on a form in US gallons are taken as printed', () => {
    const f = refuelFill({ kind: 'fuel', fields: { quantity: '10.5', unit: 'gal', total: '36.75', currency: 'USD', unit_price: '3.5' } }, { ...metricEUR, energy: 'gasoline', units: SYSTEM_UNITS.us, home: 'USD' });
    expect(f.values).toMatchObject({ quantity: '10.5', total: '36.75', price: '3.5' });
  });

  it('another currency than the vehicle\'s: the form\'s "paid in another currency" is set, the amount charged left to the owner', () => {
    const f = refuelFill({ ...aral, fields: { ...aral.fields, currency: 'CHF' } }, metricEUR);
    expect(f.values).toMatchObject({ paidIn: 'CHF', total: '79.72', price: '1.759' });
    expect(f.marks.paidIn).toBe('read');
    expect(f.notes).toEqual(['Paid in CHF: “Paid in another currency” is set. Enter what your card was charged in EUR.']);
  });

  it('a currency the form cannot be paid in: no money is filled, and it is said', () => {
    const f = refuelFill({ ...aral, fields: { ...aral.fields, currency: 'XYZ' } }, metricEUR);
    expect(f.values.total).toBeUndefined();
    expect(f.values.price).toBeUndefined();
    expect(f.values.quantity).toBe('45.32');
    expect(f.notes[0]).toContain('79.72 XYZ');
  });

  it('no currency printed: the total is taken in the vehicle\'s and that is said', () => {
    const f = refuelFill({ kind: 'fuel', fields: { total: '20.00' } }, metricEUR);
    expect(f.values.total).toBe('20.00');
    expect(f.notes).toEqual(['The receipt names no currency: the amount is taken as EUR.']);
  });

  it('a charge fills an electric refuel in kWh; a date without a time keeps the form\'s time', () => {
    const f = refuelFill({ kind: 'charge', fields: { date: '2026-11-02', quantity: '38.4', unit: 'kWh', total: '18.43', currency: 'EUR' } }, metricEUR);
    expect(f.values).toMatchObject({ energy: 'electricity', quantity: '38.4', total: '18.43', when: '2026-11-02T09:30' });
  });

  it('a quantity without a unit is not used; a bill fills nothing and says where it belongs', () => {
    expect(refuelFill({ kind: 'fuel', fields: { quantity: '40' } }, metricEUR).notes).toEqual(['The quantity 40 was not used: the receipt does not say its unit.']);
    const bill = refuelFill({ kind: 'expense', fields: { total: '412.50', currency: 'EUR', date: '2026-11-20' } }, metricEUR);
    expect(bill.values).toEqual({});
    expect(bill.notes).toEqual(['This reads as a bill, not a refuel: nothing was filled in. Add it as an expense under Costs.']);
  });

  it('never shows a value that is not a decimal as read', () => {
    const f = refuelFill({ kind: 'fuel', fields: { total: '1,234.5', quantity: 'abc', unit: 'l', date: '30.11.2026' } }, metricEUR);
    expect(f.values).toEqual({});
  });
});

describe('expenseFill', () => {
  it('a workshop invoice fills the amount, date, odometer and vendor', () => {
    setFormat('de-DE', 'EUR');
    const f = expenseFill({ kind: 'expense', fields: { total: '412.50', currency: 'EUR', date: '2026-11-20', odometer: '48210', vendor: 'Autohaus Meier' }, confidence: { odometer: 0.5 } }, { home: 'EUR', when: '2026-12-07T09:30' });
    expect(f.values).toEqual({ amount: '412,50', when: '2026-11-20T09:30', odometer: '48210', vendor: 'Autohaus Meier' });
    expect(f.marks).toEqual({ amount: 'read', when: 'read', odometer: 'unsure', vendor: 'read' });
  });

  it('another currency is not used on an expense; a fuel receipt fills total, date and station and points to Add refuel', () => {
    const chf = expenseFill({ kind: 'expense', fields: { total: '80', currency: 'CHF' } }, { home: 'EUR', when: '2026-12-07T09:30' });
    expect(chf.values.amount).toBeUndefined();
    expect(chf.notes).toEqual(['The total 80 CHF was not used: this vehicle’s costs are kept in EUR. Enter what was charged in EUR.']);
    const fuel = expenseFill(aral, { home: 'EUR', when: '2026-12-07T09:30' });
    expect(fuel.values).toEqual({ amount: '79.72', when: '2026-11-30T16:05', vendor: 'ARAL Tankstelle' });
    expect(fuel.notes[0]).toMatch(/^This reads as a fuel receipt/);
  });
});

describe('unreachable', () => {
  it('no answer, or a gateway without docqa, waits as a draft; docqa\'s own answers do not', () => {
    expect(unreachable(new NetworkError('x'))).toBe(true);
    expect(unreachable(new ApiError(502, 'HTTP_502', 'x'))).toBe(true);
    expect(unreachable(new ApiError(503, 'HTTP_503', 'x'))).toBe(true);
    expect(unreachable(new ApiError(503, 'UNAVAILABLE', 'no OCR'))).toBe(false);
    expect(unreachable(new ApiError(400, 'INVALID_ARGUMENT', 'file'))).toBe(false);
  });
});
