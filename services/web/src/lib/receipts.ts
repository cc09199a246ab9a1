// What a scanned receipt (api/receipts.ts) puts into a form: the values as
// the form's fields hold them (numbers in the owner's number format, never
// parsed by hand: lib/numbers.ts), which fields they are and how sure the
// reading was, and what was read but not used, with why. Nothing is
// converted behind the owner's back: litres read on a form in gallons, or
// an amount in another currency than the vehicle's costs, are left out and
// said, never turned into the form's unit or currency (issue 56; decided in
// proto-docs/web-decisions.md, "Receipt scan").
import { unitOf, type Energy } from './energy';
import { inputNumber } from './numbers';
import { currencyPlaces } from './format';
import { quantityLabel } from './labels';
import type { Units } from './units';
import { t } from '../i18n';
import { tr } from '../i18n/receipts';

export type ReceiptKind = 'fuel' | 'charge' | 'expense' | 'unknown';

/** The fields a receipt may give (docqa's POST /api/receipts/scan): numbers are decimal strings with '.', the date YYYY-MM-DD, the time HH:MM. */
export interface ReceiptFields {
  date?: string;
  time?: string;
  quantity?: string;
  unit?: 'l' | 'gal' | 'kWh' | 'kg';
  unit_price?: string;
  total?: string;
  currency?: string;
  energy?: Energy;
  vendor?: string;
  odometer?: string;
}

export type ReceiptField = keyof ReceiptFields;

/** What docqa read from a photo; a field the receipt does not print is absent. */
export interface Scan {
  kind: ReceiptKind;
  fields: ReceiptFields;
  /** 0..1 for each field read; a field without one counts as sure. */
  confidence?: Partial<Record<ReceiptField, number>>;
  /** Where each field is on the photo: [x, y, w, h] as fractions of it. */
  boxes?: Partial<Record<ReceiptField, [number, number, number, number]>>;
  text?: string;
}

/** Below this confidence a field is marked unsure (highlighted for the owner to check). */
export const LOW_CONFIDENCE = 0.6;

/** How a form field got its value: read from the receipt, or read but unsure. */
export type Mark = 'read' | 'unsure';

/** The words of the marks, passed to the form with the marks (the form's chunk has no receipt strings). */
export interface MarkWords {
  read: string;
  unsure: string;
}

export interface Fill<V> {
  values: Partial<V>;
  /** By the form's field name. */
  marks: Partial<Record<keyof V, Mark>>;
  /** What was read and not used, and other things to tell the owner, one sentence each. */
  notes: string[];
  words: MarkWords;
}

export interface RefuelValues {
  /** The datetime-local value. */
  when: string;
  odometer: string;
  energy: Energy;
  quantity: string;
  total: string;
  price: string;
  station: string;
  /** The currency paid in, when not the vehicle's (the form's "Paid in another currency"). */
  paidIn: string;
}

export interface ExpenseValues {
  when: string;
  amount: string;
  odometer: string;
  vendor: string;
}

export interface FormContext {
  /** The energy the refuel form shows now (the vehicle's until the owner picks one). */
  energy: Energy;
  units: Units;
  /** The currency the vehicle's amounts are kept in. */
  home: string;
  /** The form's date and time now (datetime-local): its time is kept when the receipt prints only the date. */
  when: string;
  /** Currencies the form can be paid in (the browser's list); undefined: any. */
  currencies?: readonly string[];
}

const words = (): MarkWords => ({ read: tr('scan.mark'), unsure: tr('scan.markUnsure') });

/** markOf: how sure the reading of the fields is: unsure when any of them is below LOW_CONFIDENCE. */
function markOf(scan: Scan, ...fields: ReceiptField[]): Mark {
  return fields.some((f) => (scan.confidence?.[f] ?? 1) < LOW_CONFIDENCE) ? 'unsure' : 'read';
}

/** whenOf: the receipt's date (and time, else the form's) as a datetime-local value; undefined without a date. */
function whenOf(scan: Scan, now: string): string | undefined {
  const { date, time } = scan.fields;
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const clock = time && /^\d{2}:\d{2}$/.test(time) ? time : (now.split('T')[1] ?? '12:00');
  return `${date}T${clock}`;
}

/** A decimal string the reader gave, or undefined when it is not one (never shown as read). */
const decimal = (v: string | undefined) => (v !== undefined && /^\d+(\.\d+)?$/.test(v) ? v : undefined);

/** receiptUnitLabel: the receipt's unit as the interface writes it. */
function receiptUnitLabel(u: NonNullable<Scan['fields']['unit']>): string {
  return t(u === 'gal' ? 'unit.gal_us' : `unit.${u}`);
}

/** matchesForm: whether a quantity in the receipt's unit is one in the form's unit for energy, as it is. */
function matchesForm(unit: NonNullable<Scan['fields']['unit']>, energy: Energy, units: Units): boolean {
  const eu = unitOf(energy);
  if (unit === 'kWh' || unit === 'kg') return eu === unit;
  if (eu !== 'l') return false;
  return unit === 'l' ? units.volume === 'l' : units.volume === 'gal_us';
}

/** The energy a receipt names, or the one its unit and kind imply (kWh, a charge: electricity). */
function energyOf(scan: Scan): Energy | undefined {
  const { energy, unit } = scan.fields;
  if (energy) return energy;
  if (scan.kind === 'charge' || unit === 'kWh') return 'electricity';
  return undefined;
}

/** The total's currency against the vehicle's: the same, absent (taken as the vehicle's, said), or another. */
function currencyCase(scan: Scan, home: string): 'home' | 'none' | 'other' {
  const c = scan.fields.currency?.toUpperCase();
  if (!c) return 'none';
  return c === home.toUpperCase() ? 'home' : 'other';
}

/**
 * refuelFill: what a receipt puts into Add refuel. A bill (kind expense)
 * fills nothing: it belongs on Costs (the scan offers to move it there).
 */
export function refuelFill(scan: Scan, ctx: FormContext): Fill<RefuelValues> {
  const f = scan.fields;
  const out: Fill<RefuelValues> = { values: {}, marks: {}, notes: [], words: words() };
  if (scan.kind === 'expense') {
    out.notes.push(tr('scan.expenseOnRefuel'));
    return out;
  }
  const put = <K extends keyof RefuelValues>(k: K, v: RefuelValues[K], ...from: ReceiptField[]) => {
    out.values[k] = v;
    out.marks[k] = markOf(scan, ...from);
  };
  const when = whenOf(scan, ctx.when);
  if (when) put('when', when, 'date', ...(f.time ? (['time'] as const) : []));
  const read = energyOf(scan);
  if (read) put('energy', read, f.energy ? 'energy' : 'unit');
  const energy = read ?? ctx.energy;
  const odometer = decimal(f.odometer);
  if (odometer) put('odometer', inputNumber(odometer), 'odometer');
  if (f.vendor?.trim()) put('station', f.vendor.trim().slice(0, 128), 'vendor');

  // The money: in the vehicle's currency, or paid abroad (the form holds that currency too).
  const cc = currencyCase(scan, ctx.home);
  const code = f.currency?.toUpperCase() ?? '';
  const abroadOk = cc === 'other' && /^[A-Z]{3}$/.test(code) && (ctx.currencies?.includes(code) ?? true);
  const total = decimal(f.total);
  const price = decimal(f.unit_price);
  const moneyOk = cc !== 'other' || abroadOk;
  if (abroadOk && (total || price)) {
    put('paidIn', code, 'currency');
    out.notes.push(tr('scan.paidAbroad', { currency: code, home: ctx.home, abroad: t('add.abroad') }));
  } else if (cc === 'other' && total) {
    out.notes.push(tr('scan.otherCurrency', { amount: `${inputNumber(total)} ${code}`, home: ctx.home }));
  }
  if (cc === 'none' && total) out.notes.push(tr('scan.noCurrency', { currency: ctx.home }));
  // Money at its currency's places, as the form shows a stored amount ("20.00", not "20").
  if (total && moneyOk) put('total', inputNumber(total, currencyPlaces(abroadOk ? code : ctx.home)), 'total');

  // The quantity as printed, only in the form's own unit; its price goes with it.
  const quantity = decimal(f.quantity);
  if (quantity) {
    const unitText = f.unit ? `${inputNumber(quantity)} ${receiptUnitLabel(f.unit)}` : inputNumber(quantity);
    if (!f.unit) out.notes.push(tr('scan.noUnit', { quantity: unitText }));
    else if (!matchesForm(f.unit, energy, ctx.units)) {
      out.notes.push(tr('scan.otherUnit', { quantity: unitText, unit: quantityLabel(unitOf(energy), ctx.units) }));
    } else {
      put('quantity', inputNumber(quantity), 'quantity', 'unit');
      if (price && moneyOk) put('price', inputNumber(price), 'unit_price');
    }
  }
  if (scan.kind === 'unknown' && Object.keys(out.values).length > 0) out.notes.push(tr('scan.unknown'));
  return out;
}

/**
 * expenseFill: what a receipt puts into the expense form: the total, the
 * date, the vendor and an odometer reading. A fuel or charging receipt
 * fills the same and says that Add refuel would keep its quantity too.
 */
export function expenseFill(scan: Scan, ctx: Pick<FormContext, 'home' | 'when'>): Fill<ExpenseValues> {
  const f = scan.fields;
  const out: Fill<ExpenseValues> = { values: {}, marks: {}, notes: [], words: words() };
  const put = <K extends keyof ExpenseValues>(k: K, v: ExpenseValues[K], ...from: ReceiptField[]) => {
    out.values[k] = v;
    out.marks[k] = markOf(scan, ...from);
  };
  if (scan.kind === 'fuel') out.notes.push(tr('scan.fuelOnExpense'));
  if (scan.kind === 'charge') out.notes.push(tr('scan.chargeOnExpense'));
  const total = decimal(f.total);
  const cc = currencyCase(scan, ctx.home);
  if (total && cc === 'other') {
    out.notes.push(tr('scan.otherCurrency', { amount: `${inputNumber(total)} ${f.currency?.toUpperCase() ?? ''}`, home: ctx.home }));
  } else if (total) {
    if (cc === 'none') out.notes.push(tr('scan.noCurrency', { currency: ctx.home }));
    put('amount', inputNumber(total, currencyPlaces(ctx.home)), 'total');
  }
  const when = whenOf(scan, ctx.when);
  if (when) put('when', when, 'date', ...(f.time ? (['time'] as const) : []));
  const odometer = decimal(f.odometer);
  if (odometer) put('odometer', inputNumber(odometer), 'odometer');
  if (f.vendor?.trim()) put('vendor', f.vendor.trim().slice(0, 128), 'vendor');
  return out;
}

/** filledAnything: whether the fill put any value into the form. */
export const filledAnything = (fill: Fill<object>) => Object.keys(fill.values).length > 0;
