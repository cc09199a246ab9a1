// End-to-end, the figures as people read them (issue "The app as people use
// it"), accounts off, a browser in de-DE (euros, decimal comma): money with
// the currency's minor units ("70,00 €"), each unit's figures with one fixed
// number of decimals ("6,70 L/100 km", "40,20 L", "1,800 €/L"), a month
// without a consumption sample as "–" in its table (never 0), one price per
// unit (the one paid), and the fuel cost per km told from the total. A
// plug-in hybrid's figures read as per km of all driving, with the km they
// are over, and the cost of all energies together; a manual's upload
// progress in one phrase per stage, with plurals.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, navLink, progressSeen, shootEverywhere, startStack, watchProgress } from './harness.mjs';
import { makePdf } from './pdf.mjs';


let s;
let page;
const pageErrors = [];

const api = async (path, body) => {
  const res = await fetch(s.base + path, { method: body ? 'POST' : 'GET', headers: { 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

async function nav(name) {
  await (await navLink(page, name)).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

// Intl writes a no-break space before a trailing sign; the expectations use a plain one.
const plain = (v) => (Array.isArray(v) ? v.map(plain) : v.replace(/\u00a0/g, ' '));
const card = (label, group) => (group ? page.getByRole('group', { name: group, exact: true }) : page).getByRole('group', { name: label, exact: true }).locator('.card-value');

before(async () => {
  s = await startStack({ locale: 'de-DE', timezoneId: 'Europe/Berlin' });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // The app in English, its numbers in the browser's de-DE format (the figures' words are English here).
  const prefs = await fetch(s.base + '/api/preferences', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ language: 'en' }) });
  assert.equal(prefs.status, 200, await prefs.text());
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
    // The consumption names the km it is over (here the same as since the previous record).
    await jan20.getByText('6,70 L/100 km over 600 km', { exact: true }).waitFor();
    await jan10.getByText('70,00 €', { exact: true }).waitFor();
    await jan10.getByText('1,750 €/L', { exact: true }).waitFor();
  });

  it('Statistics: the cards with fixed decimals; one price per unit, the one paid; the fuel cost per km and the total, equal without other costs', async () => {
    await nav('Statistics');
    await card('Total spent').filter({ hasText: '161,36 €' }).waitFor();
    assert.equal(plain(await card('Distance').textContent()), '1.000 km');
    assert.equal(plain(await card('Gasoline quantity', 'Gasoline').textContent()), '90,20 L');
    assert.equal(plain(await card('Average consumption', 'Gasoline').textContent()), '6,70 L/100 km');
    assert.equal(plain(await card('Fuel cost per km', 'Gasoline').textContent()), '0,1206 €');
    // 161.36 € / 90.2 L = 1.78891…; the mean of the fills' prices ((1.75 + 1.80 + 1.90) / 3 = 1.8166…) is not a second price beside it.
    assert.equal(plain(await card('Price paid per unit', 'Gasoline').textContent()), '1,789 €/L');
    assert.equal(await page.getByRole('group', { name: 'Mean of fill prices' }).count(), 0);
    // No other cost: the total per km is the fuel's, not 161,36 € over 1 000 km (0,1614 €, the first fill's money counted).
    assert.equal(plain(await card('Total cost per km').textContent()), '0,1206 €');
    assert.equal(plain(await page.getByRole('group', { name: 'Total cost per km', exact: true }).locator('.card-note').textContent()),
      'Fuel 0,1206 € plus other costs 0,0000 € (their sum over the 1.000 km driven)');
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

  it('Statistics: every card says what its number means', async () => {
    await page.goto(s.base + '/statistics');
    const note = (label, group) => (group ? page.getByRole('group', { name: group, exact: true }) : page).getByRole('group', { name: label, exact: true }).locator('.card-note');
    assert.equal(await note('Distance').textContent(), 'Highest odometer reading minus the lowest');
    assert.equal(await note('Average consumption', 'Gasoline').textContent(), 'From full fill to full fill, over 600 km');
    assert.equal(await note('Fuel cost per km', 'Gasoline').textContent(), 'Fuel only: the money of the fills from full to full, over 600 km');
    assert.equal(await note('Price paid per unit', 'Gasoline').textContent(), 'All the money over all the quantity');
    // The note is the card's description for a screen reader.
    const described = await page.getByRole('group', { name: 'Distance', exact: true }).evaluate((el) => document.getElementById(el.getAttribute('aria-describedby'))?.textContent);
    assert.equal(described, 'Highest odometer reading minus the lowest');
    // One energy: no "all energies" wording, no combined card.
    assert.equal(await page.getByText('(all energies)').count(), 0);
    assert.equal(await page.getByRole('group', { name: 'Fuel cost per km, all energies', exact: true }).count(), 0);
  });
});

describe('a plug-in hybrid in de-DE', () => {
  // Hand-worked (records in time order, each energy its own tank, a span's km counting every km driven):
  //  1 gasoline    10 000 km  40 L     70,00 €  full
  //  2 electricity 10 050 km  10 kWh    3,00 €  full
  //  3 electricity 10 100 km   9 kWh    2,70 €  full   9 kWh over 50 km
  //  4 electricity 10 130 km   6 kWh    1,80 €  full   6 kWh over 30 km
  //  5 gasoline    10 500 km  28,5 L   51,30 €  full   370 km since #4, but 28,5 L over the 500 km since #1: 5,70 L/100 km
  //  6 electricity 10 600 km  12 kWh    3,60 €  full   12 kWh over 470 km: 2,553… kWh/100 km
  // Electricity: 27 kWh over 550 km = 4,909… kWh per 100 km driven; 8,10 € / 550 km = 0,01472… €/km.
  // Gasoline: 5,70 L per 100 km driven; 51,30 € / 500 km = 0,1026 €/km.
  // All energies: 0,1026 + 0,014727… = 0,117327… €/km. Spent 132,40 €, 600 km.
  let phev;
  before(async () => {
    const v = await api('/api/vehicles', { name: 'Outlander', fuel_type: 'plug_in_hybrid' });
    assert.ok(v.status === 200 || v.status === 201, JSON.stringify(v.body));
    phev = v.body.id;
    const recs = [
      ['gasoline', 10000, 40, 70], ['electricity', 10050, 10, 3], ['electricity', 10100, 9, 2.7],
      ['electricity', 10130, 6, 1.8], ['gasoline', 10500, 28.5, 51.3], ['electricity', 10600, 12, 3.6],
    ];
    for (const [i, [energy, odometer, liters, total_amount]] of recs.entries()) {
      const res = await api('/api/refuels', { vehicle_id: phev, refuel_time: `2026-04-0${i + 1}T12:00:00Z`, fuel_type: energy === 'gasoline' ? 'E10' : 'AC', energy, odometer, liters, total_amount, is_full: true });
      assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
    }
  });

  it('the service: each energy over its sampled km, and the cost of all energies per km', async () => {
    const st = (await api(`/api/vehicles/${phev}/statistics`)).body;
    const by = Object.fromEntries(st.by_energy.map((e) => [e.energy, e]));
    assert.deepEqual([by.electricity.weighted_consumption, by.electricity.sampled_distance, by.electricity.weighted_cost_per_km], [4.9091, 550, 0.0147]);
    assert.deepEqual([by.gasoline.weighted_consumption, by.gasoline.sampled_distance, by.gasoline.weighted_cost_per_km], [5.7, 500, 0.1026]);
    assert.equal(st.combined_cost_per_km, 0.1173);
  });

  it('Statistics: per energy only what can be known, labelled as per km of all driving, with the combined cost', async () => {
    await page.goto(s.base + '/statistics');
    await page.getByLabel('Vehicle', { exact: true }).selectOption(String(phev));
    await card('Total spent').filter({ hasText: '132,40 €' }).waitFor();
    assert.equal(plain(await card('Distance').textContent()), '600 km');
    assert.equal(plain(await card('Fuel cost per km, all energies').textContent()), '0,1173 €');
    const e = 'Electricity', g = 'Gasoline';
    assert.equal(plain(await card('kWh per 100 km driven (all energies)', e).textContent()), '4,91 kWh/100 km');
    assert.equal(plain(await card('L per 100 km driven (all energies)', g).textContent()), '5,70 L/100 km');
    assert.equal(plain(await card('Fuel cost per km driven (all energies)', e).textContent()), '0,0147 €');
    assert.equal(plain(await card('Fuel cost per km driven (all energies)', g).textContent()), '0,1026 €');
    assert.equal(plain(await card('Quantity', e).textContent()), '37,00 kWh');
    assert.equal(plain(await card('Spent', g).textContent()), '121,30 €');
    // 121,30 € / 68,5 L = 1,7708…, not the mean (1,75 + 1,80) / 2 beside it.
    assert.equal(plain(await card('Price paid per unit', g).textContent()), '1,771 €/L');
    assert.equal(await page.getByRole('group', { name: 'Mean of fill prices' }).count(), 0);
    const note = (label, group) => page.getByRole('group', { name: group, exact: true }).getByRole('group', { name: label, exact: true }).locator('.card-note');
    assert.equal(await note('kWh per 100 km driven (all energies)', e).textContent(), 'Between full fills of this energy, over 550 km driven on any energy');
    assert.equal(await note('L per 100 km driven (all energies)', g).textContent(), 'Between full fills of this energy, over 500 km driven on any energy');
    // No energy's figure is called a consumption.
    assert.equal(await page.getByRole('group', { name: 'Average consumption' }).count(), 0);
    // Nor is its monthly chart: gasoline's is per 100 km of all driving too.
    await page.getByRole('figure', { name: 'L per 100 km driven (all energies)', exact: true }).waitFor();
    assert.equal(await page.getByRole('figure', { name: 'Consumption (L/100 km)' }).count(), 0);
    assert.equal(await note('Refuels', e).textContent(), 'Records of this energy');
    assert.deepEqual(await axeBothSchemes(page), []);
    await shootEverywhere(page, 'phev-statistics');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
  });

  it('History: each consumption names the km it is over, which may be more than since the previous record', async () => {
    await nav('History');
    await page.getByLabel('Vehicle', { exact: true }).selectOption(String(phev));
    const items = page.getByRole('list', { name: 'Refuels' }).getByRole('listitem');
    await items.first().getByText('10.600 km', { exact: true }).waitFor();
    const row = (item, term) => item.locator('dl > div').filter({ has: page.locator('dt', { hasText: term }) }).locator('dd');
    const [c6, p5, c4, c3] = [items.nth(0), items.nth(1), items.nth(2), items.nth(3)];
    assert.equal(plain(await row(p5, 'Distance since previous').textContent()), '370 km');
    assert.equal(plain(await row(p5, 'Per distance driven (all energies)').textContent()), '5,70 L/100 km over 500 km');
    assert.equal(plain(await row(c6, 'Per distance driven (all energies)').textContent()), '2,55 kWh/100 km over 470 km');
    assert.equal(plain(await row(c4, 'Per distance driven (all energies)').textContent()), '20,00 kWh/100 km over 30 km');
    assert.equal(plain(await row(c3, 'Per distance driven (all energies)').textContent()), '18,00 kWh/100 km over 50 km');
    await shootEverywhere(page, 'phev-history', { fullPage: false });
    assert.deepEqual(pageErrors, []);
  });
});

describe('manual upload progress wording', () => {
  /** upload sends the PDF and returns every progress line the page showed, in order, and the final status. */
  async function upload(name, pdf) {
    await page.goto(s.base + '/manuals');
    await page.getByRole('heading', { level: 1, name: 'Manuals' }).waitFor();
    await watchProgress(page);
    await page.getByLabel('Upload a PDF', { exact: true }).setInputFiles({ name, mimeType: 'application/pdf', buffer: pdf });
    const status = page.getByRole('status').filter({ hasText: name });
    await status.waitFor({ timeout: 60_000 });
    return { lines: await progressSeen(page), status: await status.textContent() };
  }
  // As lib/format.ts fmtBytes writes a size in de-DE.
  const kb = (bytes) => (bytes < 1024 ? `${bytes} B` : `${new Intl.NumberFormat('de-DE', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(bytes / 1024)} KB`);
  const n = (v) => new Intl.NumberFormat('de-DE').format(v);
  // Every phrase a stage may show for this document; which ones a test sees depends on how the
  // events arrive (several in one read render once), so each line seen must be one of them.
  const allowed = (doc, size) => {
    const passages = `${n(doc.chunks)} passage${doc.chunks === 1 ? '' : 's'}`;
    const out = new Set([`Received ${kb(size)}`, `Split into ${passages}`, `Storing ${passages}`]);
    for (let i = 0; i <= doc.pages; i++) out.add(`Reading page ${n(i)} of ${n(doc.pages)}`);
    for (let i = 0; i <= doc.chunks; i++) out.add(`Indexing passages: ${n(i)} of ${n(doc.chunks)}`);
    return out;
  };

  for (const pages of [1, 3]) {
    it(`${pages} page${pages === 1 ? '' : 's'}: one phrase per stage, plurals right, no word repeated from the stage`, async (t) => {
      const name = `wording-${pages}.pdf`;
      const pdf = makePdf(Array.from({ length: pages }, (_, i) => [`Page ${i + 1} of the wording manual.`, 'Check the tyre pressure every month when the tyres are cold.']));
      const { lines, status } = await upload(name, pdf);
      t.diagnostic(`progress shown: ${JSON.stringify(lines)}`);
      const doc = (await api('/api/documents')).body.find((d) => d.fileName === name);
      assert.equal(doc.pages, pages);
      const ok = allowed(doc, pdf.length);
      const server = lines.filter((l) => !l.startsWith('Sending '));
      assert.ok(server.length > 0, `some stage of the service was shown: ${JSON.stringify(lines)}`);
      for (const l of server) assert.ok(ok.has(l), `${JSON.stringify(l)} is one of ${JSON.stringify([...ok])}`);
      for (const l of lines.filter((x) => x.startsWith('Sending '))) assert.match(l, /^Sending \d+(,\d)? (B|KB) of \d+(,\d)? (B|KB)$/);
      const passages = `${n(doc.chunks)} passage${doc.chunks === 1 ? '' : 's'}`;
      assert.equal(status, `Stored ${name}: ${pages === 1 ? '1 page' : `${pages} pages`}, ${passages}.`);
      const item = page.getByRole('list', { name: 'Manuals' }).getByRole('listitem').filter({ has: page.getByRole('heading', { name }) });
      assert.match(await item.locator('p').last().textContent(), new RegExp(`^${pages === 1 ? '1 page' : `${pages} pages`} · `));
    });
  }
});
