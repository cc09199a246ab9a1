// What an owner expects to find beside their records, on a phone (390x844):
// a photo of the receipt taken in Add refuel itself (online, and offline
// with the refuel it belongs to), the energy and "missed a fill-up" changed
// in History's edit form with the amount's currency beside it, the expenses'
// CSV from Costs, a manual of the list linked to a vehicle from Manuals, and
// with accounts off the calendar link of the reminders. Screenshots
// (phone and desktop, light and dark) go to shotsDir.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeBothSchemes, eventually, navLink, shootEverywhere, startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';

const ZONE = 'Europe/Berlin';
let s;
let page;
let golf;
const pageErrors = [];

const api = async (path, init = {}) => {
  const res = await fetch(s.base + path, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
  const text = await res.text();
  assert.ok(res.ok, `${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
};
const heading = (name) => page.getByRole('heading', { level: 1, name, exact: true });
const field = (label) => page.getByLabel(label, { exact: true });
const newest = async () => (await api(`/api/refuels?vehicle_id=${golf.id}&limit=1`))[0];

async function go(path, name) {
  await page.goto(s.base + path);
  await heading(name).waitFor();
  await page.waitForLoadState('networkidle');
}

/** A real JPEG (drawn by the browser), as a person's camera would give one. */
async function photo(name) {
  const bytes = await page.evaluate(async () => {
    const c = document.createElement('canvas');
    c.width = 96;
    c.height = 64;
    const g = c.getContext('2d');
    g.fillStyle = '#36c';
    g.fillRect(0, 0, 96, 64);
    const blob = await new Promise((ok) => c.toBlob(ok, 'image/jpeg', 0.9));
    return [...new Uint8Array(await blob.arrayBuffer())];
  });
  return { name, mimeType: 'image/jpeg', buffer: Buffer.from(bytes) };
}

async function fillRefuel(odometer) {
  await field('Odometer').fill(odometer);
  await field('Quantity').fill('40');
  await field('Total amount').fill('60');
}

before(async () => {
  s = await startStack({ locale: 'en-IE', timezoneId: ZONE, chatModel: false });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => void d.accept());
  await api('/api/preferences', {
    method: 'PUT',
    body: JSON.stringify({
      distance_unit: 'km', volume_unit: 'l', consumption_unit: 'l_per_100km', electric_consumption_unit: 'kwh_per_100km',
      gas_consumption_unit: 'kg_per_100km', locale: 'en-IE', currency: 'EUR', time_zone: ZONE,
    }),
  });
  golf = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Golf', fuel_type: 'gasoline', default_vehicle: true }) });
  await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Van', fuel_type: 'diesel' }) });
  // The service worker controls the page, as for an owner who has used the app: offline, the app still opens.
  await page.goto(`${s.base}/`);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
});

after(async () => {
  await s?.stop();
});

describe('a photo of the receipt in Add refuel', () => {
  it('online: the photo is stored with the refuel and shows on it in History', async () => {
    await go('/add', 'Add refuel');
    await fillRefuel('13000');
    await field('Add photos or receipts').setInputFiles(await photo('pump.jpg'));
    await page.getByText('To be added with the refuel: pump.jpg').waitFor();
    await shootEverywhere(page, 'add-refuel-photo');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Added: pump.jpg.' }).waitFor();
    await page.getByText('To be added with the refuel', { exact: false }).waitFor({ state: 'detached' });
    const r = await newest();
    assert.equal(Number(r.odometer), 13000);
    assert.deepEqual((await api(`/api/refuels/${r.id}/attachments`)).map((a) => a.file_name), ['pump.jpg']);
    await go('/history', 'History');
    const first = page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').first();
    await first.getByText('Receipts and photos').click();
    const thumb = first.getByRole('img', { name: 'Photo pump.jpg' });
    await thumb.waitFor();
    await eventually(async () => assert.ok(await thumb.evaluate((img) => img.complete && img.naturalWidth > 0), 'the thumbnail shows'));
  });

  it('offline: the photo waits with the refuel, shown on it in History, and is stored on it once online', async (t) => {
    t.after(() => s.context.setOffline(false));
    await go('/add', 'Add refuel');
    await s.context.setOffline(true);
    await fillRefuel('13600');
    await field('Add photos or receipts').setInputFiles(await photo('receipt.jpg'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Its photos wait with it: receipt.jpg.' }).waitFor();
    await (await navLink(page, 'History')).click();
    const queued = page.getByRole('region', { name: 'Not yet on the server' });
    await queued.getByText('receipt.jpg').waitFor();
    await queued.getByText('Waiting to be sent').waitFor();
    await shootEverywhere(page, 'history-queued-photo');
    await s.context.setOffline(false);
    await queued.waitFor({ state: 'detached', timeout: 60_000 });
    const r = await eventually(async () => {
      const n = await newest();
      assert.equal(Number(n.odometer), 13600);
      return n;
    });
    await eventually(async () => assert.deepEqual((await api(`/api/refuels/${r.id}/attachments`)).map((a) => a.file_name), ['receipt.jpg']));
    assert.equal((await api(`/api/refuels?vehicle_id=${golf.id}`)).length, 2, 'the refuel stored once');
  });
});

describe('what is typed after a failed save', () => {
  it('stays in the field: a value filled in at once, and one typed key by key', async () => {
    await go('/add', 'Add refuel');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('There is a problem', { exact: true }).waitFor();
    await field('Odometer').fill('14200');
    await field('Quantity').pressSequentially('40');
    await page.waitForTimeout(200);
    assert.deepEqual([await field('Odometer').inputValue(), await field('Quantity').inputValue()], ['14200', '40']);
  });
});

describe("History's edit form", () => {
  it('changes the energy and "missed a fill-up", and shows the currency beside the amount', async () => {
    await go('/history', 'History');
    const first = page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').first();
    await first.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit refuel' });
    assert.equal(await form.getByLabel('Energy', { exact: true }).inputValue(), 'gasoline');
    assert.equal(await form.getByLabel('Missed a fill-up before this', { exact: true }).isChecked(), false);
    // The amount's unit is the currency, as in Add refuel.
    const total = form.getByLabel('Total amount', { exact: true });
    const unit = await total.evaluate((i) => i.parentElement.querySelector('.unit')?.textContent);
    assert.equal(unit, '€');
    await form.getByLabel('Energy', { exact: true }).selectOption('diesel');
    await form.getByLabel('Missed a fill-up before this', { exact: true }).check();
    await shootEverywhere(page, 'history-edit');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.waitFor({ state: 'detached' });
    const r = await newest();
    assert.deepEqual([r.energy, r.fuel_type, r.missed_previous, Number(r.liters), Number(r.odometer)], ['diesel', 'diesel', true, 40, 13600]);
    await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').first().getByText('a fill-up before this was missed').waitFor();
    // And back: unticked is stored too.
    await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').first().getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('form', { name: 'Edit refuel' }).getByLabel('Missed a fill-up before this', { exact: true }).uncheck();
    await page.getByRole('form', { name: 'Edit refuel' }).getByRole('button', { name: 'Save changes' }).click();
    await eventually(async () => assert.equal((await newest()).missed_previous, false));
  });
});

describe('the expenses as CSV', () => {
  it('Costs offers the expenses as a CSV file, the expense in it', async () => {
    await api('/api/expenses', {
      method: 'POST',
      body: JSON.stringify({ vehicle_id: golf.id, time: '2026-11-20T09:00:00Z', category: 'service', title: 'Oil and filter change', amount: 89.9, vendor: 'Garage Müller' }),
    });
    await go('/costs', 'Costs');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export expenses as CSV', exact: true }).click(),
    ]);
    const path = join(s.dir, 'expenses.csv');
    await download.saveAs(path);
    const text = readFileSync(path, 'utf8');
    const lines = text.trim().split(/\r?\n/);
    assert.equal(lines.length, 2, text);
    assert.match(lines[1], /Oil and filter change/);
    assert.match(lines[1], /89\.9/);
    assert.match(lines[1], /Garage Müller/);
    // 09:00Z in the browser's Europe/Berlin, with its offset, though no zone was saved on the server.
    assert.match(lines[1], /2026-11-20T10:00:00\+01:00/);
  });

  it('with accounts off, the calendar link needs no token and answers the reminders as a calendar', async () => {
    await go('/costs', 'Costs');
    await page.getByText('Add reminders to your calendar', { exact: true }).click();
    const link = await field('Calendar link').inputValue();
    assert.equal(link, `${s.base}/api/reminders.ics`);
    const webcal = await page.getByRole('link', { name: 'Open in calendar app' }).getAttribute('href');
    assert.equal(webcal, link.replace(/^http:/, 'webcal:'));
    const res = await fetch(link);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/calendar/);
    assert.match(await res.text(), /^BEGIN:VCALENDAR/);
    await shootEverywhere(page, 'costs-calendar-export');
    assert.deepEqual(await axeBothSchemes(page), []);
  });
});

describe('a manual linked from Manuals', () => {
  it('a manual of the list is linked to a vehicle there', async () => {
    const form = new FormData();
    form.append('file', new Blob([makePdf([['Van. Tyre pressure is 3.5 bar.']])], { type: 'application/pdf' }), 'van-manual.pdf');
    const res = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
    assert.equal(res.status, 200, await res.text());
    await go('/manuals', 'Manuals');
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'van-manual.pdf' }) });
    await item.getByRole('button', { name: 'Link to vehicle: van-manual.pdf' }).click();
    const question = item.getByRole('region', { name: 'Which vehicle is van-manual.pdf for?' });
    await question.getByLabel('Vehicle', { exact: true }).selectOption({ label: 'Van' });
    await shootEverywhere(page, 'manuals-link-list');
    await question.getByRole('button', { name: 'Link to vehicle' }).click();
    await item.getByText('Manual of Van', { exact: true }).waitFor();
    const md5 = (await api('/api/documents')).find((d) => d.fileName === 'van-manual.pdf').fileMd5;
    const van = (await api('/api/vehicles')).find((v) => v.name === 'Van');
    assert.deepEqual(van.manual_md5s, [md5]);
    // Linked to every vehicle of the owner, a manual offers no more links.
    await item.getByRole('button', { name: 'Link to vehicle: van-manual.pdf' }).click();
    await item.getByRole('region', { name: 'Which vehicle is van-manual.pdf for?' }).getByLabel('Vehicle', { exact: true }).selectOption({ label: 'Golf' });
    await item.getByRole('button', { name: 'Link to vehicle' }).click();
    await item.getByText('Manual of Golf, Van', { exact: true }).waitFor();
    assert.equal(await item.getByRole('button', { name: 'Link to vehicle: van-manual.pdf' }).count(), 0);
    assert.deepEqual(await axeBothSchemes(page), []);
    assert.deepEqual(pageErrors, []);
  });
});
