import { describe, expect, it } from 'vitest';
import { fillThird, jsonWithDecimals, Dec, parseDecimal } from './decimal';
import { setFormat } from './format';

describe('parseDecimal: the decimal kind of lib/numbers.ts, in the owner\'s format', () => {
  it('reads the locale in force, not a guess', () => {
    setFormat('de-DE', 'EUR');
    expect(parseDecimal('1.234,56')).toBe('1234.56');
    expect(parseDecimal('41,5')).toBe('41.5');
    expect(parseDecimal('1.5')).toBeNull();
    setFormat('en-US', 'USD');
    expect(parseDecimal('41.5')).toBe('41.5');
    expect(parseDecimal('12,5')).toBeNull();
    expect(parseDecimal('-3')).toBeNull();
  });
});

describe('fillThird', () => {
  it('total from quantity and price, in decimal', () => {
    // 0.1 x 3 is 0.30000000000000004 in binary floating point.
    expect(fillThird({ quantity: '0.1', total: null, price: '3' }, ['quantity', 'price'])).toEqual({ field: 'total', value: '0.3' });
    expect(fillThird({ quantity: '41.5', total: null, price: '1.799' }, ['price', 'quantity'])).toEqual({ field: 'total', value: '74.66' });
  });
  it('price from total and quantity, rounded half-up to 4 places', () => {
    expect(fillThird({ quantity: '40.5', total: '70.47', price: null }, ['total', 'quantity'])).toEqual({ field: 'price', value: '1.74' });
    expect(fillThird({ quantity: '3', total: '1', price: null }, ['total', 'quantity'])).toEqual({ field: 'price', value: '0.3333' });
    expect(fillThird({ quantity: '8', total: '0.00005', price: null }, ['total', 'quantity'])).toEqual({ field: 'price', value: '0' });
    expect(fillThird({ quantity: '1', total: '0.00005', price: null }, ['total', 'quantity'])).toEqual({ field: 'price', value: '0.0001' });
  });
  it('quantity from total and price, 3 places', () => {
    expect(fillThird({ quantity: null, total: '70', price: '1.799' }, ['total', 'price'])).toEqual({ field: 'quantity', value: '38.911' });
  });
  it('the two last typed decide, whatever the third holds', () => {
    expect(fillThird({ quantity: '10', total: '20', price: '5' }, ['price', 'quantity'])).toEqual({ field: 'total', value: '50' });
  });
  it('nothing on a missing input or a division by zero', () => {
    expect(fillThird({ quantity: null, total: '20', price: null }, ['total', 'quantity'])).toBeNull();
    expect(fillThird({ quantity: '0', total: '20', price: null }, ['total', 'quantity'])).toBeNull();
    expect(fillThird({ quantity: null, total: '20', price: '0' }, ['total', 'price'])).toBeNull();
    expect(fillThird({ quantity: '1', total: '2', price: '3' }, ['total', 'total'])).toBeNull();
  });
});

describe('jsonWithDecimals', () => {
  it('writes decimals as exact number literals', () => {
    const body = jsonWithDecimals({ liters: new Dec('41.5'), total_amount: new Dec('0.3'), remark: '__dec_x_1', n: 2 });
    expect(body).toBe('{"liters":41.5,"total_amount":0.3,"remark":"__dec_x_1","n":2}');
    expect(JSON.parse(body)).toEqual({ liters: 41.5, total_amount: 0.3, remark: '__dec_x_1', n: 2 });
  });
  it('keeps many digits exactly', () => {
    expect(jsonWithDecimals({ v: new Dec('99999999999.999') })).toBe('{"v":99999999999.999}');
  });
});
