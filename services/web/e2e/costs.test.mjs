// End-to-end, the whole cost of a car as its owner logs it on a phone: an
// expense with a photo of its receipt made offline appears once after
// reconnecting (its first answer lost, too), the service's 400 names the
// field on the form, reminders due soon or overdue show on the start page
// in words ("Oil change due in 800 km, about 3 weeks"), and Statistics
// shows fuel against the other costs; in English and Chinese, light and
// dark, axe-core clean. Screenshots (phone and desktop) go to shotsDir.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, callApi, eventually, metricOwner, navLink, shootEverywhere, startStack } from './harness.mjs';

const ZONE = 'Europe/Berlin';
const DAY = 86_400_000;
let s;
let page;
let vehicle;
const pageErrors = [];

const api = (path, init) => callApi(s, path, init);
const heading = (name) => page.getByRole('heading', { level: 1, name, exact: true });
const field = (label) => page.getByLabel(label, { exact: true });
const money = (v) => new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR' }).format(v);

async function go(path, name) {
  await page.goto(s.base + path);
  await heading(name).waitFor();
  await page.waitForLoadState('networkidle');
}

/** outboxItems (run in the page): what waits in the outbox, in short. */
const outboxItems = () => new Promise((ok) => {
  const r = indexedDB.open('carhub-outbox');
  r.onsuccess = () => {
    const q = r.result.transaction('items').objectStore('items').getAll();
    q.onsuccess = () => ok(q.result.map((i) => [i.kind, i.state, i.path, i.message ?? '', i.attempts]));
  };
});

/** A real JPEG (drawn by the browser), as a person's camera would give one. */
async function photo(name) {
  const bytes = await page.evaluate(async () => {
    const c = document.createElement('canvas');
    c.width = 96;
    c.height = 64;
    const g = c.getContext('2d');
    g.fillStyle = '#d33';
    g.fillRect(0, 0, 96, 64);
    g.fillStyle = '#fff';
    g.fillRect(10, 10, 40, 20);
    const blob = await new Promise((ok) => c.toBlob(ok, 'image/jpeg', 0.9));
    return [...new Uint8Array(await blob.arrayBuffer())];
  });
  return { name, mimeType: 'image/jpeg', buffer: Buffer.from(bytes) };
}

before(async () => {
  s = await startStack({ locale: 'en-IE', timezoneId: ZONE });
  ({ page, vehicle } = await metricOwner(s, { locale: 'en-IE', zone: ZONE, fuelType: 'gasoline', pageErrors }));
  // Two months of driving, 50 km a day: the reminders' estimate has a pace to go by.
  const now = Date.now();
  for (const [days, odometer, liters, total] of [[60, 10000, '40', '60.00'], [30, 11500, '42', '63.00'], [1, 13000, '41', '61.50']]) {
    const r = await api('/api/refuels', {
      method: 'POST',
      body: `{"vehicle_id":${vehicle.id},"refuel_time":"${new Date(now - days * DAY).toISOString()}","odometer":${odometer},"fuel_type":"gasoline","liters":${liters},"total_amount":${total},"is_full":true}`,
    });
    assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
  }
  // Once controlled by the service worker, the app opens offline too.
  await go('/', 'Home');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
});

after(async () => {
  if (s && pageErrors.length > 0) console.log(pageErrors.join('\n'));
  await s?.stop();
});

describe('costs', () => {
  it('Costs is reached from More and from the start page', async () => {
    await go('/', 'Home');
    await (await navLink(page, 'Costs')).click();
    await heading('Costs').waitFor();
    await go('/', 'Home');
    await page.getByRole('region', { name: 'Reminders' }).getByRole('link', { name: 'All reminders and costs' }).click();
    await heading('Costs').waitFor();
  });

  it("the service's 400 names the field on the form, and nothing is kept", async () => {
    await go('/costs', 'Costs');
    await page.getByRole('button', { name: 'Add expense' }).click();
    // Every field the page checks itself, at once.
    await page.getByRole('button', { name: 'Save expense' }).click();
    const summary = page.getByRole('alert').filter({ hasText: 'There is a problem' });
    await summary.waitFor();
    assert.deepEqual(await summary.getByRole('listitem').allInnerTexts(), [
      'Title: enter what it was, in at most 200 characters.',
      'Amount: enter what was paid, written like 1,234.56.',
    ]);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'exp-new-title');
    // One only the service knows: an amount beyond what it stores.
    await field('Title').fill('Brake pads');
    await field('Amount').fill('99999999999999');
    await page.getByRole('button', { name: 'Save expense' }).click();
    await summary.getByText(/^Amount: /).waitFor();
    assert.equal(await field('Amount').getAttribute('aria-invalid'), 'true');
    assert.match(await page.locator('#exp-new-amount-error').textContent(), /^Amount: must be/);
    assert.equal((await api(`/api/expenses?vehicle_id=${vehicle.id}`)).body.length, 0, 'nothing stored');
    assert.equal(await page.evaluate(async () => (await new Promise((ok) => {
      const r = indexedDB.open('carhub-outbox');
      r.onsuccess = () => { const q = r.result.transaction('items').objectStore('items').count(); q.onsuccess = () => ok(q.result); };
    }))), 0, 'nothing queued');
    await shootEverywhere(page, 'costs-form-errors');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('reminders: added on Costs with their status; those due show on the start page in words, overdue first', async () => {
    const long = new Date(Date.now() - 400 * DAY).toISOString();
    // Oil every 5 000 km, last done at 8 800: at today's 13 000 km, 800 km are left (soon: within 1 000).
    const oil = await api('/api/reminders', { method: 'POST', body: JSON.stringify({ vehicle_id: vehicle.id, title: 'Oil change', category: 'service', every_km: 5000, last_done: { time: new Date(Date.now() - 100 * DAY).toISOString(), odometer: 8800 } }) });
    assert.ok(oil.status === 200 || oil.status === 201, JSON.stringify(oil.body));
    const insp = await api('/api/reminders', { method: 'POST', body: JSON.stringify({ vehicle_id: vehicle.id, title: 'Inspection', category: 'inspection', every_months: 12, last_done: { time: long } }) });
    assert.ok(insp.status === 200 || insp.status === 201, JSON.stringify(insp.body));
    const list = (await api(`/api/reminders?vehicle_id=${vehicle.id}`)).body;
    const byTitle = Object.fromEntries(list.map((r) => [r.title, r]));
    assert.equal(byTitle.Inspection.status, 'overdue');

    await go('/', 'Home');
    const box = page.getByRole('region', { name: 'Reminders' });
    const items = box.getByRole('listitem');
    await items.first().waitFor();
    const texts = await items.allInnerTexts();
    // "Overdue" once: the phrase says it (no badge repeating it before the title).
    assert.match(texts[0], /^Inspection overdue by \d+ (days?|weeks?|months?)$/);
    assert.deepEqual([byTitle['Oil change'].status, Number(byTitle['Oil change'].due_in_km)], ['soon', 800]);
    assert.match(texts[1], /^Soon Oil change due in 800 km, about \d+ (days|weeks)$/);
    assert.equal(texts.length, 2);
    await shootEverywhere(page, 'home-reminders');
    assert.deepEqual(await axeBothSchemes(page), []);

    // Added through the form on Costs: by distance and time, from a date and a reading.
    await go('/costs', 'Costs');
    await page.getByRole('button', { name: 'Add reminder' }).click();
    await field('Title').fill('Tyres');
    await field('Category').selectOption({ label: 'Tyres' });
    await field('Every (distance)').fill('40000');
    await field('Every (months)').fill('48');
    await field('Last done on (optional)').fill(new Date(Date.now() - 30 * DAY).toISOString().slice(0, 10));
    await field('Odometer when last done (optional)').fill('11500');
    await page.getByRole('button', { name: 'Save reminder' }).click();
    await page.getByRole('status').filter({ hasText: 'Reminder saved: Tyres.' }).waitFor();
    const tyres = page.getByRole('list', { name: 'Reminders' }).getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Tyres' }) });
    await tyres.getByText('OK', { exact: true }).waitFor();
    // 1 430 days read in years from 24 months on.
    await tyres.getByText(/^OK Due in 38,500 km or 4 years$/).waitFor();
    await tyres.getByText('Every 40,000 km or 48 months').waitFor();
    const saved = (await api(`/api/reminders?vehicle_id=${vehicle.id}`)).body.find((r) => r.title === 'Tyres');
    assert.deepEqual([Number(saved.every_km), saved.every_months, Number(saved.last_done.odometer), saved.status], [40000, 48, 11500, 'ok']);
    await shootEverywhere(page, 'costs-reminders');
  });

  it('an expense with a photo added offline appears once after reconnecting, its first answer lost', async (t) => {
    t.after(async () => {
      await s.context.unroute('**/api/expenses');
      await s.context.setOffline(false);
    });
    let posts = 0;
    await s.context.route('**/api/expenses', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      posts++;
      if (posts === 1) {
        await route.fetch(); // the service stores it...
        return route.abort('connectionreset'); // ...and the answer is lost
      }
      return route.continue();
    });
    await go('/costs', 'Costs');
    await s.context.setOffline(true);
    await page.getByRole('button', { name: 'Add expense' }).click();
    await page.getByRole('radio', { name: 'Service' }).check();
    await field('Title').fill('Oil and filter change');
    await field('Amount').fill('89.90');
    await field('Odometer (optional)').fill('12950');
    await field('Vendor').fill('Garage Müller');
    await field('Add photos or receipts').setInputFiles(await photo('receipt.jpg'));
    await page.getByText('To be added with the expense: receipt.jpg').waitFor();
    await page.getByRole('button', { name: 'Save expense' }).click();
    // Said in view, with what was saved and the photo waiting with it.
    await page.getByRole('status').filter({ hasText: /^Expense queued: Oil and filter change, €89\.90 — .* Its photos wait with it: receipt\.jpg\.$/ }).waitFor();
    const queued = page.getByRole('region', { name: 'Not yet on the server' });
    await queued.getByText('Oil and filter change').waitFor();
    await queued.getByText('Waiting to sync').waitFor();
    await queued.getByText('receipt.jpg').waitFor();
    await shootEverywhere(page, 'costs-queued');

    // Online again: the first attempt reaches the service and its answer is lost; the outbox sends
    // it again with the same key (the service answers the stored expense), then the photo to it.
    await s.context.setOffline(false);
    await queued.waitFor({ state: 'detached', timeout: 60_000 });
    // "Queued" is no longer true: the confirmation says it is on the server now.
    await page.getByRole('status').filter({ hasText: 'Sent: what was saved on this device is on the server now.' }).waitFor();
    assert.ok(posts >= 2, `sent again after the lost answer (${posts} attempts)`);
    const stored = await eventually(async () => {
      const list = (await api(`/api/expenses?vehicle_id=${vehicle.id}`)).body;
      assert.equal(list.length, 1, `${JSON.stringify(list)}; outbox: ${JSON.stringify(await page.evaluate(outboxItems))}`);
      return list;
    }, 5000);
    const e = stored[0];
    assert.deepEqual([e.category, e.title, Number(e.amount), Number(e.odometer), e.vendor], ['service', 'Oil and filter change', 89.9, 12950, 'Garage Müller']);
    // The queued region lists expenses: it goes once the expense is stored, and the photo, an item of
    // its own that waited for the expense's id, follows it.
    await eventually(async () => {
      const files = (await api(`/api/expenses/${e.id}/attachments`)).body;
      assert.equal(files.length, 1, `${JSON.stringify(files)}; outbox: ${JSON.stringify(await page.evaluate(outboxItems))}`);
    }, 5000);

    const log = page.getByRole('list', { name: 'Expenses' });
    await log.getByRole('listitem').first().waitFor();
    assert.equal(await log.getByRole('heading', { name: 'Oil and filter change' }).count(), 1);
    const item = log.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Oil and filter change' }) });
    await item.getByText(money(89.9)).waitFor();
    await item.getByText('Service ·', { exact: false }).waitFor();
    await item.getByText('Receipts and photos').click();
    const thumb = item.getByRole('img', { name: /^Photo / });
    await thumb.waitFor();
    await eventually(async () => assert.ok(await thumb.evaluate((img) => img.complete && img.naturalWidth > 0), 'the thumbnail shows'));
    assert.deepEqual(await axeBothSchemes(page), []);
    await shootEverywhere(page, 'costs-log');
  });

  it("a refuel's receipt: added from History online, its thumbnail shown, deleted", async () => {
    await go('/history', 'History');
    const first = page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').first();
    await first.getByText('Receipts and photos').click();
    await first.getByText('No receipts or photos yet.').waitFor();
    await first.getByLabel('Add photos or receipts', { exact: true }).setInputFiles(await photo('pump.jpg'));
    await first.getByRole('status').filter({ hasText: 'Added: pump.jpg.' }).waitFor();
    const thumb = first.getByRole('img', { name: 'Photo pump.jpg' });
    await thumb.waitFor();
    await eventually(async () => assert.ok(await thumb.evaluate((img) => img.complete && img.naturalWidth > 0), 'the thumbnail shows'));
    const refuel = (await api(`/api/refuels?vehicle_id=${vehicle.id}&limit=1`)).body[0];
    assert.deepEqual((await api(`/api/refuels/${refuel.id}/attachments`)).body.map((a) => a.file_name), ['pump.jpg']);
    await first.getByRole('button', { name: 'Delete pump.jpg' }).click();
    await first.getByText('No receipts or photos yet.').waitFor();
    assert.deepEqual((await api(`/api/refuels/${refuel.id}/attachments`)).body, []);
  });

  it('Statistics: fuel, other costs, their total and the monthly chart of both', async () => {
    const st = (await api(`/api/vehicles/${vehicle.id}/statistics`)).body;
    await go('/statistics', 'Statistics');
    const card = (label) => page.getByRole('group', { name: label, exact: true }).locator('.card-value');
    await card('Other costs').waitFor();
    assert.equal(await card('Fuel').textContent(), money(st.total_amount));
    assert.equal(await card('Other costs').textContent(), money(89.9));
    assert.equal(await card('Total cost').textContent(), money(st.total_cost));
    await page.getByRole('figure', { name: 'Fuel and other costs by month' }).waitFor();
    await page.getByRole('figure', { name: 'Fuel and other costs by month' }).getByRole('button', { name: 'Show as table' }).click();
    const month = new Intl.DateTimeFormat('en', { timeZone: ZONE, year: 'numeric', month: '2-digit' }).formatToParts(new Date());
    const thisMonth = `${month.find((p) => p.type === 'year').value}-${month.find((p) => p.type === 'month').value}`;
    const row = page.getByRole('row', { name: new RegExp(`^${thisMonth}`) });
    assert.match(await row.innerText(), new RegExp(`${money(89.9).replace('.', '\\.')}$`));
    assert.deepEqual(await axeBothSchemes(page), []);
    await shootEverywhere(page, 'statistics-costs');
  });

  it('in Chinese, the start page says it in Chinese', async () => {
    const r = await api('/api/preferences', { method: 'PUT', body: JSON.stringify({ locale: 'zh-CN' }) });
    assert.equal(r.status, 200);
    await go('/', '首页');
    const box = page.getByRole('region', { name: '提醒' });
    await box.getByRole('listitem').first().waitFor();
    assert.match((await box.getByRole('listitem').allInnerTexts())[0], /^Inspection：已逾期 /);
    await shootEverywhere(page, 'home-reminders-zh');
    await go('/costs', '费用');
    await page.getByRole('heading', { level: 2, name: '提醒' }).waitFor();
    await shootEverywhere(page, 'costs-zh');
    assert.deepEqual(pageErrors, []);
  });
});
