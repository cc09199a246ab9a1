// End-to-end, the figures as people read them (issue "The app as people use
// it"), accounts off, a browser in de-DE (euros, decimal comma): money with
// the currency's minor units ("70,00 €"), each unit's figures with one fixed
// number of decimals ("6,70 L/100 km", "40,20 L", "1,800 €/L"), a month
// without a consumption sample as "–" in its table (never 0), and the mean of
// the fills' unit prices labelled so beside the price paid per unit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startStack } from './harness.mjs';

let s;
let page;
const pageErrors = [];

const api = async (path, body) => {
  const res = await fetch(s.base + path, { method: body ? 'POST' : 'GET', headers: { 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

async function nav(name) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

// Intl writes a no-break space before a trailing sign; the expectations use a plain one.
const plain = (v) => (Array.isArray(v) ? v.map(plain) : v.replace(/\u00a0/g, ' '));
const card = (label, group) => (group ? page.getByRole('group', { name: group, exact: true }) : page).getByRole('group', { name: label, exact: true }).locator('.card-value');

before(async () => {
  s = await startStack({ locale: 'de-DE', timezoneId: 'Europe/Berlin' });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  const v = await api('/api/vehicles', { name: 'Golf', fuel_type: 'gasoline' });
  assert.ok(v.status === 200 || v.status === 201, JSON.stringify(v.body));
  // January: two full fills, one sample (40.2 L over 600 km = 6.7 L/100 km);
  // February: one partial fill, so refuels but no consumption sample.
  for (const r of [
    { refuel_time: '2026-01-10T12:00:00Z', odometer: 1000, liters: 40, total_amount: 70, is_full: true },
    { refuel_time: '2026-01-20T12:00:00Z', odometer: 1600, liters: 40.2, total_amount: 72.36, is_full: true },
    { refuel_time: '2026-02-15T12:00:00Z', odometer: 2000, liters: 10, total_amount: 19, is_full: false },
  ]) {
    const res = await api('/api/refuels', { vehicle_id: v.body.id, fuel_type: 'gasoline', ...r });
    assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
  }
});

after(async () => {
  await s?.stop();
});

describe('figures in de-DE', () => {
  it('History: money in cents, quantities, prices, distances and consumptions with fixed decimals', async () => {
    await page.goto(s.base + '/history');
    await page.getByRole('heading', { level: 1, name: 'History' }).waitFor();
    const items = page.getByRole('list', { name: 'Refuels' }).getByRole('listitem');
    const feb = items.nth(0), jan20 = items.nth(1), jan10 = items.nth(2);
    await feb.getByText('10,00 L (partial)', { exact: true }).waitFor();
    await feb.getByText('19,00 €', { exact: true }).waitFor();
    await feb.getByText('1,900 €/L', { exact: true }).waitFor();
    await feb.getByText('2.000 km', { exact: true }).waitFor();
    await jan20.getByText('40,20 L (full)', { exact: true }).waitFor();
    await jan20.getByText('1,800 €/L', { exact: true }).waitFor();
    await jan20.getByText('600 km', { exact: true }).waitFor();
    await jan20.getByText('6,70 L/100 km', { exact: true }).waitFor();
    await jan10.getByText('70,00 €', { exact: true }).waitFor();
    await jan10.getByText('1,750 €/L', { exact: true }).waitFor();
  });

  it('Statistics: the cards with fixed decimals; the mean of the fill prices beside the price paid per unit', async () => {
    await nav('Statistics');
    await card('Total spent').filter({ hasText: '161,36 €' }).waitFor();
    assert.equal(plain(await card('Distance').textContent()), '1.000 km');
    assert.equal(plain(await card('Gasoline quantity', 'Gasoline').textContent()), '90,20 L');
    assert.equal(plain(await card('Average consumption', 'Gasoline').textContent()), '6,70 L/100 km');
    assert.equal(plain(await card('Cost per km', 'Gasoline').textContent()), '0,1206 €');
    // (1.75 + 1.80 + 1.90) / 3 = 1.8166…; 161.36 € / 90.2 L = 1.78891…
    assert.equal(plain(await card('Mean of fill prices', 'Gasoline').textContent()), '1,817 €/L');
    assert.equal(plain(await card('Price paid per unit', 'Gasoline').textContent()), '1,789 €/L');
  });

  it('Statistics: a month without a consumption sample is "–" in the table, its prices and cost with fixed decimals', async () => {
    const table = async (name) => {
      const fig = page.getByRole('figure', { name, exact: true });
      await fig.getByRole('button', { name: 'Show as table' }).click();
      await fig.getByRole('table').waitFor();
      return [await fig.getByRole('rowheader').allInnerTexts(), plain(await fig.getByRole('cell').allInnerTexts())];
    };
    assert.deepEqual(await table('Consumption (L/100 km)'), [['2026-01', '2026-02'], ['6,70', '–']]);
    assert.deepEqual(await table('Price per unit (per L)'), [['2026-01', '2026-02'], ['1,775 €', '1,900 €']]);
    assert.deepEqual(await table('Monthly cost'), [['2026-01', '2026-02'], ['142,36 €', '19,00 €']]);
    assert.deepEqual(pageErrors, []);
  });
});
