// End-to-end, numbers as the owner types them (proto-docs/web-decisions.md,
// "Numbers as the owner types them"), accounts off, a browser in de-DE: the
// app writes thousands with a dot ("15.760 km"), so a typed "16.480" is
// 16480, never 16,48, and a vehicle's "12.500" is 12500; a number that is not
// how de-DE writes one ("1.5") is refused with an example of how to write it,
// nothing stored; the edit forms show amounts as de-DE writes them ("71,50",
// with the currency beside) and saving them unchanged stores exactly the same
// values; a reminder's interval and reading read the same way. Fields are found by their ids and the page's words by either
// language the app may speak to a German browser: what is asserted is the
// numbers, read back through the API.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, callApi, eventually, shootEverywhere, startStack } from './harness.mjs';

let s;
let page;
let vehicleId;
const pageErrors = [];
const dialogs = [];

const api = (path, init) => callApi(s, path, init);
/** word: a name in German or English, exactly. */
const word = (...names) => new RegExp(`^(${names.join('|')})$`);
const EDIT = word('Bearbeiten', 'Edit');

async function go(path) {
  await page.goto(s.base + path);
  await page.locator('main h1').waitFor();
}

/** refuels: the vehicle's refuels from the API, newest first. */
const refuels = async () => (await api(`/api/refuels?vehicle_id=${vehicleId}`)).body;

/** typeWhen types a local "YYYY-MM-DDTHH:MM" into the date field id and its time, as de-DE writes them. */
async function typeWhen(id, local) {
  const [, y, m, d, time] = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2})$/.exec(local);
  await page.locator(`#${id}`).fill(`${d}.${m}.${y}`);
  await page.locator(`#${id}-time`).fill(time);
}

async function addRefuel(when, odometer, quantity, total) {
  await go('/add');
  await typeWhen('when', when);
  await page.locator('#odometer').fill(odometer);
  await page.locator('#quantity').fill(quantity);
  await page.locator('#total').fill(total);
  await page.locator('button[type=submit][value=save]').click();
}

before(async () => {
  s = await startStack({ locale: 'de-DE', timezoneId: 'Europe/Berlin' });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
  const v = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Golf', fuel_type: 'diesel' }) });
  assert.ok(v.status === 200 || v.status === 201, JSON.stringify(v.body));
  vehicleId = v.body.id;
  await go('/');
});

after(async () => {
  await s?.stop();
});

describe('numbers typed in de-DE', () => {
  it("a vehicle's odometer of 12.500 is stored as 12500 km, and shown back as 12.500 km", async () => {
    await go('/vehicles');
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Golf' }) });
    await item.getByRole('button', { name: EDIT }).click();
    await page.locator(`#v${vehicleId}-odo`).fill('12.500');
    await page.locator(`#v${vehicleId}-odo`).locator('xpath=ancestor::form').locator('button[type=submit]').click();
    await eventually(async () => assert.equal((await api(`/api/vehicles/${vehicleId}`)).body.current_odometer, 12500));
    await item.getByText('12.500 km', { exact: true }).waitFor();
  });

  it('Add refuel reads 15.760 and then 16.480 as readings, not 15,76 and 16,48: no "lower than" question, 16480 stored', async () => {
    await addRefuel('2026-03-01T08:00', '15.760', '40,5', '71,50');
    await eventually(async () => assert.deepEqual((await refuels()).map((r) => [r.odometer, r.liters, r.total_amount]), [[15760, 40.5, 71.5]]));
    await go('/add');
    // The last reading as a placeholder to type over, in the form the field reads back.
    await page.waitForFunction(() => document.querySelector('#odometer')?.getAttribute('placeholder') === '15760');
    await addRefuel('2026-03-10T08:00', '16.480', '38,2', '66,10');
    await eventually(async () => assert.deepEqual((await refuels()).map((r) => [r.odometer, r.liters, r.total_amount]), [[16480, 38.2, 66.1], [15760, 40.5, 71.5]]));
    assert.deepEqual(dialogs, [], 'no question about a lower reading');
    // The confirmation on a 390 px phone: its German text takes the status's width, its Undo the
    // line below (beside the Undo it stood in a column 170 px wide, a queued one 14 lines tall), and
    // the quantity keeps its unit on its line.
    const toast = page.locator('.toast.shown');
    await toast.filter({ hasText: 'Tankvorgang gespeichert' }).waitFor();
    assert.match(await toast.locator('.toast-text').textContent(), /^Tankvorgang gespeichert: 38,20\u00a0l, 66,10\s€ — 10\.03\.2026\.$/);
    const [box, text] = [await toast.boundingBox(), await toast.locator('.toast-text').boundingBox()];
    assert.ok(text.width >= 0.8 * box.width, `text ${text.width} of ${box.width} px`);
  });

  it('a number that is not how de-DE writes one is refused with an example, nothing stored', async () => {
    await go('/add');
    await typeWhen('when', '2026-03-20T08:00');
    await page.locator('#odometer').fill('17.10'); // a thousands dot out of place: 1710 or 17,10?
    await page.locator('#quantity').fill('1.5'); // not German: 1,5 or 15?
    await page.locator('#total').fill('3,00');
    await page.locator('button[type=submit][value=save]').click();
    const odoError = page.locator('#odometer-error');
    await odoError.waitFor();
    // The example is written as de-DE writes numbers, whatever the words' language.
    assert.match(await odoError.textContent(), /12\.500/);
    assert.match(await page.locator('#quantity-error').textContent(), /1\.234,56/);
    assert.equal(await page.locator('#odometer').getAttribute('aria-invalid'), 'true');
    await shootEverywhere(page, 'numbers-refused-de');
    assert.equal((await refuels()).length, 2);
  });

  it('a price typed "1.799" in de-DE is refused, and the message offers both numbers it could mean', async () => {
    await go('/add');
    await typeWhen('when', '2026-03-21T08:00');
    await page.locator('#odometer').fill('17.100');
    await page.locator('#quantity').fill('40');
    await page.locator('#total').fill('');
    await page.locator('#price').fill('1.799'); // 1799 as de-DE reads it, or 1,799 from a pump's display
    await page.locator('button[type=submit][value=save]').click();
    const totalError = page.locator('#total-error');
    await totalError.waitFor();
    assert.match(await totalError.textContent(), /1799 .*1,799 .*1\.799/);
    assert.equal((await refuels()).length, 2, 'nothing stored as a guess');
  });

  it("History's edit form shows 71,50 with € beside it, and saving it unchanged stores the very same values", async () => {
    const [, first] = await refuels();
    await go('/history');
    const item = page.getByRole('list').locator('li.record').filter({ hasText: '71,50' });
    await item.getByRole('button', { name: EDIT }).click();
    const p = `edit-${first.id}`;
    assert.equal(await page.locator(`#${p}-t`).inputValue(), '71,50');
    assert.equal(await page.locator(`#${p}-odo`).inputValue(), '15760');
    assert.equal(await page.locator(`#${p}-q`).inputValue(), '40,5');
    assert.equal(await page.locator(`#${p}-t-unit`).textContent(), '€');
    assert.deepEqual(await axeBothSchemes(page), []);
    await shootEverywhere(page, 'numbers-history-edit-de', { fullPage: false });
    await page.locator(`#${p}-t`).locator('xpath=ancestor::form').locator('button[type=submit]').click();
    await page.locator(`#${p}-t`).waitFor({ state: 'detached' });
    const again = (await api(`/api/refuels/${first.id}`)).body;
    for (const k of ['odometer', 'liters', 'total_amount', 'price_per_liter', 'refuel_time']) assert.equal(again[k], first[k], k);
  });

  it("Costs' edit form shows 89,90 € and 16000, and saving unchanged keeps 89.9 and 16000", async () => {
    const e = await api('/api/expenses', { method: 'POST', body: JSON.stringify({ vehicle_id: vehicleId, time: '2026-03-12T09:00:00Z', category: 'service', title: 'Ölwechsel', amount: 89.9, odometer: 16000 }) });
    assert.ok(e.status === 200 || e.status === 201, JSON.stringify(e.body));
    await go('/costs');
    const item = page.locator('li.expense').filter({ hasText: 'Ölwechsel' });
    await item.getByRole('button', { name: EDIT }).click();
    const p = `exp-edit-${e.body.id}`;
    assert.equal(await page.locator(`#${p}-amount`).inputValue(), '89,90');
    assert.equal(await page.locator(`#${p}-amount-unit`).textContent(), '€');
    assert.equal(await page.locator(`#${p}-odo`).inputValue(), '16000');
    await page.locator(`#${p}-amount`).locator('xpath=ancestor::form').locator('button[type=submit]').click();
    await page.locator(`#${p}-amount`).waitFor({ state: 'detached' });
    const again = (await api(`/api/expenses/${e.body.id}`)).body;
    assert.deepEqual([again.amount, again.odometer], [89.9, 16000]);
  });

  it('a reminder every 15.000 km is every 15000 km, from a reading of 16.000; a fraction of months is refused', async () => {
    await go('/costs');
    await page.getByRole('button', { name: word('Erinnerung hinzufügen', 'Add reminder') }).click();
    await page.locator('#rem-new-title').fill('Inspektion');
    await page.locator('#rem-new-km').fill('15.000');
    await page.locator('#rem-new-months').fill('1,5');
    await page.locator('#rem-new-last').fill('15.3.2026');
    await page.locator('#rem-new-last-odo').fill('16.000');
    const save = page.locator('#rem-new-title').locator('xpath=ancestor::form').locator('button[type=submit]');
    await save.click();
    await page.locator('#rem-new-months-error').waitFor();
    await page.locator('#rem-new-months').fill('12');
    await save.click();
    await page.locator('#rem-new-title').waitFor({ state: 'detached' });
    const [r] = (await api(`/api/reminders?vehicle_id=${vehicleId}`)).body;
    assert.deepEqual([r.every_km, r.every_months, r.last_done?.odometer], [15000, 12, 16000]);
    // "15.3.2026" is the 15th of March (noon in Berlin, the hour a day without its hour keeps).
    assert.equal(r.last_done?.time, '2026-03-15T11:00:00Z');
    assert.deepEqual(pageErrors, []);
  });

  it('dates and times are written and read as de-DE writes them: 06.12.2026 and 17:10, never 12/06/2026, 05:10 PM', async () => {
    await go('/add');
    // The field shows now in the owner's format, whatever the browser would draw.
    assert.match(await page.locator('#when').inputValue(), /^\d{2}\.\d{2}\.\d{4}$/);
    assert.match(await page.locator('#when-time').inputValue(), /^\d{2}:\d{2}$/);
    // A day that does not exist, and a date in another order, are refused with how to write one; nothing stored.
    await page.locator('#when').fill('31.02.2026');
    await page.locator('#odometer').fill('17.200');
    await page.locator('#quantity').fill('40');
    await page.locator('#total').fill('70');
    await page.locator('button[type=submit][value=save]').click();
    const error = page.locator('#when-error');
    await error.waitFor();
    assert.match(await error.textContent(), /06\.12\.2026.*17:10/);
    assert.equal(await page.locator('#when').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#when-time').getAttribute('aria-invalid'), null, 'the good time is not marked');
    assert.equal((await refuels()).length, 2, 'nothing stored');
    await page.locator('#when').fill('12/22/2026');
    await page.locator('button[type=submit][value=save]').click();
    await eventually(async () => assert.equal(await page.locator('#when').getAttribute('aria-invalid'), 'true'));
    assert.equal((await refuels()).length, 2, 'nothing stored as a guess');
    // Typed without leading zeros and with a dot for the colon, as on a phone's number pad.
    await page.locator('#when').fill('22.3.2026');
    await page.locator('#when-time').fill('7.05');
    await page.locator('button[type=submit][value=save]').click();
    await eventually(async () => assert.equal((await refuels())[0].refuel_time, '2026-03-22T06:05:00Z'));
  });
});
