// End-to-end, one language per screen and guesses that stay on their device
// (issue 54, points 3 and 4), with accounts off, in Debian's Chromium behind
// the real Caddy: an en-GB browser's first visit puts miles and pounds in
// force on it but saves nothing, so a German browser then gets km, euros and
// German, and the server keeps nulls until Settings is saved; the app in
// German says German words on every main page; the app in English in a
// de-DE browser says English words ("December 2026", "in 2 weeks") with
// German numbers ("1.234,50 €"). Screenshots in German and Chinese at a
// phone's and a desktop's size go to shotsDir to be looked at.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { callApi, eventually, navLink, shootEverywhere, shotsDir, startStack } from './harness.mjs';

const ZONE = 'Europe/Berlin';
const DAY = 86_400_000;
const PREFERENCES = ['distance_unit', 'volume_unit', 'consumption_unit', 'electric_consumption_unit', 'gas_consumption_unit', 'currency', 'locale', 'time_zone', 'language'];

let s;
let page;
let vehicle;
const pageErrors = [];

const api = (path, init) => callApi(s, path, init);

const chosen = async () => {
  const p = (await api('/api/preferences')).body;
  return PREFERENCES.filter((f) => p[f] !== null);
};

function watch(p) {
  p.on('pageerror', (e) => pageErrors.push(String(e)));
  p.on('dialog', (d) => void d.accept());
}

const heading = (p, name) => p.getByRole('heading', { level: 1, name, exact: true });

async function go(p, path, name) {
  await p.goto(s.base + path);
  await heading(p, name).waitFor();
}

// Words that must not appear on a German screen (English ones the pages used to show, whole words).
const ENGLISH = /\b(the|and|Refuels?|Odometer|Quantity|Settings|Save|Statistics|History|Home|Add|Last|Total|Month|December|weeks?|months?|US Dollar|Vehicle|Language)\b/;
// German words that must not appear on an English screen.
const GERMAN = /\b(Dezember|Wochen?|Monate[n]?|Okt|Tankvorgang|Kilometerstand|Einstellungen|US-Dollar)\b/;

const mainText = async (p) => (await p.getByRole('main').innerText()) + '\n' + (await p.getByRole('navigation', { name: /^(Main|Hauptnavigation|主导航)$/ }).innerText());

before(async () => {
  s = await startStack({ locale: 'de-DE', timezoneId: ZONE });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  watch(page);
});

after(async () => {
  if (s && pageErrors.length > 0) console.log(pageErrors.join('\n'));
  await s?.stop();
});

describe('the first browser does not decide for everyone', () => {
  it('an en-GB first visit reads miles and pounds on its device and saves nothing; a de-DE browser then reads km, euros and German; Settings saves them', async () => {
    assert.deepEqual(await chosen(), [], 'nothing chosen before any visit');
    const gb = await s.newProfile({ locale: 'en-GB', timezoneId: 'Europe/London' });
    try {
      const p = gb.pages()[0] ?? (await gb.newPage());
      watch(p);
      await go(p, '/add', 'Add refuel');
      await p.locator('#odometer-unit').filter({ hasText: /^mi$/ }).waitFor();
      await go(p, '/settings', 'Settings');
      await eventually(async () => assert.equal(await p.getByLabel('Currency', { exact: true }).inputValue(), 'GBP'));
      await p.waitForLoadState('networkidle');
      await p.reload();
      await heading(p, 'Settings').waitFor();
      await p.waitForLoadState('networkidle');
      assert.deepEqual(await chosen(), [], 'the en-GB guesses stayed on its device');
    } finally {
      await gb.close();
    }

    await go(page, '/add', 'Tanken');
    await page.locator('#odometer-unit').filter({ hasText: /^km$/ }).waitFor();
    // The page's lang is the words' locale once the preferences are in force.
    await eventually(async () => assert.equal(await page.evaluate(() => document.documentElement.lang), 'de-DE'));
    await go(page, '/settings', 'Einstellungen');
    assert.equal(await page.getByLabel('Strecke', { exact: true }).inputValue(), 'km');
    assert.equal(await page.getByLabel('Währung', { exact: true }).inputValue(), 'EUR');
    assert.equal(await page.getByLabel('Sprache', { exact: true }).inputValue(), 'de');
    await page.getByText('Einige dieser Einstellungen sind aus diesem Browser geschätzt').waitFor();
    assert.deepEqual(await chosen(), [], 'still nothing on the server before Settings is saved');

    await page.getByRole('button', { name: 'Einstellungen speichern' }).click();
    await page.getByRole('status').filter({ hasText: 'Einstellungen gespeichert.' }).waitFor();
    await page.getByText('Einige dieser Einstellungen sind aus diesem Browser geschätzt').waitFor({ state: 'hidden' });
    const p = (await api('/api/preferences')).body;
    assert.deepEqual(PREFERENCES.map((f) => p[f]), ['km', 'l', 'l_per_100km', 'kwh_per_100km', 'kg_per_100km', 'EUR', 'de-DE', ZONE, 'de']);
  });
});

describe('one language per screen', () => {
  before(async () => {
    const v = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Golf', fuel_type: 'gasoline', default_vehicle: true }) });
    assert.ok(v.status === 200 || v.status === 201, JSON.stringify(v.body));
    vehicle = v.body;
    // Three full fills this month (1.234,50 € together) and one in the month before: a consumption and a monthly sum.
    const now = Date.now();
    const start = new Date(now);
    const dayOfMonth = start.getUTCDate();
    for (const [days, odometer, liters, total] of [[dayOfMonth + 20, 15000, '40', '60.00'], [Math.min(dayOfMonth - 1, 4), 15760, '42', '1111.00'], [0, 16480, '41', '123.50']]) {
      const r = await api('/api/refuels', {
        method: 'POST',
        body: `{"vehicle_id":${vehicle.id},"refuel_time":"${new Date(now - days * DAY - 3_600_000).toISOString()}","odometer":${odometer},"fuel_type":"gasoline","liters":${liters},"total_amount":${total},"is_full":true}`,
      });
      assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
    }
    // A reminder due in 14 days: "in 2 weeks".
    const rem = await api('/api/reminders', {
      method: 'POST',
      body: JSON.stringify({ vehicle_id: vehicle.id, title: 'TÜV', category: 'inspection', every_months: 12, last_done: { time: new Date(now - 350 * DAY).toISOString() } }),
    });
    assert.ok(rem.status === 200 || rem.status === 201, JSON.stringify(rem.body));
  });

  it('German: Home, Add refuel, History, Statistics and Settings say German words only', async () => {
    const month = new Intl.DateTimeFormat('de-DE', { month: 'long', year: 'numeric', timeZone: ZONE }).format(new Date());
    await go(page, '/', 'Start');
    await page.getByRole('heading', { name: `Dieser Monat (${month})` }).waitFor();
    await page.getByText('Letzter Tankvorgang', { exact: true }).waitFor();
    await page.getByText('1.234,50 €', { exact: true }).first().waitFor();
    assert.doesNotMatch(await mainText(page), ENGLISH, 'Home');

    await go(page, '/add', 'Tanken');
    for (const label of ['Kilometerstand', 'Menge', 'Gesamtbetrag', 'Preis pro Einheit']) await page.getByLabel(label, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Speichern', exact: true }).waitFor();
    assert.doesNotMatch(await mainText(page), ENGLISH, 'Add refuel');
    // The photo picker's button is the app's, in German; the browser's own ("Choose Files", in its
    // interface language) lies transparent under it, still the labelled control.
    const picker = page.locator('.file-picker').filter({ has: page.getByLabel('Fotos oder Belege hinzufügen', { exact: true }) });
    assert.equal(await picker.locator('.button').innerText(), 'Dateien auswählen');
    assert.equal(await picker.locator('input[type=file]').evaluate((el) => getComputedStyle(el).opacity), '0');

    await go(page, '/history', 'Verlauf');
    await page.getByText('16.480 km').first().waitFor();
    assert.doesNotMatch(await mainText(page), ENGLISH, 'History');

    await (await navLink(page, 'Statistik', { label: 'Hauptnavigation', more: 'Mehr' })).click();
    await heading(page, 'Statistik').waitFor();
    await page.getByRole('heading', { name: 'Übersicht' }).waitFor();
    assert.doesNotMatch(await mainText(page), ENGLISH, 'Statistics');

    await go(page, '/costs', 'Kosten');
    await page.getByText(/noch 2 Wochen bis zur Fälligkeit/i).first().waitFor();
    assert.doesNotMatch(await mainText(page), ENGLISH, 'Costs');

    await go(page, '/settings', 'Einstellungen');
    await page.getByLabel('Zahlen- und Datumsformat', { exact: true }).waitFor();
    assert.doesNotMatch(await mainText(page), ENGLISH, 'Settings');
  });

  it('English in a de-DE browser: English words, German numbers and day-first dates', async () => {
    await go(page, '/settings', 'Einstellungen');
    await page.getByLabel('Sprache', { exact: true }).selectOption('en');
    await page.getByRole('button', { name: 'Einstellungen speichern' }).click();
    // The new language is in force at once, the status already in English.
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await heading(page, 'Settings').waitFor();
    assert.equal((await api('/api/preferences')).body.language, 'en');
    assert.equal((await api('/api/preferences')).body.locale, 'de-DE', 'the format stays German');
    await eventually(async () => assert.equal(await page.evaluate(() => document.documentElement.lang), 'en-DE'));
    // The format choice is named in English, with what it writes.
    assert.equal(await page.getByLabel('Number and date format', { exact: true }).locator('option:checked').innerText(), 'German (Germany)');
    await page.getByText('Written as 1.234,5 · 31.12.26.', { exact: true }).waitFor();
    assert.match(await page.getByLabel('Currency', { exact: true }).locator('option:checked').innerText(), /^Euro \(EUR\)$/);
    assert.doesNotMatch(await mainText(page), GERMAN, 'Settings');

    const month = new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: ZONE }).format(new Date());
    await go(page, '/', 'Home');
    await page.getByRole('heading', { name: `This month (${month})` }).waitFor();
    await page.getByText('1.234,50 €', { exact: true }).first().waitFor();
    assert.doesNotMatch(await mainText(page), GERMAN, 'Home');

    await go(page, '/costs', 'Costs');
    await page.getByText(/due in 2 weeks/i).first().waitFor();
    assert.doesNotMatch(await mainText(page), GERMAN, 'Costs');

    await go(page, '/history', 'History');
    // Dates with English month names, day first as in Germany ("6 Dec 2026, 14:05").
    const day = new Intl.DateTimeFormat('en-DE', { dateStyle: 'medium', timeZone: ZONE }).format(new Date(Date.now() - 3_600_000));
    assert.match(day, /^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    await page.getByRole('heading', { name: new RegExp(`^${day}`) }).first().waitFor();
    await page.getByText('16.480 km').first().waitFor();
    assert.doesNotMatch(await mainText(page), GERMAN, 'History');
  });

  it('screenshots in German and Chinese, phone and desktop (to be looked at)', async () => {
    for (const language of ['de', 'zh']) {
      assert.equal((await api('/api/preferences', { method: 'PUT', body: JSON.stringify({ language }) })).status, 200);
      const names = language === 'de'
        ? { '/': 'Start', '/add': 'Tanken', '/history': 'Verlauf', '/statistics': 'Statistik', '/costs': 'Kosten', '/settings': 'Einstellungen' }
        : { '/': '首页', '/add': '添加加油', '/history': '历史', '/statistics': '统计', '/costs': '费用', '/settings': '设置' };
      for (const [path, name] of Object.entries(names)) {
        await go(page, path, name);
        await page.waitForLoadState('networkidle');
        await shootEverywhere(page, `language-${language}${path === '/' ? '-home' : path.replace('/', '-')}`);
        // Nothing wider than the screen at 390 px (long German words in the bar and the buttons).
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.equal(overflow, 0, `${language} ${path} overflows at 390 px`);
        // No word runs past its card or button (long German compounds), on a phone and on a desktop.
        for (const [width, height] of [[390, 844], [1280, 800]]) {
          await page.setViewportSize({ width, height });
          const past = await page.evaluate(() => [...document.querySelectorAll('main .card, main .card *, main button, nav a')]
            .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent.trim().slice(0, 40)));
          assert.deepEqual(past, [], `${language} ${path} at ${width} px: text past its box`);
        }
        await page.setViewportSize({ width: 390, height: 844 });
      }
    }
    console.log(`screenshots in ${shotsDir}`);
  });

  it('no uncaught error in the whole run', () => {
    assert.deepEqual(pageErrors, []);
  });
});
