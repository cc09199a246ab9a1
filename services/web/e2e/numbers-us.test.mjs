// End-to-end, numbers as the owner types them (proto-docs/web-decisions.md,
// "Numbers as the owner types them"), accounts off, a browser in en-US on a
// 390x844 phone: the comma only groups thousands, so a typed "16,480" is
// 16480 km, a vehicle's "12,500" is 12500 and a reminder's "15,000" is 15000;
// in a decimal field "1,799" is refused, as it could be 1799 or a pump's
// 1.799, with a message offering both, and "12,5" (not how en-US writes a
// decimal) with an example of how to write one; nothing is stored. History's
// edit form shows 71.50 with the currency beside it and saving it unchanged
// stores the very same values. The confirmation of a save is in view. What is
// asserted is the numbers, read back through the API. No date or time field
// is filled: the forms keep their default, now.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, callApi, eventually, shootEverywhere, startStack } from './harness.mjs';

const ZONE = 'America/New_York';
let s;
let page;
let vehicleId;
const pageErrors = [];
const dialogs = [];

const api = (path, init) => callApi(s, path, init);

async function go(path) {
  await page.goto(s.base + path);
  await page.locator('main h1').waitFor();
}

/** refuels: the vehicle's refuels from the API, newest first. */
const refuels = async () => (await api(`/api/refuels?vehicle_id=${vehicleId}`)).body;

/** fillRefuel fills Add refuel's numbers (the date keeps its default, now) and saves. */
async function fillRefuel(odometer, quantity, total) {
  await go('/add');
  await page.locator('#odometer').fill(odometer);
  await page.locator('#quantity').fill(quantity);
  await page.locator('#total').fill(total);
  await page.locator('button[type=submit][value=save]').click();
}

before(async () => {
  s = await startStack({ locale: 'en-US', timezoneId: ZONE });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
  // An en-US browser starts in miles and US gallons; kilometres and litres
  // here keep each stored figure the number typed, so what is read back is
  // the reading of the separators alone, not a conversion. The number format
  // stays en-US, the currency the region's.
  const prefs = await api('/api/preferences', {
    method: 'PUT',
    body: JSON.stringify({
      distance_unit: 'km', volume_unit: 'l', consumption_unit: 'l_per_100km', electric_consumption_unit: 'kwh_per_100km',
      gas_consumption_unit: 'kg_per_100km', locale: 'en-US', currency: 'USD', time_zone: ZONE,
    }),
  });
  assert.equal(prefs.status, 200, JSON.stringify(prefs.body));
  const v = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Civic', fuel_type: 'gasoline' }) });
  assert.ok(v.status === 200 || v.status === 201, JSON.stringify(v.body));
  vehicleId = v.body.id;
  await go('/');
});

after(async () => {
  await s?.stop();
});

describe('numbers typed in en-US', () => {
  // First: a refuel's higher reading would be what the vehicle answers afterwards.
  it("a vehicle's odometer of 12,500 is stored as 12500 km, and shown back as 12,500 km", async () => {
    await go('/vehicles');
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Civic' }) });
    await item.getByRole('button', { name: 'Edit', exact: true }).click();
    const odo = page.locator(`#v${vehicleId}-odo`);
    await odo.fill('12,500');
    await odo.locator('xpath=ancestor::form').locator('button[type=submit]').click();
    await eventually(async () => assert.equal((await api(`/api/vehicles/${vehicleId}`)).body.current_odometer, 12500));
    await item.getByText('12,500 km', { exact: true }).waitFor();
  });

  it('Add refuel stores 16,480 as 16480, 41.5 and 71.50 as 41.5 and 71.5, and says so in view on the phone', async () => {
    await fillRefuel('16,480', '41.5', '71.50');
    await eventually(async () => assert.deepEqual((await refuels()).map((r) => [r.odometer, r.liters, r.total_amount]), [[16480, 41.5, 71.5]]));
    assert.deepEqual(dialogs, [], 'no question about a lower reading');
    const [stored] = await refuels();
    // The date the form kept (now), as the page writes it in the browser's zone.
    const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: ZONE }).format(new Date(stored.refuel_time));
    const status = page.locator('.toast.shown').getByRole('status');
    await status.filter({ hasText: 'Refuel saved' }).waitFor();
    assert.equal(await status.textContent(), `Refuel saved: 41.50\u00a0L, $71.50 — ${day}.`);
    const box = await page.locator('.toast.shown').boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= 844, `the confirmation is inside the 390x844 viewport (y ${box.y}, height ${box.height})`);
    const bar = await page.getByRole('navigation', { name: 'Main' }).locator('.bar').boundingBox();
    assert.ok(box.y + box.height <= bar.y, `the confirmation is above the bottom bar (${box.y + box.height} > ${bar.y})`);
  });

  it('a price-like "1,799" in a decimal field is refused, and the message offers 1799 and 1.799; nothing stored', async () => {
    for (const [id, quantity, total] of [['quantity', '1,799', '71.50'], ['total', '41.5', '1,799']]) {
      await fillRefuel('16,900', quantity, total);
      const error = page.locator(`#${id}-error`);
      await error.waitFor();
      assert.match(await error.textContent(), /written like 1799 or 1\.799 \(“1,799” could mean either\)\.$/, id);
      assert.equal(await page.locator(`#${id}`).getAttribute('aria-invalid'), 'true', id);
      assert.equal((await refuels()).length, 1, `${id}: nothing stored as a guess`);
    }
  });

  it('"12,5" in a decimal field is not how en-US writes a decimal: refused with an example, nothing stored', async () => {
    await fillRefuel('16,900', '12,5', '21.50');
    const error = page.locator('#quantity-error');
    await error.waitFor();
    const text = await error.textContent();
    assert.match(text, /written like 1,234\.56\.$/);
    assert.doesNotMatch(text, /could mean either/, 'one way to read it would be a guess, two would be wrong');
    assert.equal(await page.locator('#quantity').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#total').getAttribute('aria-invalid'), null, 'the total is written right');
    assert.deepEqual(await axeBothSchemes(page), []);
    await shootEverywhere(page, 'numbers-refused-us');
    assert.equal((await refuels()).length, 1);
  });

  it("History's edit form shows 71.50 with $ beside it, and saving it unchanged stores the very same values", async () => {
    const [first] = await refuels();
    await go('/history');
    const item = page.getByRole('list').locator('li.record').filter({ hasText: '71.50' });
    await item.getByRole('button', { name: 'Edit', exact: true }).click();
    const p = `edit-${first.id}`;
    assert.equal(await page.locator(`#${p}-t`).inputValue(), '71.50');
    assert.equal(await page.locator(`#${p}-t-unit`).textContent(), '$');
    assert.equal(await page.locator(`#${p}-odo`).inputValue(), '16480');
    assert.equal(await page.locator(`#${p}-q`).inputValue(), '41.5');
    assert.deepEqual(await axeBothSchemes(page), []);
    await shootEverywhere(page, 'numbers-history-edit-us', { fullPage: false });
    await page.locator(`#${p}-t`).locator('xpath=ancestor::form').locator('button[type=submit]').click();
    await page.locator(`#${p}-t`).waitFor({ state: 'detached' });
    const again = (await api(`/api/refuels/${first.id}`)).body;
    for (const k of ['odometer', 'liters', 'total_amount', 'price_per_liter', 'refuel_time', 'currency']) assert.equal(again[k], first[k], k);
  });

  it('a reminder every 15,000 km is stored every 15000 km, from a reading of 16,000', async () => {
    await go('/costs');
    await page.getByRole('button', { name: 'Add reminder', exact: true }).click();
    await page.locator('#rem-new-title').fill('Inspection');
    await page.locator('#rem-new-km').fill('15,000');
    await page.locator('#rem-new-last-odo').fill('16,000');
    await page.locator('#rem-new-title').locator('xpath=ancestor::form').locator('button[type=submit]').click();
    await page.locator('#rem-new-title').waitFor({ state: 'detached' });
    const [r] = (await api(`/api/reminders?vehicle_id=${vehicleId}`)).body;
    assert.deepEqual([r.title, r.every_km, r.last_done?.odometer], ['Inspection', 15000, 16000]);
    assert.deepEqual(pageErrors, []);
  });

  it('dates and times are written and read as en-US writes them: 12/06/2026 and 5:10 PM; "5:10" alone is refused, not guessed', async () => {
    await go('/add');
    assert.match(await page.locator('#when').inputValue(), /^\d{2}\/\d{2}\/\d{4}$/);
    assert.match(await page.locator('#when-time').inputValue(), /^\d{1,2}:\d{2} [AP]M$/);
    assert.equal(await page.locator('#when').getAttribute('placeholder'), 'MM/DD/YYYY');
    const count = (await refuels()).length;
    await page.locator('#when').fill('12/22/2026');
    await page.locator('#when-time').fill('5:10');
    await page.locator('#odometer').fill('17,000');
    await page.locator('#quantity').fill('30');
    await page.locator('#total').fill('50');
    await page.locator('button[type=submit][value=save]').click();
    const error = page.locator('#when-error');
    await error.waitFor();
    assert.match(await error.textContent(), /12\/06\/2026 .*5:10 PM/);
    // The time is what is wrong, and only it is marked.
    assert.equal(await page.locator('#when-time').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#when').getAttribute('aria-invalid'), null);
    assert.equal((await refuels()).length, count, 'nothing stored as a guess');
    // "22/12/2026" is not how en-US writes the 22nd of December.
    await page.locator('#when').fill('22/12/2026');
    await page.locator('#when-time').fill('5:10 PM');
    await page.locator('button[type=submit][value=save]').click();
    await eventually(async () => assert.equal(await page.locator('#when').getAttribute('aria-invalid'), 'true'));
    assert.equal((await refuels()).length, count, 'nothing stored in another order');
    await page.locator('#when').fill('12/22/2026');
    await page.locator('button[type=submit][value=save]').click();
    // 5:10 PM in New York on 22 December (EST, UTC-5).
    await eventually(async () => assert.equal((await refuels()).find((r) => r.odometer === 17000)?.refuel_time, '2026-12-22T22:10:00Z'));
  });
});
