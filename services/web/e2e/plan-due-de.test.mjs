// The plan's "last done" in a German browser: "12.000" is twelve thousand
// kilometres (the point groups thousands), "01.06.2026" the first of June,
// and the due points are said in German numbers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { callApi, eventually, startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';

let s;
let page;
let polo;

const manual = makePdf([
  ['Welcome. This manual covers the Polo 1.0 TSI. Tank 40 litres.'],
  ['Maintenance schedule', 'Timing belt: replace every 120,000 km.', 'Engine oil and filter: every 15,000 km or 12 months.'],
]);

const api = async (path, method = 'GET', body) => {
  const res = await callApi(s, path, body === undefined ? { method } : { method, body: JSON.stringify(body) });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

before(async () => {
  s = await startStack({ chatModel: false, locale: 'de-DE', timezoneId: 'Europe/Berlin' });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  polo = await api('/api/vehicles', 'POST', { name: 'Polo', fuel_type: 'gasoline', default_vehicle: true });
  for (const [time, odometer] of [['2025-01-10T09:00:00Z', 5000], ['2025-07-10T09:00:00Z', 15760]]) {
    await api('/api/refuels', 'POST', { vehicle_id: polo.id, refuel_time: time, odometer, fuel_type: 'gasoline', liters: 35, total_amount: 60, is_full: true });
  }
  const form = new FormData();
  form.append('file', new Blob([manual], { type: 'application/pdf' }), 'polo-manual.pdf');
  const up = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
  assert.equal(up.status, 200, await up.text());
  const md5 = (await api('/api/documents')).find((d) => d.fileName === 'polo-manual.pdf').fileMd5;
  await api(`/api/vehicles/${polo.id}`, 'PUT', { manual_md5s: [md5] });
});

after(async () => {
  await s?.stop();
});

describe('the plan\'s last done in German', () => {
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

    await plan.getByRole('button', { name: '2 Erinnerungen zu Polo hinzufügen' }).click();
    await plan.getByText('2 Erinnerungen zu Polo hinzugefügt.').waitFor();
    const stored = await eventually(async () => {
      const list = await api(`/api/reminders?vehicle_id=${polo.id}`);
      assert.equal(list.length, 2);
      return Object.fromEntries(list.map((r) => [r.title, r]));
    });
    const oilDone = stored['Engine oil and filter'].last_done;
    assert.equal(oilDone.odometer, 12000, 'the point groups thousands in German');
    assert.equal(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date(oilDone.time)), '2026-06-01');
    assert.equal(stored['Engine oil and filter'].due_odometer, 27000);
    assert.equal(stored['Timing belt'].due_odometer, 120000);
  });
});
