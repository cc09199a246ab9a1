// End-to-end, the owner's own measures (issue 17), with accounts on: a
// browser in en-US starts in miles, US gallons, mpg and dollars; a refuel
// typed in gallons and miles is stored in liters and kilometres (read back
// through the API), and mpg shows on the cards, the chart and its table;
// the preferences survive a reload and reach another browser profile of the
// same user; a change made offline is in force at once and sent later; the
// Chinese interface passes axe-core in light and dark. The built client
// behind the real Caddy, against the real services, in Debian's Chromium.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { axeBothSchemes, axeViolations, callApi, eventually, fillWhen, navLink, progressSeen, shootEverywhere, shotsDir, startStack, watchProgress } from './harness.mjs';
import { makePdf } from './pdf.mjs';



const ADMIN = { username: 'admin', password: 'e2e-admin-password-1' };
// The exact factors, for the expected values (the client computes in decimal; these are oracles).
const KM_PER_MI = 1.609344;
const L_PER_GAL_US = 3.785411784;
const L_PER_GAL_UK = 4.54609;

let s;
let page;
let token;
let vehicleId;
const cspViolations = [];
const pageErrors = [];

const api = (path, init = {}) => callApi(s, path, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } });

function watch(p) {
  p.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  p.on('pageerror', (e) => pageErrors.push(String(e)));
  p.on('dialog', (d) => void d.accept());
}

const field = (p, label) => p.getByLabel(label, { exact: true });
const round = (v, places) => Math.round(v * 10 ** places) / 10 ** places;
// Each measure with a fixed number of decimals (README, "Figures").
const fmt = (v, places) => new Intl.NumberFormat('en-US', { minimumFractionDigits: places, maximumFractionDigits: places }).format(round(v, places));
// Money in dollars as en-US writes it, with exactly places decimals (a price 3, a cost per distance 4).
const money = (v, places) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: places, maximumFractionDigits: places }).format(round(v, places));

async function signIn(p) {
  await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await field(p, 'Username').fill(ADMIN.username);
  await field(p, 'Password').fill(ADMIN.password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function nav(p, name) {
  await (await navLink(p, name)).click();
  await p.getByRole('heading', { level: 1, name }).waitFor();
}


/** overflow: how far the page scrolls sideways at its width (0: not at all). */
const overflow = (p) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** card: the value of the card named label (in the group named group, if given). */
const card = (p, label, group) => (group ? p.getByRole('group', { name: group, exact: true }) : p).getByRole('group', { name: label, exact: true }).locator('.card-value');

before(async () => {
  s = await startStack({ auth: ADMIN, locale: 'en-US', timezoneId: 'America/Chicago' });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  watch(page);
  token = await s.login();
});

after(async () => {
  await s?.stop();
});

describe("the owner's own measures", () => {
  it('a first start in en-US reads miles and US gallons on this device, and saves nothing until Settings is saved', async () => {
    assert.deepEqual((await api('/api/preferences')).body.distance_unit, null, 'nothing chosen before the first start');
    await page.goto(s.base + '/add');
    await signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Add refuel' }).waitFor();
    await page.locator('#odometer-unit').filter({ hasText: 'mi' }).waitFor();
    await page.waitForLoadState('networkidle');
    // The browser's guesses stay on this device (web-decisions.md, "Guessed preferences stay on the device").
    const p = (await api('/api/preferences')).body;
    assert.deepEqual([p.distance_unit, p.volume_unit, p.currency, p.locale, p.time_zone, p.language], [null, null, null, null, null, null]);
  });

  it('refuels typed in miles and gallons are stored in km and liters; mpg on the cards, the chart and its table', async () => {
    const v = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Pickup', fuel_type: 'gasoline' }) });
    assert.ok(v.status === 200 || v.status === 201, JSON.stringify(v.body));
    vehicleId = v.body.id;
    await page.goto(s.base + '/add');
    await page.locator('#odometer-unit').filter({ hasText: 'mi' }).waitFor();
    await page.locator('#quantity-unit').filter({ hasText: 'gal' }).waitFor();
    await page.locator('#price-unit').filter({ hasText: '$ per gal' }).waitFor();
    await fillWhen(field(page, 'Date and time'), '2026-03-01T08:00');
    await field(page, 'Odometer').fill('12345');
    await field(page, 'Quantity').fill('10');
    await field(page, 'Price per unit').fill('3.459');
    await eventually(async () => assert.equal(await field(page, 'Total amount').inputValue(), '34.59'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel saved: 10.00 gal, $34.59 — Mar 1, 2026.' }).waitFor();
    await fillWhen(field(page, 'Date and time'), '2026-03-10T08:00');
    await field(page, 'Odometer').fill('12645');
    await field(page, 'Quantity').fill('10');
    await field(page, 'Total amount').fill('35');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel saved: 10.00 gal, $35.00 — Mar 10, 2026.' }).waitFor();
    // The placeholder is the last reading, in miles again.
    await page.waitForFunction(() => document.querySelector('#odometer')?.getAttribute('placeholder') === '12645');

    // The API keeps the contract's units: km and liters at 3 places.
    const records = (await api(`/api/refuels?vehicle_id=${v.body.id}`)).body;
    assert.deepEqual(records.map((r) => [r.odometer, r.liters, r.total_amount, r.unit]), [
      [20350.155, 37.854, 35, 'l'], // 12645 x 1.609344 = 20350.15488; 10 x 3.785411784 = 37.85411784
      [19867.352, 37.854, 34.59, 'l'], // 12345 x 1.609344 = 19867.35168
    ]);
    const st = (await api(`/api/vehicles/${v.body.id}/statistics`)).body;
    const [gas] = st.by_energy;
    const mpg = (100 * L_PER_GAL_US) / KM_PER_MI / gas.weighted_consumption;
    assert.ok(Math.abs(mpg - 30) < 0.05, `the service's average is 30 mpg (${mpg})`);

    await nav(page, 'History');
    const newest = page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').first();
    await newest.getByText('12,645 mi', { exact: true }).waitFor();
    await newest.getByText('300 mi', { exact: true }).waitFor();
    await newest.getByText('10.00 gal (full)', { exact: true }).waitFor();
    await newest.getByText('$35.00', { exact: true }).waitFor();
    await newest.getByText('$3.500/gal', { exact: true }).waitFor();
    await newest.getByText('30.0 mpg over 300 mi', { exact: true }).waitFor();

    await nav(page, 'Statistics');
    assert.equal(await card(page, 'Distance').textContent(), `${fmt(st.total_distance / KM_PER_MI, 0)} mi`);
    assert.equal(await card(page, 'Distance').textContent(), '300 mi');
    assert.equal(await card(page, 'Average consumption', 'Gasoline').textContent(), `${fmt(mpg, 1)} mpg`);
    assert.equal(await card(page, 'Average consumption', 'Gasoline').textContent(), '30.0 mpg');
    assert.equal(await card(page, 'Gasoline quantity', 'Gasoline').textContent(), `${fmt(gas.total_quantity / L_PER_GAL_US, 2)} gal`);
    assert.equal(await card(page, 'Total spent').textContent(), '$69.59');
    // One price per unit: the one paid (all the money over all the gallons).
    assert.equal(await card(page, 'Price paid per unit', 'Gasoline').textContent(), `${money((gas.total_amount / gas.total_quantity) * L_PER_GAL_US, 3)}/gal`);
    assert.match(await card(page, 'Price paid per unit', 'Gasoline').textContent(), /^\$3\.\d{3}\/gal$/);
    assert.equal(await page.getByRole('group', { name: 'Mean of fill prices' }).count(), 0);
    assert.equal(await card(page, 'Fuel cost per mi', 'Gasoline').textContent(), money(gas.weighted_cost_per_km * KM_PER_MI, 4));
    assert.match(await card(page, 'Fuel cost per mi', 'Gasoline').textContent(), /^\$0\.\d{4}$/);

    const months = (await api(`/api/vehicles/${v.body.id}/statistics/monthly?energy=gasoline&tz=America%2FChicago`)).body;
    const fig = page.getByRole('figure', { name: 'Consumption (mpg)', exact: true });
    await fig.locator('canvas').waitFor();
    await fig.getByRole('button', { name: 'Show as table' }).click();
    await eventually(async () => {
      const rows = await fig.getByRole('rowheader').allInnerTexts();
      const cells = await fig.getByRole('cell').allInnerTexts();
      assert.deepEqual([rows, cells], [months.map((m) => m.month), months.map((m) => fmt((100 * L_PER_GAL_US) / KM_PER_MI / m.consumption, 1))]);
    });
    assert.deepEqual(await fig.getByRole('cell').allInnerTexts(), ['30.0']);
    await page.getByRole('figure', { name: 'Price per unit (per gal)', exact: true }).waitFor();
    await page.getByText('Calendar months in America/Chicago.').waitFor();

    // The vehicle's odometer followed the refuels (it was made without one), in miles; the owner may set it.
    assert.equal(v.body.current_odometer, 0);
    await nav(page, 'Vehicles');
    const pickup = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Pickup' }) });
    await pickup.getByText('12,645 mi', { exact: true }).waitFor();
    await pickup.getByRole('button', { name: 'Edit' }).click();
    const odometer = page.getByRole('form', { name: 'Edit Pickup' }).getByLabel('Current odometer');
    assert.equal(await odometer.inputValue(), '12645');
    await odometer.fill('12700.5');
    await page.getByRole('button', { name: 'Save vehicle' }).click();
    // The card shows whole miles (README, "Figures"): 20439.473 km is 12,700.4998 mi.
    await pickup.getByText('12,700 mi', { exact: true }).waitFor();
    assert.equal((await api(`/api/vehicles/${v.body.id}`)).body.current_odometer, 20439.473); // 12700.5 x 1.609344 = 20439.4734...
    await page.getByRole('status').filter({ hasText: /^Pickup updated\.$/ }).waitFor();
    // Below the last refuel's reading: kept, but the vehicle shows the reading, and says why.
    await pickup.getByRole('button', { name: 'Edit' }).click();
    await odometer.fill('12000');
    await page.getByRole('button', { name: 'Save vehicle' }).click();
    await page.getByRole('status').filter({ hasText: 'Pickup updated. Its odometer shows 12,645 mi: a refuel has read that much.' }).waitFor();
    await pickup.getByText('12,645 mi', { exact: true }).waitFor();
    assert.equal((await api(`/api/vehicles/${v.body.id}`)).body.current_odometer, 20350.155);
  });

  it('Settings: a change is saved, survives a reload and reaches another browser profile of the same user', async () => {
    await nav(page, 'Settings');
    assert.equal(await overflow(page), 0, 'Settings at 390 px');
    assert.equal(await field(page, 'Distance').inputValue(), 'mi');
    assert.equal(await field(page, 'Currency').inputValue(), 'USD');
    await field(page, 'Consumption of liquid fuels').selectOption('mpg_uk');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    assert.equal((await api('/api/preferences')).body.consumption_unit, 'mpg_uk');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await eventually(async () => assert.equal(await field(page, 'Consumption of liquid fuels').inputValue(), 'mpg_uk'));

    const other = await s.newProfile();
    try {
      const p2 = other.pages()[0] ?? (await other.newPage());
      watch(p2);
      await p2.goto(s.base + '/statistics');
      await signIn(p2);
      await p2.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
      const st = (await api(`/api/vehicles/${vehicleId}/statistics`)).body;
      const mpgUk = (100 * L_PER_GAL_UK) / KM_PER_MI / st.by_energy[0].weighted_consumption;
      await eventually(async () => assert.equal(await card(p2, 'Average consumption', 'Gasoline').textContent(), `${fmt(mpgUk, 1)} mpg (UK)`));
      assert.equal(await card(p2, 'Average consumption', 'Gasoline').textContent(), '36.0 mpg (UK)');
      await nav(p2, 'Settings');
      assert.equal(await field(p2, 'Consumption of liquid fuels').inputValue(), 'mpg_uk');
      assert.equal(await field(p2, 'Distance').inputValue(), 'mi');
    } finally {
      await other.close();
    }
  });

  it('offline, a change is in force at once, also after a reload, and sent when the connection returns', async () => {
    await page.goto(s.base + '/settings');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await page.waitForLoadState('networkidle');
    await s.context.setOffline(true);
    try {
      await field(page, 'Distance').selectOption('km');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved on this device' }).waitFor();
      await nav(page, 'Statistics');
      await eventually(async () => assert.equal(await card(page, 'Distance').textContent(), '483 km'));
      assert.equal((await api('/api/preferences')).body.distance_unit, 'mi', 'nothing reached the server yet');
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
      await eventually(async () => assert.equal(await card(page, 'Distance').textContent(), '483 km'));
    } finally {
      await s.context.setOffline(false);
    }
    await eventually(async () => assert.equal((await api('/api/preferences')).body.distance_unit, 'km'));
    // mpg (UK) and mi/kWh belong to miles: they followed the distance to L/100 km and kWh/100 km.
    const p = (await api('/api/preferences')).body;
    assert.deepEqual([p.consumption_unit, p.electric_consumption_unit], ['l_per_100km', 'kwh_per_100km']);
    assert.deepEqual([p.volume_unit, p.currency], ['gal_us', 'USD'], 'a patch: the other fields kept');
  });

  it('unit systems: US sets miles, US gallons and mpg together; distance alone to km moves the consumptions along; Custom when they match no system', async () => {
    await page.goto(s.base + '/settings');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    const system = field(page, 'Unit system');
    const values = async () => Promise.all(['Distance', 'Volume of liquid fuels', 'Consumption of liquid fuels', 'Consumption of electricity', 'Consumption of gas (CNG, hydrogen)']
      .map((l) => field(page, l).inputValue()));
    // km with US gallons (left by the offline change) is no system.
    await eventually(async () => assert.deepEqual(await values(), ['km', 'gal_us', 'l_per_100km', 'kwh_per_100km', 'kg_per_100km']));
    assert.equal(await system.inputValue(), 'custom');
    assert.equal(await system.locator('option:checked').textContent(), 'Custom');

    await system.selectOption('us');
    assert.deepEqual(await values(), ['mi', 'gal_us', 'mpg_us', 'mi_per_kwh', 'kg_per_100km']);
    assert.equal(await system.locator('option:checked').textContent(), 'US (miles, US gallons, mpg)');
    assert.equal(await system.locator('option[value="custom"]').count(), 0, 'Custom is offered only while the units match no system');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    let p = (await api('/api/preferences')).body;
    assert.deepEqual([p.distance_unit, p.volume_unit, p.consumption_unit, p.electric_consumption_unit, p.gas_consumption_unit], ['mi', 'gal_us', 'mpg_us', 'mi_per_kwh', 'kg_per_100km']);
    await nav(page, 'Statistics');
    await eventually(async () => assert.equal(await card(page, 'Average consumption', 'Gasoline').textContent(), '30.0 mpg'));
    assert.equal(await card(page, 'Distance').textContent(), '300 mi');

    // From US, only the distance to km: the consumptions follow (mpg and mi/kWh are miles' units),
    // the gallons stay, and the system reads Custom. Said under the selects before saving.
    await nav(page, 'Settings');
    await field(page, 'Distance').selectOption('km');
    assert.deepEqual(await values(), ['km', 'gal_us', 'l_per_100km', 'kwh_per_100km', 'kg_per_100km']);
    assert.equal(await system.inputValue(), 'custom');
    await page.getByText('Consumption of liquid fuels followed: Litres per 100 km (L/100 km). Consumption of electricity followed: kWh per 100 km.', { exact: true }).waitFor();
    await shootEverywhere(page, 'settings-units');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    p = (await api('/api/preferences')).body;
    assert.deepEqual([p.distance_unit, p.volume_unit, p.consumption_unit, p.electric_consumption_unit], ['km', 'gal_us', 'l_per_100km', 'kwh_per_100km']);
    await nav(page, 'Statistics');
    const st = (await api(`/api/vehicles/${vehicleId}/statistics`)).body;
    // 37.854 L over 482.803 km = 7.8405… L/100 km.
    await eventually(async () => assert.equal(await card(page, 'Average consumption', 'Gasoline').textContent(), `${fmt(st.by_energy[0].weighted_consumption, 2)} L/100 km`));
    assert.equal(await card(page, 'Average consumption', 'Gasoline').textContent(), '7.84 L/100 km');

    // A volume change moves mpg to the gallon of the volume: US, volume to litres is the UK system.
    await nav(page, 'Settings');
    await system.selectOption('us');
    await field(page, 'Volume of liquid fuels').selectOption('l');
    assert.deepEqual(await values(), ['mi', 'l', 'mpg_uk', 'mi_per_kwh', 'kg_per_100km']);
    assert.equal(await system.inputValue(), 'uk');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    assert.equal((await api('/api/preferences')).body.consumption_unit, 'mpg_uk');
    assert.deepEqual(await axeBothSchemes(page), []);
  });

  it('the Chinese interface passes axe-core on every page, light and dark, and nothing overflows at 390 px', async () => {
    await page.goto(s.base + '/settings');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    // The language and the number format are two choices (web-decisions.md, "One language per screen").
    await field(page, 'Language').selectOption('zh');
    await field(page, 'Number and date format').selectOption('zh-CN');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('heading', { level: 1, name: '设置' }).waitFor();
    await page.getByRole('status').filter({ hasText: '设置已保存。' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.equal((await api('/api/preferences')).body.locale, 'zh-CN');
    assert.equal((await api('/api/preferences')).body.language, 'zh');
    const found = [];
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [path, heading] of [['/', '首页'], ['/add', '添加加油'], ['/history', '历史'], ['/statistics', '统计'], ['/vehicles', '车辆'], ['/manuals', '手册'], ['/ask', '提问'], ['/settings', '设置']]) {
        await page.goto(s.base + path);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await page.waitForLoadState('networkidle');
        const violations = await axeViolations(page);
        for (const v of violations) found.push(`${scheme} ${path}: ${v}`);
        const wide = await overflow(page);
        if (wide !== 0) found.push(`${scheme} ${path}: scrolls sideways by ${wide} px at 390 px`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
    // The figures in Chinese too: the navigation, the cards by their Chinese names.
    await page.goto(s.base + '/statistics');
    await (await navLink(page, '设置', { label: '主导航', more: '更多' })).waitFor();
    await eventually(async () => assert.equal(await card(page, '平均油耗', '汽油').textContent(), '36.0 英里/英制加仑'));
    assert.equal(await card(page, '总花费').textContent(), 'US$69.59'); // dollars as zh-CN writes them
  });

  it('Chinese: a plug-in hybrid reads per 100 km of all driving, History names the km, light and dark, phone and desktop', async () => {
    // Petrol 10 000 km; a charge at 10 100 km; another at 10 150 km (5 kWh over 50 km = 10 kWh per
    // 100 km driven); petrol 28.5 L at 10 500 km (over 500 km: 5.70 L/100 km, 350 km since the charge).
    // The units are the UK system's (mi, L, mpg UK, mi/kWh), chosen before: 500 km = 310.686 mi;
    // 28.5 L / 500 km = 5.7 L/100 km = 282.4809… / 5.7 = 49.6 mpg (UK); 10 kWh/100 km = 62.1371… / 10 = 6.21 mi/kWh.
    const v = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Outlander', fuel_type: 'plug_in_hybrid' }) });
    for (const [i, [energy, odometer, liters, total_amount]] of [['gasoline', 10000, 40, 70], ['electricity', 10100, 8, 2.4], ['electricity', 10150, 5, 1.5], ['gasoline', 10500, 28.5, 51.3]].entries()) {
      const r = await api('/api/refuels', { method: 'POST', body: JSON.stringify({ vehicle_id: v.body.id, refuel_time: `2026-04-0${i + 1}T12:00:00Z`, fuel_type: 'x', energy, odometer, liters, total_amount, is_full: true }) });
      assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
    }
    await page.goto(s.base + '/statistics');
    await page.getByRole('heading', { level: 1, name: '统计' }).waitFor();
    await field(page, '车辆').selectOption(String(v.body.id));
    await eventually(async () => assert.equal(await card(page, '每千瓦时行驶英里数（所有能源）', '电').textContent(), '6.21 英里/千瓦时'));
    assert.equal(await card(page, '每英制加仑行驶英里数（所有能源）', '汽油').textContent(), '49.6 英里/英制加仑');
    const note = page.getByRole('group', { name: '汽油', exact: true }).getByRole('group', { name: '每英制加仑行驶英里数（所有能源）', exact: true }).locator('.card-note');
    assert.equal(await note.textContent(), '这种能源两次加满之间，基于以任何能源行驶的 311 英里');
    // 51.30 / 500 km + 1.50 / 50 km = 0.1026 + 0.03 = 0.1326 per km = 0.2134 per mi.
    assert.equal(await card(page, '每英里燃料费用（所有能源）').textContent(), 'US$0.2134');
    await shootEverywhere(page, 'zh-phev-statistics');
    await page.goto(s.base + '/history');
    await page.getByRole('heading', { level: 1, name: '历史' }).waitFor();
    await field(page, '车辆').selectOption(String(v.body.id));
    const newest = page.getByRole('list', { name: '加油记录' }).getByRole('listitem').first();
    await newest.getByText('49.6 英里/英制加仑，基于 311 英里', { exact: true }).waitFor();
    await newest.getByText('按总行驶里程计（所有能源）', { exact: true }).waitFor();
    assert.deepEqual(await axeBothSchemes(page), []);
    await page.screenshot({ path: join(shotsDir, 'zh-phev-history-390-light.png') });
  });

  it('Chinese: a manual of 1 page and of 2 pages, counted with the measure word, the progress in Chinese', async () => {
    for (const pages of [1, 2]) {
      const name = `zh-${pages}.pdf`;
      await page.goto(s.base + '/manuals');
      await page.getByRole('heading', { level: 1, name: '手册' }).waitFor();
      await watchProgress(page);
      const pdf = makePdf(Array.from({ length: pages }, (_, i) => [`Page ${i + 1}.`, 'Check the tyre pressure every month when the tyres are cold.']));
      await page.getByLabel('上传 PDF', { exact: true }).setInputFiles({ name, mimeType: 'application/pdf', buffer: pdf });
      const status = page.getByRole('status').filter({ hasText: name });
      await status.waitFor({ timeout: 60_000 });
      const doc = (await api('/api/documents')).body.find((d) => d.fileName === name);
      assert.equal(await status.textContent(), `已保存 ${name}：${pages} 页，${doc.chunks} 个段落。`);
      const lines = await progressSeen(page);
      assert.ok(lines.length > 0);
      // Every line is one of the Chinese phrases, none the service's English message.
      for (const l of lines) assert.match(l, /^(正在发送：.+ \/ .+|已接收 .+|排队中：第 \d+ 位|正在读取第 \d+ 页，共 \d+ 页|已切分为 \d+ 个段落|正在索引段落：\d+ \/ \d+|正在保存 \d+ 个段落)$/, l);
      const item = page.getByRole('list', { name: '手册' }).getByRole('listitem').filter({ has: page.getByRole('heading', { name }) });
      assert.match(await item.locator('p').last().textContent(), new RegExp(`^${pages} 页 · `));
    }
  });

  it('no CSP violation and no uncaught error in the whole run', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});
