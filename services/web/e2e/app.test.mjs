// End-to-end tests: the built client behind the real Caddy, against the real
// services, in Debian's Chromium, driven by roles and labels as a person
// would. Run by `npm run e2e` (and `make test`); they fail, never skip, when
// something they need is missing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, eventually as retry, fillWhen, navLink, startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';


let s;
let ctx;
let page;
const cspViolations = [];
const pageErrors = [];

const api = async (path, init) => {
  const res = await fetch(s.base + path, init);
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: text ? JSON.parse(text) : null };
};

function watch(p) {
  p.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  p.on('pageerror', (e) => pageErrors.push(String(e)));
  p.on('dialog', (d) => void d.accept());
}

async function goto(path) {
  await page.goto(s.base + path);
  await page.getByRole('heading', { level: 1 }).waitFor();
}

async function nav(name) {
  await (await navLink(page, name)).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

const field = (label) => page.getByLabel(label, { exact: true });
// saveRefuel fills Add refuel's reading, quantity and total (and its time, when given) and presses Save.
async function saveRefuel({ when, odometer, quantity, total }) {
  if (when) await fillWhen(field('Date and time'), when);
  await field('Odometer').fill(odometer);
  await field('Quantity').fill(quantity);
  await field('Total amount').fill(total);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
}
// Money as the page shows it: the browser's en-IE gives the owner euros, written "€74.66";
// digits is a price's places (at least the currency's two), none for a total.
// Euros with exactly digits decimals (a total 2, a price 3, a cost per km 4).
const money = (v, digits = 2) => new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v);
// settled waits (up to 5 s) for a field to show want, then asserts it: a
// value that follows another field's change arrives a render later.
async function settled(label, want) {
  const end = Date.now() + 5000;
  let got = await field(label).inputValue();
  while (got !== want && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    got = await field(label).inputValue();
  }
  assert.equal(got, want, label);
}

before(async () => {
  s = await startStack();
  ctx = s.context;
  page = ctx.pages()[0] ?? (await ctx.newPage());
  watch(page);
});

after(async () => {
  await s?.stop();
});

describe('the web client', () => {
  it('serves the shell with its CSP and installs the service worker', async () => {
    const res = await page.goto(s.base + '/');
    const csp = res.headers()['content-security-policy'] ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline script allowed');
    const html = await res.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'index.html has an inline script');
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    for (const name of ['Home', 'Add refuel', 'History', 'Statistics', 'Vehicles', 'Manuals', 'Ask', 'Settings']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true, includeHidden: true }).waitFor({ state: 'attached' });
    }
  });

  it('is installable (no installability errors)', async () => {
    const cdp = await ctx.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    await cdp.detach();
    assert.deepEqual(installabilityErrors, []);
    const manifest = await api('/manifest.webmanifest');
    assert.equal(manifest.body.display, 'standalone');
  });

  it('Vehicles: add, edit, make default, delete', async () => {
    await nav('Vehicles');
    for (const [name, fuel] of [['Family car', 'Gasoline'], ['Scooter', 'Electric']]) {
      await page.getByRole('button', { name: 'Add vehicle' }).click();
      await field('Name').fill(name);
      await field('Fuel type').selectOption({ label: fuel });
      await page.getByRole('button', { name: 'Save vehicle' }).click();
      await page.getByRole('heading', { level: 2, name }).waitFor();
    }
    const scooter = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Scooter' }) });
    await scooter.getByRole('button', { name: 'Make default' }).click();
    await page.getByRole('status').filter({ hasText: 'Scooter is now the default vehicle.' }).waitFor();
    let vehicles = (await api('/api/vehicles')).body;
    assert.equal(vehicles.find((v) => v.default_vehicle)?.name, 'Scooter');
    const car = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Family car' }) });
    await car.getByRole('button', { name: 'Make default' }).click();
    await page.getByRole('status').filter({ hasText: 'Family car is now the default vehicle.' }).waitFor();
    await scooter.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('form', { name: 'Edit Scooter' }).getByLabel('Name', { exact: true }).fill('E-scooter');
    await page.getByRole('button', { name: 'Save vehicle' }).click();
    const renamed = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'E-scooter' }) });
    await renamed.getByRole('button', { name: 'Delete' }).click(); // the confirmation is accepted
    await page.getByRole('status').filter({ hasText: 'Vehicle deleted.' }).waitFor();
    vehicles = (await api('/api/vehicles')).body;
    assert.deepEqual(vehicles.map((v) => [v.name, v.default_vehicle]), [['Family car', true]]);
  });

  it('Vehicles: a change made on another device shows when the app is back in view, or back online', async (t) => {
    await nav('Vehicles');
    const json = (method, body) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const van = (await api('/api/vehicles', json('POST', { name: 'Van', fuel_type: 'diesel' }))).body;
    t.after(async () => {
      await ctx.setOffline(false);
      await api(`/api/vehicles/${van.id}`, { method: 'DELETE' });
    });
    const heading = (name) => page.getByRole('heading', { level: 2, name, exact: true });
    // The page does not poll: nothing shows the new vehicle yet.
    await page.waitForTimeout(500);
    assert.equal(await heading('Van').count(), 0);
    // Away and back. Headless Chromium keeps every page visible, so the
    // browser's two events are dispatched here as a tab switch sends them.
    const visibility = (state) => page.evaluate((state) => {
      Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    }, state);
    await visibility('hidden');
    await page.waitForTimeout(500);
    assert.equal(await heading('Van').count(), 0, 'hidden: nothing is loaded');
    await visibility('visible');
    await page.evaluate(() => delete document.visibilityState); // the browser's own again
    await heading('Van').waitFor();
    // Offline, then online again (the browser's own events): the rename shows.
    await ctx.setOffline(true);
    assert.equal((await api(`/api/vehicles/${van.id}`, json('PUT', { name: 'Camper' }))).status, 200);
    await ctx.setOffline(false);
    await heading('Camper').waitFor();
    assert.equal(await heading('Van').count(), 0);
  });

  it('Add refuel: any two of three in decimal, in the owner\'s number format (en-IE), the unit, saved', async () => {
    await nav('Add refuel');
    assert.equal(await field('Vehicle').locator('option:checked').textContent(), 'Family car (default)');
    assert.ok(await field('Full tank').isChecked());
    await settled('Energy', 'gasoline');
    await page.locator('#quantity-unit').filter({ hasText: 'L' }).waitFor();
    await fillWhen(field('Date and time'), '2026-03-01T08:00');
    await field('Odometer').fill('12500');
    await field('Quantity').fill('41.5');
    await field('Price per unit').fill('1.799');
    assert.equal(await field('Total amount').inputValue(), '74.66');
    await field('Station').fill('Aral');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel saved: 41.50 L, €74.66 — 1 Mar 2026.' }).waitFor();

    await fillWhen(field('Date and time'), '2026-03-10T08:00');
    await field('Odometer').fill('13100');
    await field('Total amount').fill('70.47');
    await field('Quantity').fill('40.5');
    assert.equal(await field('Price per unit').inputValue(), '1.74');
    await page.getByRole('button', { name: 'Save and add another' }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel saved: 40.50 L, €70.47 — 10 Mar 2026.' }).waitFor();
    await page.waitForFunction(() => document.querySelector('#odometer')?.getAttribute('placeholder') === '13100');

    // Electricity: the unit follows the energy.
    await field('Energy').selectOption('electricity');
    await page.locator('#quantity-unit').filter({ hasText: 'kWh' }).waitFor();
    await field('Energy').selectOption('gasoline');

    const records = (await api('/api/refuels?vehicle_id=1')).body;
    assert.deepEqual(records.map((r) => [r.odometer, r.liters, r.total_amount, r.energy, r.unit, r.is_full]), [
      [13100, 40.5, 70.47, 'gasoline', 'l', true],
      [12500, 41.5, 74.66, 'gasoline', 'l', true],
    ]);

    // A reading below the last one asks first; declining saves nothing.
    page.removeAllListeners('dialog');
    page.once('dialog', (d) => void d.dismiss());
    await saveRefuel({ odometer: '100', quantity: '10', total: '17' });
    await page.getByRole('alert').filter({ hasText: 'lower than the last reading' }).waitFor();
    page.on('dialog', (d) => void d.accept());
    assert.equal((await api('/api/refuels?vehicle_id=1')).body.length, 2);

    // A refuel entered later for an earlier day is held against the refuel before it in time
    // (12,500 km on 1 March), not the newest (13,100 km on 10 March).
    page.removeAllListeners('dialog');
    const dialogs = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
    await saveRefuel({ when: '2026-03-05T08:00', odometer: '12800', quantity: '10', total: '17' });
    await page.getByRole('status').filter({ hasText: 'Refuel saved: 10.00 L, €17.00 — 5 Mar 2026.' }).waitFor();
    assert.deepEqual(dialogs, [], 'between its neighbours: nothing to ask');
    const between = (await api('/api/refuels?vehicle_id=1')).body.find((r) => r.odometer === 12800);
    assert.equal((await api(`/api/refuels/${between.id}`, { method: 'DELETE' })).status, 204);
    await saveRefuel({ when: '2026-03-05T08:00', odometer: '12000', quantity: '10', total: '17' });
    await page.getByRole('alert').filter({ hasText: 'lower than that of the refuel before it; not saved' }).waitFor();
    assert.equal(dialogs.length, 1);
    assert.match(dialogs[0], /\(12,000 km\) is lower than that of the refuel before it, on 1 Mar 2026, 08:00 \(12,500 km\)/);
    page.removeAllListeners('dialog');
    page.on('dialog', (d) => void d.accept());
    assert.equal((await api('/api/refuels?vehicle_id=1')).body.length, 2);

    // A vehicle without refuels: the odometer its owner set is the reading to expect more than.
    const roadster = (await api('/api/vehicles', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Roadster', fuel_type: 'gasoline', current_odometer: 20000 }) })).body;
    await nav('Vehicles'); // reads the vehicles again
    await page.getByRole('heading', { level: 2, name: 'Roadster' }).waitFor();
    await nav('Add refuel');
    await field('Vehicle').selectOption({ label: 'Roadster' });
    await page.waitForFunction(() => document.querySelector('#odometer')?.getAttribute('placeholder') === '20000');
    page.removeAllListeners('dialog');
    const asked = new Promise((ok) => page.once('dialog', (d) => { ok(d.message()); void d.dismiss(); }));
    await saveRefuel({ odometer: '2000', quantity: '10', total: '17' });
    assert.match(await asked, /\(2,000 km\) is lower than the last reading \(20,000 km\)/);
    page.on('dialog', (d) => void d.accept());
    assert.equal((await api(`/api/refuels?vehicle_id=${roadster.id}`)).body.length, 0);
    assert.equal((await api(`/api/vehicles/${roadster.id}`, { method: 'DELETE' })).status, 204);
    await nav('Vehicles');
    await page.getByRole('heading', { level: 2, name: 'Roadster' }).waitFor({ state: 'detached' });
  });

  it('History: newest first, distance and consumption, edit and delete', async () => {
    // One more to delete.
    await api('/api/refuels', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ vehicle_id: 1, refuel_time: '2026-03-12T08:00:00Z', odometer: 13300, fuel_type: 'gasoline', liters: 10, total_amount: 18, is_full: false }) });
    await nav('History');
    const items = page.getByRole('list', { name: 'Refuels' }).getByRole('listitem');
    await items.nth(2).waitFor();
    assert.equal(await items.count(), 3);
    const second = items.nth(1);
    await second.getByText('600 km', { exact: true }).waitFor();
    await second.getByText('6.75 L/100 km').waitFor(); // 40.5 L over 600 km
    await second.getByText('€70.47', { exact: true }).waitFor();
    await second.getByText('€1.740/L', { exact: true }).waitFor(); // 70.47 / 40.5
    const before = (await api('/api/refuels?vehicle_id=1')).body.find((r) => r.odometer === 13100);
    const edit = async (station) => {
      await second.getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('form', { name: 'Edit refuel' }).getByLabel('Station').fill(station);
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Refuel updated.' }).waitFor();
    };
    // An edit's confirmation offers Undo, which puts back every member as it was.
    await edit('Shell');
    await page.locator('.toast').getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Change undone: the refuel is as it was.' }).waitFor();
    const undone = (await api(`/api/refuels/${before.id}`)).body;
    for (const k of ['refuel_time', 'odometer', 'liters', 'total_amount', 'price_per_liter', 'station_name', 'remark', 'is_full', 'missed_previous', 'energy']) assert.deepEqual(undone[k], before[k], k);
    await edit('Shell');
    await items.nth(0).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel deleted.' }).waitFor();
    const records = (await api('/api/refuels?vehicle_id=1')).body;
    assert.deepEqual(records.map((r) => [r.odometer, r.station_name]), [[13100, 'Shell'], [12500, 'Aral']]);
  });

  it('Statistics: cards, three charts each with a table, CSV export and import with a preview', async () => {
    await nav('Statistics');
    await page.getByText('Refuels', { exact: true }).waitFor();
    for (const caption of ['Consumption (L/100 km)', 'Price per unit (per L)', 'Monthly cost']) {
      const fig = page.getByRole('figure', { name: caption });
      await fig.locator('canvas').waitFor(); // uPlot, loaded on this page only
      await fig.getByRole('button', { name: 'Show as table' }).click();
      await fig.getByRole('table').waitFor();
      await fig.getByRole('rowheader', { name: '2026-03' }).waitFor();
    }
    // The money tables in the owner's currency: March is 74.66 + 70.47.
    const monthly = (await api('/api/vehicles/1/statistics/monthly?energy=gasoline&tz=Europe%2FBerlin')).body;
    assert.deepEqual(monthly.map((m) => [m.month, m.amount]), [['2026-03', 145.13]]);
    assert.deepEqual(await page.getByRole('figure', { name: 'Monthly cost' }).getByRole('cell').allInnerTexts(), ['€145.13']);
    assert.deepEqual(await page.getByRole('figure', { name: 'Price per unit (per L)' }).getByRole('cell').allInnerTexts(), monthly.map((m) => money(m.avg_price, 3)));
    assert.match(await page.getByRole('figure', { name: 'Price per unit (per L)' }).getByRole('cell').first().innerText(), /^€1\.\d{3}$/);
    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const csv = await fetch(s.base + href).then((r) => r.text());
    assert.match(csv, /^id,vehicle_id,refuel_time/);
    // The spreadsheet's file, fetched as the browser (en-IE) would: a byte order mark, then commas.
    const sheetHref = await page.getByRole('link', { name: 'Export for a spreadsheet (Excel, LibreOffice)' }).getAttribute('href');
    // Both in the owner's zone, which the service does not know while it is a guess of this browser's.
    assert.equal(href, '/api/vehicles/1/refuels.csv?tz=Europe%2FBerlin');
    assert.equal(sheetHref, '/api/vehicles/1/refuels.csv?spreadsheet=true&tz=Europe%2FBerlin');
    const sheet = await page.evaluate(async (u) => Array.from(new Uint8Array(await (await fetch(u)).arrayBuffer())), sheetHref);
    assert.deepEqual(sheet.slice(0, 3), [0xef, 0xbb, 0xbf]);
    assert.match(Buffer.from(sheet.slice(3)).toString('utf8'), /^id,vehicle_id,refuel_time/);
    const csvFile = 'refuel_time,odometer,fuel_type,liters,total_amount,is_full\n2026-04-01T08:00:00Z,13700,gasoline,38.2,66.5,true\n2026-03-10T07:00:00Z,13100,gasoline,40.5,70.47,true\n';
    // 2026-03-10 08:00 in Europe/Berlin, as typed on Add refuel, is 07:00 UTC: already stored.
    await field('CSV file to import').setInputFiles({ name: 'refuels.csv', mimeType: 'text/csv', buffer: Buffer.from(csvFile) });
    await page.getByRole('button', { name: 'Preview import' }).click();
    await page.getByText('2 rows read: 1 would be imported, 1 are already stored').waitFor();
    assert.equal(await page.getByText('The file is not UTF-8').count(), 0, 'a UTF-8 file gets no encoding note');
    assert.equal((await api('/api/refuels?vehicle_id=1')).body.length, 2, 'the preview stores nothing');
    await page.getByRole('button', { name: 'Import 1 refuels' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported 1 refuels' }).waitFor();
    assert.equal((await api('/api/refuels?vehicle_id=1')).body.length, 3);
    // A spreadsheet's plain CSV in Windows-1252 (the browser's language is English): the preview says
    // so, and the remark keeps its ü.
    const latin = Buffer.from('refuel_time,odometer,fuel_type,liters,total_amount,is_full,remark\n2026-04-20T08:00:00Z,14300,gasoline,39,68.1,true,M\xfcller\n', 'latin1');
    await field('CSV file to import').setInputFiles({ name: 'excel.csv', mimeType: 'text/csv', buffer: latin });
    await page.getByRole('button', { name: 'Preview import' }).click();
    await page.getByText('1 rows read: 1 would be imported').waitFor();
    await page.getByText('The file is not UTF-8: it was read as windows-1252').waitFor();
    await page.getByRole('button', { name: 'Import 1 refuels' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported 1 refuels' }).waitFor();
    const imported = (await api('/api/refuels?vehicle_id=1')).body.find((r) => r.odometer === 14300);
    assert.equal(imported?.remark, 'Müller');
    // The tests after this one count the vehicle's three refuels.
    assert.equal((await api(`/api/refuels/${imported.id}`, { method: 'DELETE' })).status, 204);
  });

  it('/api/ navigations answer JSON, never the app shell, online', async () => {
    for (const [path, status] of [['/api/vehicles', 200], ['/api/nothing-here', 404]]) {
      const res = await page.goto(s.base + path);
      assert.equal(res.status(), status, path);
      assert.match(res.headers()['content-type'], /application\/json/, path);
      assert.equal(res.fromServiceWorker(), false, path);
      JSON.parse(await res.text());
    }
  });

  it('offline: snapshots as of a time; a refuel saved offline is stored exactly once after reconnecting', async (t) => {
    t.after(async () => {
      // Whatever happened, the next tests run online with fuel-service up.
      await ctx.setOffline(false);
      if (s.procs.fuel.exitCode !== null) {
        await s.startFuel();
        await s.waitApi('/api/vehicles');
      }
    });
    await goto('/history'); // a fresh snapshot of the history
    await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').nth(2).waitFor();
    await goto('/statistics');
    await page.getByText('Refuels', { exact: true }).waitFor();
    await s.stopFuel();
    // The API stopped: navigations under /api/ still answer JSON, not the shell.
    const other = await ctx.newPage();
    const down = await other.goto(s.base + '/api/vehicles');
    assert.equal(down.status(), 503);
    assert.match(down.headers()['content-type'], /application\/json/);
    assert.equal(down.fromServiceWorker(), false);
    await ctx.setOffline(true);
    // Fully offline: the service worker does not answer /api/ with the shell
    // (in a page of its own: Chromium's error page would disturb the next navigation).
    const offlineNav = await other.goto(s.base + '/api/vehicles').then((r) => r, (e) => e);
    assert.ok(offlineNav instanceof Error, 'an offline /api/ navigation fails instead of showing the app');
    assert.match(offlineNav.message, /ERR_INTERNET_DISCONNECTED/);
    await other.close();

    await goto('/history');
    assert.equal(await page.evaluate(() => navigator.onLine), false);
    await page.getByRole('status').filter({ hasText: 'as of' }).waitFor();
    await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').nth(2).waitFor();
    assert.equal(await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').count(), 3);
    await nav('Statistics');
    await page.getByRole('status').filter({ hasText: 'as of' }).waitFor();
    await nav('Vehicles');
    await page.getByRole('heading', { level: 2, name: 'Family car' }).waitFor();

    await nav('Ask');
    await page.getByText('Asking needs a connection').waitFor();
    assert.ok(await page.getByRole('button', { name: 'Ask', exact: true }).isDisabled());
    await nav('Manuals');
    await page.getByText('Uploading needs a connection').waitFor();
    assert.ok(await field('Upload a PDF').isDisabled());

    await nav('Add refuel');
    await saveRefuel({ when: '2026-04-20T08:00', odometer: '14300', quantity: '39.9', total: '69.3' });
    await page.getByRole('status').filter({ hasText: 'Refuel queued: 39.90 L, €69.30 — 20 Apr 2026. No connection right now' }).waitFor();
    await nav('History');
    await page.getByText('Waiting to sync').waitFor();

    await s.startFuel();
    await s.waitApi('/api/vehicles');
    await ctx.setOffline(false);
    await page.getByText('Waiting to sync').waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').nth(3).waitFor();
    const records = (await api('/api/refuels?vehicle_id=1')).body;
    assert.equal(records.filter((r) => r.odometer === 14300).length, 1);
    assert.equal(records.length, 4);
  });

  it('a refuel whose first answer was lost is stored exactly once', async (t) => {
    t.after(() => ctx.unroute('**/api/refuels'));
    let attempts = 0;
    await ctx.route('**/api/refuels', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      attempts++;
      if (attempts === 1) {
        await route.fetch(); // reaches the service, which stores the record...
        return route.abort('connectionreset'); // ...and the answer is lost
      }
      return route.continue();
    });
    await nav('Add refuel');
    await saveRefuel({ when: '2026-05-01T08:00', odometer: '15000', quantity: '40', total: '70' });
    await page.getByRole('status').filter({ hasText: 'Refuel queued: 40.00 L, €70.00 — 1 May 2026.' }).waitFor();
    assert.equal((await api('/api/refuels?vehicle_id=1')).body.filter((r) => r.odometer === 15000).length, 1, 'the first attempt was stored');
    await nav('History');
    // The outbox tries again by itself (5 s later) with the same Idempotency-Key. The page lists it
    // as waiting first (read from IndexedDB after the page shows: waiting for it to go before it
    // came passed at once on a slow machine, before the second attempt).
    await page.getByText('Waiting to sync').waitFor();
    await page.getByText('Waiting to sync').waitFor({ state: 'detached', timeout: 30_000 });
    assert.ok(attempts >= 2, `the outbox sent it again (${attempts} attempts)`);
    const records = (await api('/api/refuels?vehicle_id=1')).body;
    assert.equal(records.filter((r) => r.odometer === 15000).length, 1);
    await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').nth(4).waitFor();
    assert.equal(await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').count(), 5);
  });

  it('a queued refuel the server refuses needs attention, with its message, and is not resent', async (t) => {
    const spare = (await api('/api/vehicles', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"Spare","fuel_type":"diesel"}' })).body;
    let posts = 0;
    await ctx.route('**/api/refuels', (route) => {
      if (route.request().method() === 'POST') posts++;
      return route.continue();
    });
    t.after(async () => {
      await ctx.unroute('**/api/refuels');
      await ctx.setOffline(false);
    });
    await goto('/add');
    await field('Vehicle').selectOption({ label: 'Spare' });
    await settled('Energy', 'diesel');
    await ctx.setOffline(true);
    await saveRefuel({ odometer: '500', quantity: '30', total: '51' });
    await page.getByRole('status').filter({ hasText: 'Refuel queued: 30.00 L, €51.00' }).waitFor();
    // Meanwhile the vehicle is deleted elsewhere: the queued refuel can no longer be stored.
    assert.equal((await api(`/api/vehicles/${spare.id}`, { method: 'DELETE' })).status, 204);
    const before = posts;
    await ctx.setOffline(false);
    await nav('History');
    // The vehicle list is read again on reconnecting: Spare is gone from it, and its refused
    // refuel shows under the vehicle now chosen, saying why it can be stored nowhere.
    await page.getByText('Needs attention').waitFor({ timeout: 30_000 });
    await page.getByText(/The server refused it: .*vehicle/).waitFor();
    await page.getByText('Its vehicle is no longer on the server.').waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Vehicle' }).getByRole('option', { name: 'Spare' }).count(), 0);
    assert.equal(posts, before + 1);
    // Coming back, going online again and waiting past the retry pause send nothing more.
    await page.evaluate(() => { window.dispatchEvent(new Event('online')); document.dispatchEvent(new Event('visibilitychange')); });
    await page.waitForTimeout(6_000);
    assert.equal(posts, before + 1, 'a refused item is never resent by itself');
    await page.getByRole('button', { name: 'Discard' }).click();
    await page.getByText('Needs attention').waitFor({ state: 'detached' });
  });

  it('an updated app asks before it reloads; a half-filled form is kept', async () => {
    await goto('/add');
    await field('Station').fill('half-filled');
    s.publishUpdate();
    await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r?.update()));
    const prompt = page.getByRole('alert').filter({ hasText: 'A new version of CarHub is ready.' });
    await prompt.waitFor({ timeout: 30_000 });
    assert.equal(await field('Station').inputValue(), 'half-filled', 'nothing reloaded by itself');
    await prompt.getByRole('button', { name: 'Later' }).click();
    await prompt.waitFor({ state: 'detached' });
    assert.equal(await field('Station').inputValue(), 'half-filled');
  });

  let md5 = '';
  it('Manuals: upload with progress, listed by title with the file name under it, the original served', async () => {
    await nav('Manuals');
    await page.evaluate(() => {
      window.__sawProgress = false;
      new MutationObserver(() => {
        if (document.querySelector('progress, [role=progressbar]')) window.__sawProgress = true;
      }).observe(document.body, { subtree: true, childList: true });
    });
    const pdf = makePdf([
      ['CarHub test manual', 'Welcome to your car.'],
      ['Maintenance schedule', 'Change the engine oil every 15000 km or once a year.', 'Check the tyre pressure every month.'],
    ]);
    await field('Upload a PDF').setInputFiles({ name: 'e2e-manual.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByRole('status').filter({ hasText: 'Stored e2e-manual.pdf: 2 pages' }).waitFor({ timeout: 60_000 });
    assert.ok(await page.evaluate(() => window.__sawProgress), 'a progressbar was shown');
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'e2e-manual.pdf' }) });
    await item.getByText('2 pages').waitFor();
    md5 = (await api('/api/documents')).body[0].fileMd5;

    // A manual with a title is listed by it, its file name under it.
    const titled = makePdf([['Owner information', 'Tyre pressure: 2.4 bar front and rear.']], { title: 'Golf Owner\'s Manual (2019)' });
    await field('Upload a PDF').setInputFiles({ name: 'golf_om_2019_en.pdf', mimeType: 'application/pdf', buffer: titled });
    await page.getByRole('status').filter({ hasText: 'Stored golf_om_2019_en.pdf: 1 page' }).waitFor({ timeout: 60_000 });
    const byTitle = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Golf Owner\'s Manual (2019)', exact: true }) });
    await byTitle.getByText('golf_om_2019_en.pdf', { exact: true }).waitFor();
    const other = (await api('/api/documents')).body.find((d) => d.fileName === 'golf_om_2019_en.pdf');
    assert.equal(other?.title, 'Golf Owner\'s Manual (2019)');
    assert.equal((await fetch(`${s.base}/api/documents/${other.fileMd5}`, { method: 'DELETE' })).status, 204);
    const file = await fetch(`${s.base}/api/documents/${md5}/file`);
    assert.equal(file.status, 200, 'GET /api/documents/:md5/file serves the original');
    assert.match(file.headers.get('content-type') ?? '', /application\/pdf/);
  });

  it('Ask: the answer renders while it streams; sources link to the page; follow-ups send the history', async () => {
    await nav('Ask');
    const release = s.chat.hold();
    await field('Question').fill('How often should I change the engine oil?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByText('Change the engine oil', { exact: false }).waitFor();
    // The provider still holds the rest of its stream: what shows is the first piece only.
    assert.equal(await answer.getAttribute('aria-busy'), 'true');
    assert.doesNotMatch(await answer.innerText(), /15000/);
    release();
    await answer.getByText('Change the engine oil every 15000 km [1].').waitFor();
    await page.waitForFunction(() => document.querySelector('.answer')?.getAttribute('aria-busy') === 'false');
    const link = page.getByRole('list', { name: 'Sources' }).getByRole('link', { name: 'e2e-manual.pdf, p. 2' });
    // The page view of that page, inside the app (e2e/pages.test.mjs opens it).
    assert.match(await link.getAttribute('href'), new RegExp(`^/ask\\?doc=${md5}&page=2&name=e2e-manual\\.pdf&hl=(?:[0-9.]|%2C|%3B)+$`));

    // The keyboard: Shift+Enter is a new line, an Enter that ends an input method's composition
    // asks nothing, and Enter asks.
    const asked = s.chat.requests.length;
    await field('Question').fill('And the tyres?');
    await field('Question').press('Shift+Enter');
    assert.equal(await field('Question').inputValue(), 'And the tyres?\n');
    await field('Question').press('Backspace');
    await field('Question').evaluate((el) => el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true, cancelable: true })));
    await page.waitForTimeout(300);
    assert.equal(s.chat.requests.length, asked);
    assert.equal(await field('Question').inputValue(), 'And the tyres?');
    await field('Question').press('Enter');
    await page.getByRole('heading', { name: 'Earlier in this conversation' }).waitFor();
    assert.equal(await field('Question').inputValue(), '');
    await page.waitForFunction(() => document.querySelector('.answer')?.getAttribute('aria-busy') === 'false');
    const last = s.chat.requests.at(-1);
    const text = JSON.stringify(last.messages);
    assert.match(text, /How often should I change the engine oil\?/);
    assert.match(text, /Change the engine oil every 15000 km/);
  });

  it('Manuals: a file that is not a PDF shows the service\'s message as an alert, and nothing is listed', async () => {
    await nav('Manuals');
    const listed = (await api('/api/documents')).body.map((d) => d.fileMd5);
    const bytes = Buffer.from('These are notes, not the pages of a manual.\n');
    // What docqa itself answers for this file.
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'text/plain' }), 'notes.txt');
    const direct = await api('/api/documents/upload', { method: 'POST', body: form });
    assert.equal(direct.status, 400);
    assert.ok(direct.body.message, 'docqa names what is wrong');
    await field('Upload a PDF').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: bytes });
    const alert = page.getByRole('alert').filter({ hasText: direct.body.message });
    await alert.waitFor();
    assert.match(await alert.innerText(), /notes\.txt/);
    await page.getByRole('progressbar').waitFor({ state: 'detached' });
    await page.getByLabel('Upload a PDF', { exact: true, disabled: false }).waitFor();
    const items = page.getByRole('list', { name: 'Manuals' }).getByRole('listitem');
    assert.equal(await items.filter({ hasText: 'notes.txt' }).count(), 0);
    assert.equal(await items.count(), listed.length);
    assert.deepEqual((await api('/api/documents')).body.map((d) => d.fileMd5), listed);
  });

  it('Ask: offline, or with no answer from the server, it says plainly that it needs a connection', async (t) => {
    t.after(async () => {
      await ctx.unroute('**/api/chat/stream');
      await ctx.setOffline(false);
    });
    await goto('/ask');
    const asked = s.chat.requests.length;
    await field('Question').fill('Where is the spare wheel?');
    await ctx.setOffline(true);
    await page.getByRole('status').filter({ hasText: 'Asking needs a connection' }).waitFor();
    await page.getByRole('button', { name: 'Ask', exact: true, disabled: true }).waitFor();
    assert.equal(await field('Question').inputValue(), 'Where is the spare wheel?', 'the question is kept');
    await ctx.setOffline(false);
    await page.getByRole('button', { name: 'Ask', exact: true, disabled: false }).waitFor();
    // The browser believes it is online, but no answer comes back.
    await ctx.route('**/api/chat/stream', (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('alert').filter({ hasText: 'Asking needs a connection' }).waitFor();
    assert.equal(await answer.getAttribute('aria-busy'), 'false');
    assert.equal(s.chat.requests.length, asked, 'nothing reached the chat provider');
  });

  it('Ask: an answer the server ends with an error event shows the error, not half an answer as if complete', async () => {
    await goto('/ask');
    const release = s.chat.hold({ fail: true });
    const stream = page.waitForResponse((r) => r.url().endsWith('/api/chat/stream'));
    await field('Question').fill('How often should I change the engine oil?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByText('Change the engine oil', { exact: false }).waitFor();
    assert.equal(await answer.getAttribute('aria-busy'), 'true');
    release(); // the provider now ends its stream without finishing the answer
    const alert = answer.getByRole('alert');
    await alert.waitFor();
    const body = await (await stream).text();
    assert.match(body, /^event: ?error$/m, 'docqa ended the answer with an error event');
    assert.doesNotMatch(body, /^event: ?done$/m);
    assert.match(await alert.innerText(), /^No answer: ./);
    assert.equal(await answer.getAttribute('aria-busy'), 'false');
    assert.doesNotMatch(await answer.innerText(), /Change the engine oil/, 'the half answer is not shown as the answer');
    assert.equal(await page.getByRole('list', { name: 'Sources' }).count(), 0);

    // A follow-up does not send the failed answer as if it had been given.
    await field('Question').fill('How often should I change the engine oil?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await answer.getByText('Change the engine oil every 15000 km [1].').waitFor();
    assert.deepEqual(s.chat.requests.at(-1).messages.filter((m) => m.role === 'assistant'), []);
    assert.equal(await page.getByRole('heading', { name: 'Earlier in this conversation' }).count(), 0);
  });

  for (const scheme of ['light', 'dark']) {
    it(`axe-core finds no serious or critical violation on any page (${scheme})`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      const found = [];
      for (const path of ['/', '/add', '/history', '/statistics', '/vehicles', '/manuals', '/ask', '/settings']) {
        await goto(path);
        await page.waitForLoadState('networkidle');
        const violations = await axeViolations(page);
        for (const v of violations) found.push(`${path}: ${v}`);
      }
      assert.deepEqual(found, []);
    });
  }

  it('Settings has no account section with accounts off (there is no password to change)', async () => {
    await goto('/settings');
    await page.getByRole('button', { name: 'Save settings' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Account' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Change password' }).count(), 0);
  });

  it('Manuals: delete a document (with confirmation)', async () => {
    await goto('/manuals');
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'e2e-manual.pdf' }) });
    await item.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'e2e-manual.pdf deleted.' }).waitFor();
    assert.deepEqual((await api('/api/documents')).body, []);
  });

  const ENERGY_NAMES = { gasoline: 'Gasoline', electricity: 'Electricity' };
  const fmt = (v, digits = 2) => new Intl.NumberFormat('en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v);
  // The page's figures settle within 10 s, looked at every 50 ms.
  const eventually = (check) => retry(check, 10_000, 50);

  it('Statistics with several energies: cards per energy with units and the API\'s figures; the consumption table per energy', async () => {
    const post = (path, body) => api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const v = (await post('/api/vehicles', { name: 'Plug-in', fuel_type: 'plug_in_hybrid' })).body;
    // The worked example of proto-docs/fuel-decisions.md "Energies", a few weeks apart.
    const fills = [
      ['gasoline', '2026-01-05', 10000, 40, 68, true],
      ['electricity', '2026-01-20', 10050, 10, 3, true],
      ['electricity', '2026-02-03', 10120, 8, 2.4, true],
      ['electricity', '2026-02-18', 10300, 12, 4.2, true],
      ['gasoline', '2026-03-02', 10600, 30, 54, true],
      ['electricity', '2026-03-15', 10650, 5, 1.5, false],
      ['electricity', '2026-03-28', 10700, 9, 2.7, true],
    ];
    for (const [energy, day, odometer, liters, total, full] of fills) {
      const r = await post('/api/refuels', { vehicle_id: v.id, refuel_time: `${day}T10:00:00Z`, odometer, fuel_type: energy, energy, liters, total_amount: total, is_full: full });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    const st = (await api(`/api/vehicles/${v.id}/statistics`)).body;
    assert.deepEqual(st.by_energy.map((e) => [e.energy, e.unit, e.total_records, e.total_quantity, e.total_amount, e.consumption_samples]),
      [['electricity', 'kWh', 5, 44, 13.8, 3], ['gasoline', 'l', 2, 70, 122, 1]]);
    const [el, gas] = st.by_energy;
    assert.ok(Math.abs(el.avg_consumption - 907 / 126) < 1e-3 && Math.abs(el.cost_per_km - 0.0227) < 1e-4, JSON.stringify(el));
    assert.ok(gas.avg_consumption === 5 && gas.cost_per_km === 0.09, JSON.stringify(gas));
    // The cards show the distance-weighted figures, which differ from the means here: 34 kWh and
    // 10.80 over the 650 km of the three charging spans.
    assert.ok(el.weighted_consumption === 5.2308 && el.weighted_cost_per_km === 0.0166, JSON.stringify(el));
    assert.ok(gas.weighted_consumption === 5 && gas.weighted_cost_per_km === 0.09, JSON.stringify(gas));

    await goto('/statistics'); // the vehicle was made elsewhere: the app reads the vehicles as it starts
    await field('Vehicle').selectOption({ label: 'Plug-in' });
    for (const e of st.by_energy) {
      const u = e.unit === 'l' ? 'L' : e.unit;
      const cards = page.getByRole('group', { name: ENERGY_NAMES[e.energy], exact: true });
      const want = {
        Refuels: fmt(e.total_records, 0),
        Quantity: `${fmt(e.total_quantity, 2)} ${u}`,
        Spent: { electricity: '€13.80', gasoline: '€122.00' }[e.energy],
        'Price paid per unit': `${money(e.total_amount / e.total_quantity, 3)}/${u}`,
        // Two energies: each energy's figures are per km driven on any energy, and say so.
        [`${u} per 100 km driven (all energies)`]: { electricity: '5.23 kWh/100 km', gasoline: '5.00 L/100 km' }[e.energy],
        'Fuel cost per km driven (all energies)': { electricity: '€0.0166', gasoline: '€0.0900' }[e.energy],
      };
      assert.equal(want.Spent, money(e.total_amount));
      assert.equal(want[`${u} per 100 km driven (all energies)`], `${fmt(e.weighted_consumption, 2)} ${u}/100 km`);
      assert.equal(want['Fuel cost per km driven (all energies)'], money(e.weighted_cost_per_km, 4));
      for (const [label, value] of Object.entries(want)) {
        await cards.getByRole('group', { name: label, exact: true }).getByText(value, { exact: true }).waitFor();
      }
    }
    // The vehicle's own cards count every record.
    assert.equal(st.total_amount, 135.8);
    await page.getByRole('group', { name: 'Total spent', exact: true }).getByText('€135.80', { exact: true }).waitFor();

    // The consumption chart is the main energy's; its table follows the energy chosen.
    const table = async (energy, unit) => {
      const want = (await api(`/api/vehicles/${v.id}/statistics/monthly?energy=${energy}&tz=Europe%2FBerlin`)).body;
      assert.ok(want.length > 0 && want.every((m) => m.energy === energy));
      const fig = page.getByRole('figure', { name: `${unit} per 100 km driven (all energies)`, exact: true });
      await eventually(async () => {
        const months = await fig.getByRole('rowheader').allInnerTexts();
        const values = await fig.getByRole('cell').allInnerTexts();
        // A month without a consumption sample (the service's 0) is "–", never 0.
        assert.deepEqual([months, values], [want.map((m) => m.month), want.map((m) => (m.consumption === 0 ? '–' : fmt(m.consumption, 2)))]);
      });
      return want;
    };
    const gasFig = page.getByRole('figure', { name: 'L per 100 km driven (all energies)', exact: true });
    await gasFig.getByRole('button', { name: 'Show as table' }).click();
    const gasMonths = await table('gasoline', 'L');
    await field('Energy').selectOption({ label: 'Electricity' });
    const elMonths = await table('electricity', 'kWh');
    assert.notDeepEqual(elMonths.map((m) => m.consumption), gasMonths.map((m) => m.consumption));
    assert.ok(elMonths.some((m) => m.consumption > 0));
    await page.getByRole('figure', { name: 'Price per unit (per kWh)', exact: true }).waitFor();
  });

  it('every page works at a phone and a desktop width: its controls by name, nothing overflows sideways', async (t) => {
    t.after(() => page.setViewportSize({ width: 390, height: 844 }));
    const button = (name) => page.getByRole('button', { name, exact: true });
    const first = (list) => page.getByRole('list', { name: list }).getByRole('listitem').first();
    // [page, its main controls, whether each must be enabled]
    const pages = [
      ['Home', () => [page.getByRole('main').getByRole('link', { name: 'Add refuel', exact: true }), page.getByRole('region', { name: 'Last refuel' })]],
      ['Add refuel', () => [
        ...['Vehicle', 'Date and time', 'Odometer', 'Quantity', 'Energy', 'Total amount', 'Price per unit', 'Full tank', 'Missed a fill-up before this', 'Station', 'Notes'].map(field),
        button('Save'), button('Save and add another'),
      ]],
      ['History', () => [field('Vehicle'), first('Refuels'), first('Refuels').getByRole('button', { name: 'Edit' }), first('Refuels').getByRole('button', { name: 'Delete' })]],
      ['Statistics', async () => [
        // The plug-in hybrid: per-energy cards and the energy picker, the widest this page gets.
        await field('Vehicle').selectOption({ label: 'Plug-in' }).then(() => field('Vehicle')), page.getByRole('group', { name: 'Refuels', exact: true }).first(), field('Energy'),
        page.getByRole('figure', { name: /per 100 km driven \(all energies\)$/ }), page.getByRole('figure', { name: /per 100 km driven \(all energies\)$/ }).getByRole('button', { name: /^Show as/ }),
        page.getByRole('link', { name: 'Export CSV' }), field('CSV file to import'),
      ]],
      ['Vehicles', () => [button('Add vehicle'), first('Vehicles').getByRole('button', { name: 'Edit' }), first('Vehicles').getByRole('button', { name: 'Delete' })]],
      ['Manuals', () => [field('Upload a PDF')]],
      ['Ask', () => [field('Question'), button('Ask')]],
    ];
    const overflow = () => page.evaluate(() => {
      const d = document.documentElement;
      return d.scrollWidth > d.clientWidth ? `${d.scrollWidth} > ${d.clientWidth}` : '';
    });
    for (const size of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
      await page.setViewportSize(size);
      await goto('/');
      for (const [name, controls] of pages) {
        const link = await navLink(page, name);
        assert.ok(await link.isVisible(), `${size.width}px: the link ${name} is visible (under More on a phone)`);
        await nav(name);
        await page.waitForLoadState('networkidle');
        for (const c of await controls()) {
          await c.waitFor();
          assert.ok(await c.isVisible(), `${size.width}px ${name}: ${c} is visible`);
          const tag = await c.evaluate((n) => n.tagName);
          if (/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(tag)) assert.ok(await c.isEnabled(), `${size.width}px ${name}: ${c} is enabled`);
          const box = await c.boundingBox();
          assert.ok(box && box.x >= 0 && box.x + box.width <= size.width + 0.5, `${size.width}px ${name}: ${c} lies within the width (${JSON.stringify(box)})`);
        }
        if (name === 'Statistics') {
          // A chart drawn at one width follows the next.
          await page.getByRole('figure', { name: /per 100 km driven \(all energies\)$/ }).locator('canvas').waitFor();
        }
        assert.equal(await overflow(), '', `${size.width}px ${name}: the page scrolls sideways`);
      }
      // Usable, not only visible: type a question, open and cancel a form.
      await field('Question').fill('Is this field usable?');
      assert.equal(await field('Question').inputValue(), 'Is this field usable?');
      await nav('Vehicles');
      await button('Add vehicle').click();
      await page.getByRole('form', { name: 'New vehicle' }).waitFor();
      assert.equal(await overflow(), '', `${size.width}px: the vehicle form scrolls sideways`);
      await button('Cancel').click();
      await page.getByRole('form', { name: 'New vehicle' }).waitFor({ state: 'detached' });
    }
    // Turning the window narrow again: the chart follows, nothing overflows.
    await nav('Statistics');
    const canvas = page.getByRole('figure', { name: /per 100 km driven \(all energies\)$/ }).locator('canvas');
    await canvas.waitFor();
    const wide = (await canvas.boundingBox()).width;
    await page.setViewportSize({ width: 390, height: 844 });
    await eventually(async () => {
      const box = await canvas.boundingBox();
      assert.ok(box.width < wide && box.x + box.width <= 390, `the chart is ${box.width} px wide at 390 px (was ${wide})`);
    });
    assert.equal(await overflow(), '');
  });

  it('no CSP violation and no uncaught error in the whole run', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});
