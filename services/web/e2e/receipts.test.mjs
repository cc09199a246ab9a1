// End-to-end, the receipt scan (issue 56) at 390x844 against the real
// services: docqa reads a photographed receipt of its own corpus with
// Tesseract (services/docqa/internal/receipt/testdata/photos), Add refuel is
// filled with it, each field marked as read, and the saved refuel has the
// photo as its attachment; offline the photo waits as a draft "to review" on
// Home, is read once the connection returns, and becomes a refuel only when
// its owner opens it and saves. In English, then the same form in German.
// Screenshots of the flow (phone and desktop, light and dark) go to shotsDir.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeBothSchemes, callApi, eventually, metricOwner, navLink, repo, shootEverywhere, startStack } from './harness.mjs';

const ZONE = 'Europe/Berlin';
const PHOTOS = join(repo, 'services/docqa/internal/receipt/testdata/photos');
// dev-05: ARAL, Super E10, 45,32 l x 1,759 EUR/l = 79,72 EUR on 30.11.2026 at 16:05 (testdata/dev/05-de-aral-e10.txt).
const ARAL = join(PHOTOS, 'dev-05-de-aral-e10.jpg');
let s;
let page;
let vehicle;
const pageErrors = [];

const api = (path, init) => callApi(s, path, init);
const heading = (name) => page.getByRole('heading', { level: 1, name, exact: true });
const field = (label) => page.getByLabel(label, { exact: true });
const photo = (path) => ({ name: 'receipt.jpg', mimeType: 'image/jpeg', buffer: readFileSync(path) });

async function go(path, name) {
  // Each test starts online, whatever the one before left.
  await s.context.setOffline(false);
  await page.goto(s.base + path);
  await heading(name).waitFor();
  await page.waitForLoadState('networkidle');
}

/** draftsKept (run in the page): the drafts in IndexedDB, in short. */
const draftsKept = () => new Promise((ok) => {
  const r = indexedDB.open('carhub-drafts');
  r.onupgradeneeded = () => r.result.createObjectStore('drafts');
  r.onsuccess = () => {
    const q = r.result.transaction('drafts').objectStore('drafts').getAll();
    q.onsuccess = () => ok(q.result.map((d) => ({ owner: d.owner, read: Boolean(d.scan), bytes: d.photo.bytes.byteLength })));
  };
});

/** marked: the ids of the fields marked as read from the receipt, and the words of each mark. */
const marked = () => page.locator('.read-mark').evaluateAll((ms) => ms.map((m) => [m.id.replace(/-read$/, ''), m.className.replace('read-mark ', ''), m.textContent]));

/** refuels: the vehicle's refuels as the service keeps them, newest first. */
const refuels = async () => (await api(`/api/refuels?vehicle_id=${vehicle.id}`)).body;

before(async () => {
  s = await startStack({ locale: 'en-IE', timezoneId: ZONE });
  ({ page, vehicle } = await metricOwner(s, { locale: 'en-IE', zone: ZONE, fuelType: 'diesel', pageErrors }));
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

describe('receipt scan', () => {
  it('a photographed fuel receipt fills Add refuel, marked as read; saved, the photo is the refuel\'s attachment', async () => {
    await go('/add', 'Add refuel');
    const scan = page.getByLabel('Scan receipt', { exact: true });
    await scan.waitFor({ state: 'attached' });
    assert.equal(await scan.getAttribute('accept'), 'image/*');
    assert.equal(await scan.getAttribute('capture'), 'environment');
    await scan.setInputFiles(photo(ARAL));
    await page.getByText('Filled from the receipt: check the marked fields, then save.').waitFor({ timeout: 60_000 });
    // The receipt's values in the owner's format (en-IE: a decimal point), the energy it names (the vehicle's is diesel).
    assert.equal(await field('Quantity').inputValue(), '45.32');
    assert.equal(await field('Total amount').inputValue(), '79.72');
    assert.equal(await field('Price per unit').inputValue(), '1.759');
    assert.equal(await field('Energy').inputValue(), 'gasoline');
    assert.equal(await field('Station').inputValue(), 'ARAL Tankstelle');
    // The date as the owner writes it (en-IE: day first).
    assert.equal(await page.locator('#when').inputValue(), '30/11/2026');
    assert.equal(await page.locator('#when-time').inputValue(), '16:05');
    // Each filled field says so, and its control is described by the mark.
    const marks = await marked();
    assert.deepEqual(marks.map(([id]) => id).sort(), ['energy', 'price', 'quantity', 'station', 'total', 'when']);
    for (const [id, kind, text] of marks) {
      assert.equal(text, kind === 'unsure' ? 'Read from the receipt, but unsure: check it' : 'Read from the receipt', id);
    }
    assert.match(await field('Quantity').getAttribute('aria-describedby'), /\bquantity-read\b/);
    // The photo goes with the refuel.
    await page.getByText('receipt.jpg').waitFor();
    await shootEverywhere(page, 'receipt-filled-en');
    // A field the owner changes is theirs: its mark goes, the others stay.
    await field('Station').fill('Aral München');
    assert.equal(await page.locator('#station-read').count(), 0);
    assert.equal(await page.locator('#quantity-read').count(), 1);
    // The receipt prints no odometer.
    await field('Odometer').fill('12345');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Refuel saved: /).first().waitFor();
    await eventually(async () => assert.equal((await refuels()).length, 1));
    const [r] = await refuels();
    assert.equal(Number(r.liters), 45.32);
    assert.equal(Number(r.total_amount), 79.72);
    assert.equal(r.energy, 'gasoline');
    assert.equal(r.station_name, 'Aral München');
    assert.equal(new Date(r.refuel_time).toISOString(), '2026-11-30T15:05:00.000Z');
    // The photo is the refuel's attachment, byte for byte.
    const att = await eventually(async () => {
      const a = await api(`/api/refuels/${r.id}/attachments`);
      assert.equal(a.body?.length, 1, JSON.stringify(a.body));
      return a.body[0];
    });
    assert.equal(att.content_type, 'image/jpeg');
    assert.equal(att.size, readFileSync(ARAL).length);
    // Saved, the marks are gone with the values.
    assert.equal(await page.locator('.read-mark').count(), 0);
  });

  it('offline the photo waits as a draft to review on Home; online again it is read, and saved only when its owner confirms', async () => {
    await go('/add', 'Add refuel');
    await s.context.setOffline(true);
    await page.getByLabel('Scan receipt', { exact: true }).setInputFiles(photo(ARAL));
    await page.getByText(/^No connection: the photo is kept as a draft to review/).waitFor();
    assert.deepEqual(await page.evaluate(draftsKept), [{ owner: 'refuels', read: false, bytes: readFileSync(ARAL).length }]);
    // Nothing is filled, nothing saved.
    assert.equal(await field('Quantity').inputValue(), '');
    await (await navLink(page, 'Home')).click();
    await heading('Home').waitFor();
    const drafts = page.getByRole('region', { name: 'Receipts to review' });
    await drafts.getByText('To review', { exact: true }).waitFor();
    await drafts.getByText('Not read yet: it is read when the connection returns.').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History', exact: true }).click();
    await heading('History').waitFor();
    await page.getByRole('region', { name: 'Receipts to review' }).getByText('To review', { exact: true }).waitFor();
    await (await navLink(page, 'Home')).click();
    await heading('Home').waitFor();
    await shootEverywhere(page, 'receipt-draft-offline-en');
    // The connection returns: the photo is read, the draft filled, still nothing saved.
    await s.context.setOffline(false);
    await drafts.getByText(/^Read: €79\.72 · 45\.32\u00a0L · 30 Nov 2026 · ARAL Tankstelle$/).waitFor({ timeout: 60_000 });
    assert.deepEqual(await page.evaluate(draftsKept), [{ owner: 'refuels', read: true, bytes: readFileSync(ARAL).length }]);
    assert.equal((await refuels()).length, 1, 'nothing saved before the owner confirms');
    await shootEverywhere(page, 'receipt-draft-read-en');
    await drafts.getByRole('link', { name: /^Review and save/ }).click();
    await heading('Add refuel').waitFor();
    await page.getByText(/^From the receipt photographed /).waitFor();
    assert.equal(await field('Quantity').inputValue(), '45.32');
    assert.equal(await field('Total amount').inputValue(), '79.72');
    assert.ok((await marked()).length >= 5);
    await field('Odometer').fill('12900');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Refuel saved: /).first().waitFor();
    await eventually(async () => assert.equal((await refuels()).length, 2));
    const r = (await refuels()).find((x) => Number(x.odometer) === 12900);
    assert.equal(Number(r.liters), 45.32);
    await eventually(async () => assert.equal((await api(`/api/refuels/${r.id}/attachments`)).body?.length, 1));
    // The draft is a refuel now: gone from the device and from Home.
    assert.deepEqual(await page.evaluate(draftsKept), []);
    await (await navLink(page, 'Home')).click();
    await heading('Home').waitFor();
    assert.equal(await page.getByRole('region', { name: 'Receipts to review' }).count(), 0);
  });

  it('a draft can be discarded, and nothing is saved', async () => {
    await go('/add', 'Add refuel');
    await s.context.setOffline(true);
    await page.getByLabel('Scan receipt', { exact: true }).setInputFiles(photo(ARAL));
    await page.getByText(/^No connection: the photo is kept as a draft/).waitFor();
    await (await navLink(page, 'Home')).click();
    const drafts = page.getByRole('region', { name: 'Receipts to review' });
    await drafts.getByRole('button', { name: /^Discard draft/ }).click();
    await page.getByText('Draft discarded.').waitFor();
    assert.equal(await drafts.count(), 0);
    assert.deepEqual(await page.evaluate(draftsKept), []);
    await s.context.setOffline(false);
    assert.equal((await refuels()).length, 2);
  });

  it('a fuel receipt on the expense form fills the amount, date and station, and offers Add refuel with the quantity', async () => {
    await go('/costs', 'Costs');
    await page.getByRole('button', { name: 'Add expense' }).click();
    const form = page.getByRole('form', { name: 'New expense' });
    await form.getByLabel('Scan receipt', { exact: true }).setInputFiles(photo(ARAL));
    await form.getByText(/^This reads as a fuel receipt: /).waitFor({ timeout: 60_000 });
    assert.equal(await form.getByLabel('Amount', { exact: true }).inputValue(), '79.72');
    assert.equal(await form.getByLabel('Vendor', { exact: true }).inputValue(), 'ARAL Tankstelle');
    assert.equal(await page.locator('#exp-new-amount-read').textContent(), 'Read from the receipt');
    await shootEverywhere(page, 'receipt-expense-en');
    // Moved to Add refuel, the photo and what was read come along: filled, nothing read again, nothing saved.
    await form.getByRole('button', { name: 'Add it as a refuel instead' }).click();
    await heading('Add refuel').waitFor();
    await page.getByText(/^From the receipt photographed /).waitFor();
    assert.equal(await field('Quantity').inputValue(), '45.32');
    assert.equal((await api(`/api/expenses?vehicle_id=${vehicle.id}`)).body.length, 0);
    await page.getByRole('button', { name: 'Discard draft' }).click();
    await page.getByText('Draft discarded.').waitFor();
    assert.deepEqual(await page.evaluate(draftsKept), []);
  });

  it('axe-core finds no serious or critical violation on the filled form', async () => {
    await go('/add', 'Add refuel');
    await page.getByLabel('Scan receipt', { exact: true }).setInputFiles(photo(ARAL));
    await page.getByText('Filled from the receipt: check the marked fields, then save.').waitFor({ timeout: 60_000 });
    const found = await axeBothSchemes(page);
    assert.deepEqual(found, []);
  });

  it('in German the receipt fills the form in the German number format, with German marks', async () => {
    const de = await s.newProfile({ locale: 'de-DE' });
    const p = de.pages()[0] ?? (await de.newPage());
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    // Another profile: its own first start in German (the preferences on the server say en-IE; Settings is this device's).
    await api('/api/preferences', { method: 'PUT', body: JSON.stringify({ locale: 'de-DE', language: 'de' }) });
    try {
      const prev = page;
      page = p;
      await go('/add', 'Tanken');
      await page.getByLabel('Beleg scannen', { exact: true }).setInputFiles(photo(ARAL));
      await page.getByText('Aus dem Beleg ausgefüllt: Prüfen Sie die markierten Felder und speichern Sie dann.').waitFor({ timeout: 60_000 });
      assert.equal(await field('Menge').inputValue(), '45,32');
      assert.equal(await field('Gesamtbetrag').inputValue(), '79,72');
      assert.equal(await field('Preis pro Einheit').inputValue(), '1,759');
      assert.equal(await page.locator('#quantity-read').textContent(), 'Aus dem Beleg gelesen');
      await shootEverywhere(page, 'receipt-filled-de');
      page = prev;
    } finally {
      await api('/api/preferences', { method: 'PUT', body: JSON.stringify({ locale: 'en-IE', language: 'en' }) });
      await de.close();
    }
  });

  it('no uncaught error in the run', () => {
    assert.deepEqual(pageErrors, []);
  });
});
