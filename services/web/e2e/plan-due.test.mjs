// Where a maintenance plan's items are first due: counted from the car's
// start (0 km on its first record), or the owner's "last done", never from
// today; the reminders are created with that last done, so that fuel's due
// points are the ones the plan showed; in an English and a German browser.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, callApi, eventually, shootEverywhere, startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';

let s;
let page;
let polo;

const DAY = 86_400_000;
const FIRST = '2025-01-10T09:00:00Z';
const LAST = '2025-07-10T09:00:00Z';

const manual = makePdf([
  ['Welcome. This manual covers the Polo 1.0 TSI. Tank 40 litres.'],
  ['Maintenance schedule', 'Timing belt: replace every 120,000 km.', 'Engine oil and filter: every 15,000 km or 12 months.', 'Brake fluid: replace every 24 months.'],
]);

const api = async (path, method = 'GET', body) => {
  const res = await callApi(s, path, body === undefined ? { method } : { method, body: JSON.stringify(body) });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/**
 * startPolo starts a stack in locale with a Polo bought used: two refuels, the first at 5 000 km,
 * the last at 15 760 km, no expense, no reminder; the manual above is linked to it.
 */
async function startPolo(locale) {
  s = await startStack({ chatModel: false, locale, timezoneId: 'Europe/Berlin' });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  polo = await api('/api/vehicles', 'POST', { name: 'Polo', fuel_type: 'gasoline', default_vehicle: true });
  for (const [time, odometer] of [[FIRST, 5000], [LAST, 15760]]) {
    await api('/api/refuels', 'POST', { vehicle_id: polo.id, refuel_time: time, odometer, fuel_type: 'gasoline', liters: 35, total_amount: 60, is_full: true });
  }
  const form = new FormData();
  form.append('file', new Blob([manual], { type: 'application/pdf' }), 'polo-manual.pdf');
  const up = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
  assert.equal(up.status, 200, await up.text());
  const md5 = (await api('/api/documents')).find((d) => d.fileName === 'polo-manual.pdf').fileMd5;
  await api(`/api/vehicles/${polo.id}`, 'PUT', { manual_md5s: [md5] });
}

describe('where a plan\'s items are first due', () => {
  before(() => startPolo('en-IE'));
  after(() => s?.stop());

  it('counts from the car\'s start, or the owner\'s last done, and creates the reminders with it', async () => {
    assert.equal((await api(`/api/vehicles/${polo.id}`)).current_odometer, 15760);
    await page.goto(`${s.base}/manuals`);
    const doc = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'polo-manual.pdf' }) });
    await doc.getByRole('button', { name: 'Propose a maintenance plan' }).click();
    const plan = page.getByRole('region', { name: 'Maintenance plan from polo-manual.pdf' });
    const items = plan.getByRole('list', { name: 'Proposed items' });
    await items.waitFor();
    assert.deepEqual(await items.locator('label').allInnerTexts(), ['Timing belt', 'Engine oil and filter', 'Brake fluid']);
    const item = (title) => items.getByRole('listitem').filter({ has: page.getByLabel(title, { exact: true }) });

    // 10 760 km in 181 days: the year 104 240 km more are reached at that pace, from today in Berlin.
    const today = Date.parse(`${new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date())}T00:00:00Z`);
    const year = new Date(today + Math.ceil(104240 / (10760 / 181)) * DAY).getUTCFullYear();
    const belt = item('Timing belt');
    await belt.getByText(`Due at 120,000 km (in 104,240 km, about ${year}).`).waitFor();
    await belt.getByText('Counted from the car’s start (0 km, first record 10 Jan 2025).', { exact: false }).waitFor();
    assert.equal(await plan.getByText('135,760 km').count(), 0, 'nothing counted from today');
    const oil = item('Engine oil and filter');
    await oil.getByText('Due at 15,000 km: passed 760 km ago. Was due in January 2026.').waitFor();
    await item('Brake fluid').getByText('Due in January 2027.').waitFor();

    // The owner knows the oil's last change: "12,000" (en-IE groups with a comma) on 1 June 2026.
    await oil.getByRole('button', { name: 'Last done…' }).click();
    assert.equal(await oil.getByRole('button', { name: 'Last done…' }).getAttribute('aria-expanded'), 'true');
    const fields = oil.getByRole('group', { name: 'Last done: Engine oil and filter' });
    await fields.getByLabel('Odometer').fill('12,000');
    await fields.getByLabel('Date', { exact: true }).fill('2026-06-01');
    await oil.getByText('Counted from your last done (12,000 km, 1 Jun 2026).', { exact: false }).waitFor();
    await oil.getByText(/^Due at 27,000 km \(in 11,240 km, about \d{4}\)\. Due in June 2027\./).waitFor();
    // A reading that cannot be read is said beside the field, and nothing is added with it.
    await fields.getByLabel('Odometer').fill('12,00');
    await fields.getByText('Odometer: enter the reading in km, written like 12,500, or leave it empty.').waitFor();
    assert.equal(await fields.getByLabel('Odometer').getAttribute('aria-invalid'), 'true');
    await plan.getByRole('button', { name: 'Add 3 reminders to Polo' }).click();
    await plan.getByText('Nothing was added: the last done of “Engine oil and filter” cannot be read.').waitFor();
    assert.equal((await api(`/api/reminders?vehicle_id=${polo.id}`)).length, 0);
    await fields.getByLabel('Odometer').fill('12,000');
    await oil.getByText('Counted from your last done (12,000 km, 1 Jun 2026).', { exact: false }).waitFor();
    assert.equal(await plan.getByText('Nothing was added', { exact: false }).count(), 0, 'the refusal goes once the reading is fixed');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shootEverywhere(page, 'plan-due');
    assert.deepEqual(await axeBothSchemes(page), []);

    await plan.getByRole('button', { name: 'Add 3 reminders to Polo' }).click();
    await plan.getByText('Added 3 reminders to Polo.').waitFor();
    const stored = await eventually(async () => {
      const list = await api(`/api/reminders?vehicle_id=${polo.id}`);
      assert.equal(list.length, 3);
      return Object.fromEntries(list.map((r) => [r.title, r]));
    });
    const start = { time: FIRST, odometer: 0 };
    assert.deepEqual(pick(stored['Timing belt'].last_done), start);
    assert.equal(stored['Timing belt'].due_odometer, 120000, 'from 0 km, not from 15 760');
    assert.equal(stored['Timing belt'].due_in_km, 104240);
    // 12:00 on 1 June 2026 in Berlin.
    assert.deepEqual(pick(stored['Engine oil and filter'].last_done), { time: '2026-06-01T10:00:00Z', odometer: 12000 });
    assert.equal(stored['Engine oil and filter'].due_odometer, 27000);
    assert.equal(stored['Engine oil and filter'].due_date, '2027-06-01');
    assert.deepEqual(pick(stored['Brake fluid'].last_done), start);
    assert.equal(stored['Brake fluid'].due_date, '2027-01-10');
  });
});

describe('the plan\'s last done in German', () => {
  before(() => startPolo('de-DE'));
  after(() => s?.stop());

  // "12.000" is twelve thousand kilometres (the point groups thousands), "01.06.2026" the first of June.
  it('reads "12.000" as twelve thousand km and "01.06.2026" as 1 June, and says the due points in German', async () => {
    await page.goto(`${s.base}/manuals`);
    const doc = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'polo-manual.pdf' }) });
    await doc.getByRole('button', { name: 'Wartungsplan vorschlagen' }).click();
    const plan = page.getByRole('region', { name: 'Wartungsplan aus polo-manual.pdf' });
    const items = plan.getByRole('list', { name: 'Vorgeschlagene Punkte' });
    await items.waitFor();
    const item = (title) => items.getByRole('listitem').filter({ has: page.getByLabel(title, { exact: true }) });
    await item('Timing belt').getByText(/^Fällig bei 120\.000 km \(in 104\.240 km, etwa \d{4}\)\./).waitFor();

    const oil = item('Engine oil and filter');
    await oil.getByRole('button', { name: 'Zuletzt erledigt…' }).click();
    const fields = oil.getByRole('group', { name: 'Zuletzt erledigt: Engine oil and filter' });
    await fields.getByLabel('Kilometerstand').fill('12.000');
    await fields.getByLabel('Datum', { exact: true }).fill('01.06.2026');
    await oil.getByText(/Gezählt ab Ihrem „Zuletzt erledigt“ \(12\.000 km, /).waitFor();
    await oil.getByText(/^Fällig bei 27\.000 km \(in 11\.240 km/).waitFor();

    await plan.getByRole('button', { name: '3 Erinnerungen zu Polo hinzufügen' }).click();
    await plan.getByText('3 Erinnerungen zu Polo hinzugefügt.').waitFor();
    const stored = await eventually(async () => {
      const list = await api(`/api/reminders?vehicle_id=${polo.id}`);
      assert.equal(list.length, 3);
      return Object.fromEntries(list.map((r) => [r.title, r]));
    });
    const oilDone = stored['Engine oil and filter'].last_done;
    assert.equal(oilDone.odometer, 12000, 'the point groups thousands in German');
    assert.equal(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date(oilDone.time)), '2026-06-01');
    assert.equal(stored['Engine oil and filter'].due_odometer, 27000);
    assert.equal(stored['Timing belt'].due_odometer, 120000);
  });
});

/** pick: a last_done's time and odometer, its time as an instant in UTC. */
function pick(done) {
  return { time: new Date(done.time).toISOString().replace('.000Z', 'Z'), odometer: done.odometer };
}
