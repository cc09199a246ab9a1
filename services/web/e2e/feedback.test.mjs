// End-to-end, what the owner is told and where, on a phone (390x844 at 3x):
// the confirmation of a save (online and queued offline) shows in view above
// the bottom bar, in a polite live region, says what was saved and undoes
// it; a form's error goes once it is fixed; the reminder form keeps a reading
// without its date by distance and asks for the date by months; an overdue
// reminder says "overdue" once; Home's "Add a vehicle" opens the form in one
// tap, and offline Home says how many records wait to sync. Light and dark, phone and desktop screenshots
// go to shotsDir.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, callApi, eventually, fillWhen, navLink, shootEverywhere, startStack } from './harness.mjs';

const ZONE = 'Europe/Berlin';
let s;
let ctx;
let page;
const pageErrors = [];

const api = (path, init) => callApi(s, path, init);
const field = (label) => page.getByLabel(label, { exact: true });

async function go(path, name) {
  await page.goto(s.base + path);
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

async function nav(name) {
  await (await navLink(page, name)).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

/** inView asserts that the locator's box lies inside the 390x844 viewport, above the bottom bar. */
async function inView(locator, what) {
  const box = await locator.boundingBox();
  assert.ok(box, `${what}: shown`);
  assert.ok(box.y >= 0 && box.y + box.height <= 844, `${what}: inside the viewport (y ${box.y}, height ${box.height})`);
  const bar = await page.getByRole('navigation', { name: 'Main' }).locator('.bar').boundingBox();
  assert.ok(box.y + box.height <= bar.y, `${what}: above the bottom bar (${box.y + box.height} > ${bar.y})`);
  return box;
}

/** outboxKeys (run in the page): the keys waiting in the outbox. */
const outboxKeys = () => new Promise((ok) => {
  const r = indexedDB.open('carhub-outbox');
  r.onsuccess = () => {
    const q = r.result.transaction('items').objectStore('items').getAllKeys();
    q.onsuccess = () => ok(q.result);
  };
});

/** ensureVehicle: the vehicle the tests use (made by the first test through Home, else here), so each test fails on its own. */
async function ensureVehicle() {
  if ((await api('/api/vehicles')).body.length > 0) return;
  const v = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Golf', fuel_type: 'gasoline' }) });
  assert.ok(v.status === 200 || v.status === 201, JSON.stringify(v.body));
}

before(async () => {
  s = await startStack({ locale: 'en-IE', timezoneId: ZONE });
  ctx = await s.newProfile({ deviceScaleFactor: 3 });
  page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => void d.accept());
  const prefs = await api('/api/preferences', {
    method: 'PUT',
    body: JSON.stringify({
      distance_unit: 'km', volume_unit: 'l', consumption_unit: 'l_per_100km', electric_consumption_unit: 'kwh_per_100km',
      gas_consumption_unit: 'kg_per_100km', locale: 'en-IE', currency: 'EUR', time_zone: ZONE,
    }),
  });
  assert.equal(prefs.status, 200, JSON.stringify(prefs.body));
});

after(async () => {
  await ctx?.close();
  await s?.stop();
});

describe('feedback where the eye is', () => {
  it("Home without a vehicle: one tap on \"Add a vehicle\" opens the vehicle's form", async () => {
    await go('/', 'Home');
    await page.getByRole('link', { name: 'Add a vehicle' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vehicles', exact: true }).waitFor();
    const form = page.getByRole('form', { name: 'New vehicle' });
    await form.waitFor({ timeout: 5_000 });
    await form.getByLabel('Name', { exact: true }).fill('Golf');
    await form.getByRole('button', { name: 'Save vehicle' }).click();
    await page.getByRole('heading', { level: 2, name: 'Golf' }).waitFor();
    assert.equal(new URL(page.url()).search, '', 'the address is the page\'s own again');
  });

  it('Add refuel: the confirmation is in view, announced, says what was saved, and Undo removes the refuel', async () => {
    await ensureVehicle();
    await go('/add', 'Add refuel');
    await fillWhen(field('Date and time'), '2026-12-06T08:00');
    await field('Odometer').fill('10500');
    await field('Quantity').fill('41.5');
    await field('Total amount').fill('71.50');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const status = page.getByRole('status').filter({ hasText: 'Refuel saved: 41.50 L, €71.50 — 6 Dec 2026.' });
    await status.waitFor();
    assert.equal(await status.getAttribute('aria-live'), 'polite');
    await inView(status, 'the confirmation');
    let stored = (await api('/api/refuels?vehicle_id=1')).body;
    assert.deepEqual(stored.map((r) => [r.odometer, r.liters, r.total_amount]), [[10500, 41.5, 71.5]]);
    // The form's Save button is never left under it: scrolled to the end, the button is clear of it.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const save = await page.getByRole('button', { name: 'Save', exact: true }).boundingBox();
    const toast = await status.boundingBox();
    assert.ok(save.y + save.height <= toast.y, `Save (${save.y}..${save.y + save.height}) is above the confirmation (${toast.y})`);
    await shootEverywhere(page, 'add-refuel-saved', { fullPage: false });
    assert.deepEqual(await axeBothSchemes(page), []);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel removed: 41.50 L, €71.50 — 6 Dec 2026.' }).waitFor();
    stored = (await api('/api/refuels?vehicle_id=1')).body;
    assert.deepEqual(stored, []);
    await page.getByRole('button', { name: 'Dismiss', exact: true }).click();
    assert.equal(await page.getByRole('status').filter({ hasText: 'Refuel removed' }).count(), 0);
  });

  it('Add refuel offline: the queued confirmation is in view, and Undo takes it out of the outbox', async (t) => {
    await ensureVehicle();
    t.after(() => ctx.setOffline(false));
    await go('/add', 'Add refuel');
    await ctx.setOffline(true);
    await fillWhen(field('Date and time'), '2026-12-06T09:00');
    await field('Odometer').fill('10600');
    await field('Quantity').fill('30');
    await field('Total amount').fill('51.00');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const status = page.getByRole('status').filter({ hasText: 'Refuel queued: 30.00 L, €51.00 — 6 Dec 2026.' });
    await status.waitFor();
    await inView(status, 'the queued confirmation');
    assert.equal((await page.evaluate(outboxKeys)).length, 1);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel removed: 30.00 L, €51.00' }).waitFor();
    assert.deepEqual(await page.evaluate(outboxKeys), []);
    await ctx.setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await page.waitForTimeout(1_000);
    assert.deepEqual((await api('/api/refuels?vehicle_id=1')).body, [], 'nothing was sent');
  });

  it("a form's error goes once its field is fixed; the others stay until theirs are", async () => {
    await ensureVehicle();
    await go('/add', 'Add refuel');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const summary = page.getByRole('alert').filter({ hasText: 'There is a problem' });
    await summary.getByRole('link', { name: /^Odometer:/ }).waitFor();
    await summary.getByRole('link', { name: /^Total amount:/ }).waitFor();
    assert.equal(await field('Odometer').getAttribute('aria-invalid'), 'true');
    await field('Odometer').fill('10700');
    await summary.getByRole('link', { name: /^Odometer:/ }).waitFor({ state: 'detached' });
    assert.equal(await field('Odometer').getAttribute('aria-invalid'), null);
    assert.equal(await page.locator('#odometer-error').count(), 0);
    assert.equal(await summary.getByRole('link', { name: /^Total amount:/ }).count(), 1, 'the amount is still missing');
  });

  it('Costs: an expense saved shows in view with Undo, which deletes it', async () => {
    await ensureVehicle();
    await go('/costs', 'Costs');
    await page.getByRole('button', { name: 'Add expense' }).click();
    const form = page.getByRole('form', { name: 'New expense' });
    await form.getByLabel('Title', { exact: true }).fill('Oil change');
    await form.getByLabel('Amount', { exact: true }).fill('89.90');
    await fillWhen(form.getByLabel('Date and time', { exact: true }), '2026-12-05T10:00');
    await form.getByRole('button', { name: 'Save expense' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Expense saved: Oil change, €89.90 — 5 Dec 2026.' });
    await status.waitFor();
    await inView(status, 'the expense confirmation');
    assert.equal((await api('/api/expenses?vehicle_id=1')).body.length, 1);
    await shootEverywhere(page, 'costs-expense-saved', { fullPage: false });
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Expense removed: Oil change' }).waitFor();
    assert.deepEqual((await api('/api/expenses?vehicle_id=1')).body, []);
  });

  it('an edited expense, reminder and vehicle: the confirmation says what was saved, and Undo puts each back exactly', async () => {
    await ensureVehicle();
    // An expense: every field the form sends changed, its reading removed; Undo restores each as stored.
    const made = await api('/api/expenses', {
      method: 'POST', body: JSON.stringify({ vehicle_id: 1, time: '2026-11-30T09:15:00Z', category: 'repair', title: 'Brake pads', amount: 129.9, odometer: 10500, vendor: 'ATU', notes: 'front' }),
    });
    assert.ok(made.status === 200 || made.status === 201, JSON.stringify(made.body));
    const id = made.body.id;
    const stored = async () => (await api(`/api/expenses/${id}`)).body;
    const before = await stored();
    await go('/costs', 'Costs');
    await page.locator('li.expense').filter({ hasText: 'Brake pads' }).getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit expense' });
    await form.getByLabel('Title', { exact: true }).fill('Brake discs');
    await form.getByLabel('Amount', { exact: true }).fill('249');
    await form.getByLabel('Odometer (optional)', { exact: true }).fill('');
    await form.getByRole('button', { name: 'Save changes' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Expense updated: Brake discs, €249.00 — 30 Nov 2026.' });
    await status.waitFor();
    await inView(status, 'the edit\'s confirmation');
    assert.deepEqual(await stored().then((e) => [e.title, e.amount, e.odometer]), ['Brake discs', 249, null]);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Change undone: the expense is as it was.' }).waitFor();
    const after = await stored();
    for (const k of ['time', 'category', 'title', 'amount', 'odometer', 'vendor', 'notes']) assert.deepEqual(after[k], before[k], k);
    await page.locator('li.expense').filter({ hasText: 'Brake pads' }).waitFor();

    // A reminder: its title and interval changed and undone.
    const rem = await api('/api/reminders', {
      method: 'POST', body: JSON.stringify({ vehicle_id: 1, title: 'Cabin filter', category: 'service', every_km: 20000, every_months: 24, last_done: { time: '2026-01-10T10:00:00Z', odometer: 5000 } }),
    });
    assert.ok(rem.status === 200 || rem.status === 201, JSON.stringify(rem.body));
    await go('/costs', 'Costs');
    await page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Cabin filter' }) }).getByRole('button', { name: 'Edit', exact: true }).click();
    const remForm = page.getByRole('form', { name: 'Edit reminder' });
    await remForm.getByLabel('Title', { exact: true }).fill('Pollen filter');
    await remForm.getByLabel('Every (distance)', { exact: true }).fill('30000');
    await remForm.getByRole('button', { name: 'Save reminder' }).click();
    await page.getByRole('status').filter({ hasText: 'Reminder updated: Pollen filter.' }).waitFor();
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Change undone: the reminder is as it was.' }).waitFor();
    const remAfter = (await api('/api/reminders?vehicle_id=1')).body.find((r) => r.id === rem.body.id);
    assert.deepEqual([remAfter.title, remAfter.every_km, remAfter.every_months, remAfter.last_done], ['Cabin filter', 20000, 24, rem.body.last_done]);

    // A vehicle: its name and plate changed, undone; its reading changed offers Edit, which opens the form again.
    const vehicle = (await api('/api/vehicles/1')).body;
    await go('/vehicles', 'Vehicles');
    const card = () => page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 2 }) }).first();
    await card().getByRole('button', { name: 'Edit', exact: true }).click();
    let vform = page.getByRole('form', { name: `Edit ${vehicle.name}` });
    await vform.getByLabel('Name', { exact: true }).fill('Golf GTD');
    await vform.getByLabel('Plate number', { exact: true }).fill('B-CH 77');
    await vform.getByRole('button', { name: 'Save vehicle' }).click();
    await page.getByRole('status').filter({ hasText: 'Golf GTD updated.' }).waitFor();
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: `Change undone: ${vehicle.name} is as it was.` }).waitFor();
    const vAfter = (await api('/api/vehicles/1')).body;
    assert.deepEqual([vAfter.name, vAfter.plate_number, vAfter.tank_capacity, vAfter.fuel_type], [vehicle.name, vehicle.plate_number, vehicle.tank_capacity, vehicle.fuel_type]);
    await card().getByRole('button', { name: 'Edit', exact: true }).click();
    vform = page.getByRole('form', { name: `Edit ${vehicle.name}` });
    await vform.getByLabel('Current odometer', { exact: true }).fill(String(vehicle.current_odometer + 1000));
    await vform.getByRole('button', { name: 'Save vehicle' }).click();
    await page.getByRole('status').filter({ hasText: `${vehicle.name} updated.` }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Undo', exact: true }).count(), 0, 'no Undo that could not restore the reading');
    await page.locator('.toast').getByRole('button', { name: 'Edit', exact: true }).click();
    await vform.waitFor();
    await eventually(async () => assert.equal(await page.evaluate(() => document.activeElement?.id), 'v1-name'));
    await shootEverywhere(page, 'vehicle-edit-again', { fullPage: false });
    assert.deepEqual(pageErrors, []);
    // What the later tests count is as it was.
    assert.equal((await api(`/api/expenses/${id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await api(`/api/reminders/${rem.body.id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await api('/api/vehicles/1', { method: 'PUT', body: JSON.stringify({ current_odometer: vehicle.current_odometer }) })).status, 200);
  });

  it('a new reminder and a new vehicle: the confirmation names them, and Undo deletes each', async () => {
    await ensureVehicle();
    await go('/costs', 'Costs');
    await page.getByRole('button', { name: 'Add reminder' }).click();
    const form = page.getByRole('form', { name: 'New reminder' });
    await form.getByLabel('Title', { exact: true }).fill('Wiper blades');
    await form.getByLabel('Every (months)', { exact: true }).fill('12');
    await form.getByRole('button', { name: 'Save reminder' }).click();
    await page.getByRole('status').filter({ hasText: 'Reminder saved: Wiper blades.' }).waitFor();
    assert.ok((await api('/api/reminders?vehicle_id=1')).body.some((r) => r.title === 'Wiper blades'));
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Reminder removed: Wiper blades.' }).waitFor();
    assert.ok(!(await api('/api/reminders?vehicle_id=1')).body.some((r) => r.title === 'Wiper blades'));

    await go('/vehicles', 'Vehicles');
    await page.getByRole('button', { name: 'Add vehicle' }).click();
    const vform = page.getByRole('form', { name: 'New vehicle' });
    await vform.getByLabel('Name', { exact: true }).fill('Spare car');
    await vform.getByRole('button', { name: 'Save vehicle' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Spare car added.' });
    await status.waitFor();
    await inView(status, 'the new vehicle\'s confirmation');
    assert.ok((await api('/api/vehicles')).body.some((v) => v.name === 'Spare car'));
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Spare car removed.' }).waitFor();
    assert.ok(!(await api('/api/vehicles')).body.some((v) => v.name === 'Spare car'));
    await page.getByRole('heading', { level: 2, name: 'Spare car' }).waitFor({ state: 'detached' });
  });

  it('the reminder form says what "last done" needs: a reading alone is kept by distance, and asked for its date by months', async () => {
    await ensureVehicle();
    await go('/costs', 'Costs');
    await page.getByRole('button', { name: 'Add reminder' }).click();
    let form = page.getByRole('form', { name: 'New reminder' });
    // Both say "optional", and by distance a reading alone is saved as it is: "oil changed at 9 000 km".
    await form.getByLabel('Last done on (optional)', { exact: true }).waitFor();
    await form.getByLabel('Title', { exact: true }).fill('Oil');
    await form.getByLabel('Every (distance)', { exact: true }).fill('15000');
    await form.getByLabel('Odometer when last done (optional)', { exact: true }).fill('9000');
    await form.getByRole('button', { name: 'Save reminder' }).click();
    await page.getByRole('status').filter({ hasText: 'Reminder saved: Oil.' }).waitFor();
    const oil = (await api('/api/reminders?vehicle_id=1')).body.find((r) => r.title === 'Oil');
    assert.ok(oil, 'the reminder with only its reading is stored');
    assert.deepEqual(oil.last_done, { time: null, odometer: 9000, expense_id: null });
    assert.equal(oil.due_odometer, 24000);
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Oil', exact: true }) });
    await item.getByText('Last done at 9,000 km', { exact: true }).waitFor();
    await shootEverywhere(page, 'costs-reminder-reading-only', { fullPage: false });

    // Months count from a day: there the reading alone is asked for its date, and the error goes once it is given.
    await page.getByRole('button', { name: 'Add reminder' }).click();
    form = page.getByRole('form', { name: 'New reminder' });
    await form.getByLabel('Title', { exact: true }).fill('Brake fluid');
    await form.getByLabel('Every (months)', { exact: true }).fill('24');
    await form.getByLabel('Odometer when last done (optional)', { exact: true }).fill('9000');
    await form.getByRole('button', { name: 'Save reminder' }).click();
    const summary = form.getByRole('alert');
    await summary.getByRole('link', { name: 'Last done on: enter the date of that reading, as a reminder by months counts from it; or leave both empty.' }).waitFor();
    await shootEverywhere(page, 'costs-reminder-months-asks-date');
    await form.getByLabel('Last done on (optional)', { exact: true }).fill('2026-06-01');
    await summary.waitFor({ state: 'detached' });
    await form.getByRole('button', { name: 'Save reminder' }).click();
    await form.waitFor({ state: 'detached' });
    const fluid = (await api('/api/reminders?vehicle_id=1')).body.find((r) => r.title === 'Brake fluid');
    assert.ok(fluid, 'the reminder with its date is stored');
    assert.equal(fluid.last_done.odometer, 9000);
    assert.match(fluid.last_done.time, /^2026-06-01T/);
  });

  it('an overdue reminder says "overdue" once, on Costs and on Home', async () => {
    await ensureVehicle();
    // Every 1000 km from 9000: due at 10 000, the odometer is at 10 500 (the vehicle's, set below).
    const made = await api('/api/reminders', {
      method: 'POST', body: JSON.stringify({ vehicle_id: 1, title: 'Inspection', category: 'inspection', every_km: 1000, last_done: { time: '2026-06-01T10:00:00Z', odometer: 9000 } }),
    });
    assert.ok(made.status === 200 || made.status === 201, JSON.stringify(made.body));
    assert.equal((await api('/api/vehicles/1', { method: 'PUT', body: JSON.stringify({ current_odometer: 10760 }) })).status, 200);
    await go('/costs', 'Costs');
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Inspection' }) });
    const line = item.locator('.due-phrase');
    await line.waitFor();
    assert.equal((await line.innerText()).trim(), 'Overdue by 760 km');
    // The service estimates the day the due reading is reached; for one already passed that is
    // today, and "around today" beside "overdue by 760 km" is not said.
    const listed = (await api('/api/reminders?vehicle_id=1')).body.find((r) => r.title === 'Inspection');
    assert.ok(listed.estimated_due_date, JSON.stringify(listed));
    assert.doesNotMatch(await item.innerText(), /At the distance driven lately/i);
    await go('/', 'Home');
    const due = page.getByRole('region', { name: 'Reminders' }).getByRole('listitem').first();
    await due.waitFor();
    assert.equal((await due.innerText()).trim(), 'Inspection overdue by 760 km');
    assert.doesNotMatch(await page.getByRole('main').innerText(), /overdue\s+\S*\s*overdue/i);
  });

  it('Home offline says how many records wait to sync', async (t) => {
    await ensureVehicle();
    t.after(() => ctx.setOffline(false));
    await api('/api/refuels', { method: 'POST', body: JSON.stringify({ vehicle_id: 1, refuel_time: '2026-12-01T08:00:00Z', odometer: 10800, fuel_type: 'gasoline', liters: 40, total_amount: 70, is_full: true }) });
    await go('/', 'Home');
    await page.getByRole('heading', { level: 2, name: 'Last refuel' }).waitFor();
    await ctx.setOffline(true);
    await nav('Add refuel');
    for (const [odometer, when] of [['11000', '2026-12-06T10:00'], ['11300', '2026-12-06T11:00']]) {
      await fillWhen(field('Date and time'), when);
      await field('Odometer').fill(odometer);
      await field('Quantity').fill('20');
      await field('Total amount').fill('35');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Refuel queued: 20.00 L' }).waitFor();
    }
    await nav('Home');
    const notice = page.getByRole('status').filter({ hasText: /^Offline — 2 records wait to sync; the figures may be out of date\. Figures as of / });
    await notice.waitFor();
    assert.equal(await page.getByText('Offline: showing the data as of').count(), 0, 'one notice, not two');
    await inView(notice, 'the waiting count');
    await shootEverywhere(page, 'home-offline-waiting', { fullPage: false });
    await ctx.setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await notice.waitFor({ state: 'detached', timeout: 30_000 });
    await eventually(async () => assert.equal((await api('/api/refuels?vehicle_id=1')).body.length, 3));
    // The consumption trend is as wide as its card (it took 160 of its 340 px).
    await page.reload();
    const trend = page.getByRole('region', { name: /^Consumption/ });
    const line = trend.locator('svg.sparkline');
    await line.waitFor();
    const [svg, card] = [await line.boundingBox(), await trend.boundingBox()];
    assert.ok(svg.width >= card.width - 2 * 16, `the trend is ${svg.width} px wide in a card of ${card.width}`);
    await shootEverywhere(page, 'home-trend');
  });
});

describe('figures an owner can read', () => {
  it('Statistics: the fuel cost per km is labelled so, the total per km adds the other costs to it (equal without any), one price per unit', async () => {
    // The refuels: full at 10 800 km (70,00 €), full at 11 000 and 11 300 (35,00 € each): 70,00 € over 500 km.
    const st = (await api('/api/vehicles/1/statistics')).body;
    assert.equal(Number(st.expenses_amount), 0);
    assert.equal(Number(st.by_energy[0].weighted_cost_per_km), 0.14);
    // The service's total per km counts the first fill's money too: 140,00 € over 500 km.
    assert.equal(Number(st.total_cost_per_km), 0.28);
    await go('/statistics', 'Statistics');
    const card = (label) => page.getByRole('group', { name: label, exact: true });
    await card('Fuel cost per km').locator('.card-value').filter({ hasText: '€0.1400' }).waitFor();
    assert.equal(await card('Total cost per km').locator('.card-value').textContent(), '€0.1400');
    assert.equal(await card('Total cost per km').locator('.card-note').textContent(), 'Fuel €0.1400 plus other costs €0.0000 (their sum over the 500 km driven)');
    assert.equal(await card('Fuel cost per km').locator('.card-note').textContent(), 'Fuel only: the money of the fills from full to full, over 500 km');
    // 140,00 € over 80 L; the mean of the fills' prices is not a second price beside it.
    assert.equal(await card('Price paid per unit').locator('.card-value').textContent(), '€1.750/L');
    assert.equal(await card('Mean of fill prices').count(), 0);
    // A chart's colours are the page's when drawn: switched to dark, it is drawn again (its axis labels were dark on dark).
    const canvas = await page.getByRole('figure', { name: 'Monthly cost' }).locator('canvas').elementHandle();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction((c) => !c.isConnected, canvas);
    await page.getByRole('figure', { name: 'Monthly cost' }).locator('canvas').waitFor();
    await page.emulateMedia({ colorScheme: 'light' });
    await shootEverywhere(page, 'statistics-cost-per-km');
    assert.deepEqual(pageErrors, []);
  });
});
