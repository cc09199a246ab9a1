// Decimal input: the owner's text becomes a canonical decimal string
// ("41,5" -> "41.5", read by lib/numbers.ts) and arithmetic runs in big.js,
// so quantities and money never pass through binary floating point on their
// way to the server.
import Big from 'big.js';
import { canonical, readNumber } from './numbers';

Big.RM = Big.roundHalfUp;
Big.DP = 20;

/**
 * parseDecimal reads a decimal typed by the owner, in the owner's number
 * format: lib/numbers.ts parseNumber (kind 'decimal'), the one rule of every
 * numeric field. The canonical string ("1234.56"), or null when the text is
 * not a number as that format writes one.
 */
export function parseDecimal(text: string): string | null {
  return readNumber(text, 'decimal');
}

// canonical lives with the rule that reads numbers (lib/numbers.ts imports nothing of this module).
export { canonical };

/** round rounds the decimal string v half-up to dp places (canonical form). */
export function round(v: string, dp: number): string {
  return canonical(new Big(v).round(dp, Big.roundHalfUp));
}

export type Triple = 'quantity' | 'total' | 'price';

export interface TripleValues {
  quantity: string | null;
  total: string | null;
  price: string | null;
}

/** Places kept for each member, as the service stores them. */
export const PLACES: Record<Triple, number> = { quantity: 3, total: 2, price: 4 };

/**
 * fillThird computes the member of quantity, total and price that was not
 * among the two the owner typed last (`given`), from those two:
 * total = quantity x price, price = total / quantity, quantity = total / price.
 * It returns null when an input is missing or the division is by zero.
 */
export function fillThird(values: TripleValues, given: [Triple, Triple]): { field: Triple; value: string } | null {
  const [a, b] = given;
  if (a === b) return null;
  const missing = (['quantity', 'total', 'price'] as const).find((f) => f !== a && f !== b);
  if (!missing) return null;
  const q = values.quantity, t = values.total, p = values.price;
  switch (missing) {
    case 'total':
      if (q === null || p === null) return null;
      return { field: 'total', value: round(new Big(q).times(p).toFixed(), PLACES.total) };
    case 'price':
      if (q === null || t === null || new Big(q).eq(0)) return null;
      return { field: 'price', value: round(new Big(t).div(q).toFixed(), PLACES.price) };
    case 'quantity':
      if (t === null || p === null || new Big(p).eq(0)) return null;
      return { field: 'quantity', value: round(new Big(t).div(p).toFixed(), PLACES.quantity) };
  }
}

/** A decimal for JSON bodies: written as a number literal, exactly as its string. */
export class Dec {
  constructor(readonly value: string) {
    if (!/^-?\d+(\.\d+)?$/.test(value)) throw new Error(`not a decimal: ${value}`);
  }
}

/**
 * jsonWithDecimals is JSON.stringify in which every Dec becomes a number
 * literal with exactly its digits ({"liters": 41.5}), never a float's.
 */
export function jsonWithDecimals(value: unknown): string {
  const marker = `__dec_${Math.random().toString(36).slice(2)}_`;
  const json = JSON.stringify(value, (_key, v: unknown) => (v instanceof Dec ? marker + v.value : v));
  return json.replace(new RegExp(`"${marker}(-?\\d+(?:\\.\\d+)?)"`, 'g'), '$1');
}

/** Subtraction and the like for display: exact, then rounded. */
export function sub(a: number | string, b: number | string): string {
  return canonical(new Big(a).minus(b));
}

export function consumption(quantity: string, distance: string): string | null {
  const d = new Big(distance);
  if (d.lte(0)) return null;
  return round(new Big(quantity).div(d).times(100).toFixed(), 2);
}

export function sum(values: (number | string)[]): string {
  return canonical(values.reduce<Big>((acc, v) => acc.plus(v), new Big(0)));
}
