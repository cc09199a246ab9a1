// End-to-end, a vehicle's specifications card (issue 55), accounts off, no
// chat model (docqa's rules read the manual), a browser in en-US on a
// 390x844 phone, so the owner reads miles and, with them, psi: a generated
// manual whose printed pages are numbered 210 to 212 is linked to the
// vehicle through the API; the card, opened on the Vehicles page, lists
// each value with its label, the tyre pressures converted to psi with the
// bar the manual printed beside them, and "From the manual, p. 212" opens
// that page (the third of the file) in the page view, which the back button
// closes. The answer is asked once per manual and session, and kept on the
// device for when docqa cannot be reached. Screenshots light
// and dark; axe-core finds nothing serious in either scheme. Then the card
// in a German browser with a German manual.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, callApi, shootEverywhere, startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';

let s;
let page;
let c5;
let md5;
const pageErrors = [];

// The en-manual of services/docqa/testdata/specifications, shortened: a
// capacities table, a tyre placard by load in "bar / psi", prose.
const manual = makePdf([
  ['C5 Owner\'s Manual', 'Welcome. Read this manual before you drive.'],
  [
    'Technical data',
    'Power 110 kW (150 PS) at 5,000 rpm',
    'Fluids and capacities',
    'Engine oil SAE 0W-30, ACEA C2 4.3 l',
    'Coolant G13 (TL 774 J) 6.5 l',
    'Fuel Unleaded 95 RON (E10) 50 l',
    'The battery (12 V, 60 Ah) is under the boot floor.',
  ],
  [
    'Wheels and tyres',
    'Check the pressures when the tyres are cold, at least once a month.',
    'Tyre pressure Normal load Full load',
    'Front 2.3 bar / 33 psi 2.5 bar / 36 psi',
    'Rear 2.1 bar / 30 psi 2.9 bar / 42 psi',
    'Tighten the wheel bolts to 140 Nm and check them again after 50 km.',
  ],
], { title: 'C5 Owner\'s Manual', pageLabels: '<< /Nums [0 << /S /D /St 210 >>] >>' });

const api = async (path, method = 'GET', body) => {
  const res = await callApi(s, path, body === undefined ? { method } : { method, body: JSON.stringify(body) });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

before(async () => {
  s = await startStack({ locale: 'en-US', timezoneId: 'America/Chicago', chatModel: false });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  c5 = await api('/api/vehicles', 'POST', { name: 'C5', fuel_type: 'gasoline', default_vehicle: true });
  const form = new FormData();
  form.append('file', new Blob([manual], { type: 'application/pdf' }), 'c5-manual.pdf');
  const up = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
  assert.equal(up.status, 200, await up.text());
  md5 = (await api('/api/documents')).find((d) => d.fileName === 'c5-manual.pdf').fileMd5;
  await api(`/api/vehicles/${c5.id}`, 'PUT', { manual_md5s: [md5] });
});

after(async () => {
  await s?.stop();
});

describe('the specifications card', () => {
  it('docqa\'s rules read the manual: each value with its page', async () => {
    const specs = await api(`/api/documents/${md5}/specifications`, 'POST');
    assert.equal(specs.mode, 'rules');
    const byKey = Object.fromEntries(specs.items.map((i) => [i.key, [i.value, i.quantity, i.unit, i.page, i.pageLabel]]));
    assert.deepEqual(byKey, {
      engine_oil_grade: ['SAE 0W-30', null, '', 2, '211'],
      engine_oil_capacity: ['4.3 l', '4.3', 'l', 2, '211'],
      tyre_pressure_front: ['2.3 bar', '2.3', 'bar', 3, '212'],
      tyre_pressure_rear: ['2.1 bar', '2.1', 'bar', 3, '212'],
      tyre_pressure_front_full_load: ['2.5 bar', '2.5', 'bar', 3, '212'],
      tyre_pressure_rear_full_load: ['2.9 bar', '2.9', 'bar', 3, '212'],
      fuel_grade: ['95 RON', '95', 'RON', 2, '211'],
      coolant: ['G13 (TL 774 J)', null, '', 2, '211'],
      wheel_bolt_torque: ['140 Nm', '140', 'Nm', 3, '212'],
      battery: ['60 Ah', '60', 'Ah', 2, '211'],
    });
  });

  it('shows them on the vehicle in psi, with the printed bar, and opens the cited page', async () => {
    const asked = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/api/documents/${md5}/specifications`)) asked.push(r.url());
    });
    const pages = [];
    page.on('request', (r) => {
      const m = /\/api\/documents\/[0-9a-f]{32}\/pages\/(\d+)\.png/.exec(r.url());
      if (m) pages.push(Number(m[1]));
    });
    await page.goto(`${s.base}/vehicles`);
    const car = page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 2, name: 'C5' }) });
    await car.getByRole('heading', { level: 3, name: 'Specifications' }).waitFor();
    assert.equal(asked.length, 0, 'asked on request, not on view');
    await car.getByRole('button', { name: 'Show the manual’s specifications' }).click();
    const list = car.getByRole('list', { name: 'Specifications from C5 Owner\'s Manual' });
    await list.waitFor();
    await car.getByText('From C5 Owner\'s Manual', { exact: true }).waitFor();
    await car.getByText('Read by rules, as no AI model is configured: check each value against its page.').waitFor();
    const rows = await list.getByRole('listitem').evaluateAll((lis) => lis.map((li) => [...li.children].map((c) => c.textContent)));
    assert.deepEqual(rows, [
      ['Engine oil', 'SAE 0W-30', 'From the manual, p. 211'],
      ['Engine oil capacity (with filter)', '4.3 l', 'From the manual, p. 211'],
      ['Tyre pressure, front', '33 psi (2.3 bar as printed)', 'From the manual, p. 212'],
      ['Tyre pressure, rear', '30 psi (2.1 bar as printed)', 'From the manual, p. 212'],
      ['Tyre pressure, front, full load', '36 psi (2.5 bar as printed)', 'From the manual, p. 212'],
      ['Tyre pressure, rear, full load', '42 psi (2.9 bar as printed)', 'From the manual, p. 212'],
      ['Fuel', '95 RON', 'From the manual, p. 211'],
      ['Coolant', 'G13 (TL 774 J)', 'From the manual, p. 211'],
      ['Wheel bolt torque', '140 Nm', 'From the manual, p. 212'],
      ['Battery', '60 Ah', 'From the manual, p. 211'],
    ]);
    assert.equal(asked.length, 1, 'one POST for the one manual');

    await page.evaluate(() => window.scrollTo(0, 0));
    await shootEverywhere(page, 'specs');
    assert.deepEqual(await axeBothSchemes(page), []);
    // Nothing is cut off at the phone's width: the page does not scroll sideways.
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);

    // The front tyres' page: the third of the file, printed 212.
    const front = list.getByRole('listitem').filter({ hasText: 'Tyre pressure, front' }).first();
    await front.getByRole('button', { name: 'From the manual, p. 212' }).click();
    const dialog = page.getByRole('dialog', { name: 'c5-manual.pdf, p. 212' });
    await dialog.waitFor();
    await dialog.getByRole('img', { name: 'Page 212 of c5-manual.pdf' }).waitFor();
    const url = new URL(page.url());
    assert.equal(url.pathname, '/vehicles');
    assert.equal(url.searchParams.get('doc'), md5);
    assert.equal(url.searchParams.get('page'), '3');
    assert.equal(url.searchParams.get('label'), '212');
    assert.ok(pages.length > 0 && pages.every((p) => p === 3), `page images asked: ${pages}`);
    await shootEverywhere(page, 'specs-page', { fullPage: false });
    // The phone's back button closes the view and leaves the card as it was.
    await page.goBack();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(new URL(page.url()).search, '');
    await list.waitFor();

    // Hidden and shown again, and after a visit to another page: this session's answer, not another POST.
    await car.getByRole('button', { name: 'Hide the specifications' }).click();
    await list.waitFor({ state: 'detached' });
    await car.getByRole('button', { name: 'Show the manual’s specifications' }).click();
    await list.waitFor();
    await page.getByRole('link', { name: 'History' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'History' }).waitFor();
    await page.goBack();
    await list.waitFor();
    assert.equal(asked.length, 1, 'asked once this session');

    // A new session without docqa (the request fails as offline): the answer kept on this device, "as of" its time.
    await page.route('**/specifications', (r) => r.abort('internetdisconnected'));
    await page.reload();
    await car.getByRole('button', { name: 'Show the manual’s specifications' }).click();
    await list.waitFor();
    await car.getByText(/^Offline: showing the data as of /).waitFor();
    assert.equal(await list.getByText('33 psi (2.3 bar as printed)', { exact: true }).count(), 1);
    await page.unroute('**/specifications');
    assert.deepEqual(pageErrors, []);
  });
});

// The same card in a German browser (de-DE, km, so bar as printed): a German
// manual's values stay as it prints them, decimal commas and all ("5,2 Liter",
// "2,4 bar"), under German labels, and the cited page is its printed number.
describe('the specifications card in a German browser', () => {
  let de;
  let dePage;
  let d4;
  let deMd5;
  const deErrors = [];
  const deManual = makePdf([
    ['Betriebsanleitung D4', 'Lesen Sie diese Anleitung vor der ersten Fahrt.'],
    [
      'Betriebsstoffe',
      'Verwenden Sie nur Motoröl der Viskosität SAE 5W-30 nach VW-Norm 507 00.',
      'Die Motorölfüllmenge beträgt mit Filterwechsel 5,2 Liter.',
      'Die Batterie (12 V, 68 Ah) befindet sich im Motorraum.',
    ],
    [
      'Räder und Reifen',
      'Reifendruck bei kalten Reifen, Reifengröße 225/45 R17 94W:',
      'Beladung vorn hinten',
      'Normale Beladung 2,4 bar (240 kPa) 2,3 bar (230 kPa)',
      'Volle Beladung 2,7 bar (270 kPa) 3,1 bar (310 kPa)',
      'Das Anzugsmoment der Radschrauben beträgt 120 Nm.',
    ],
  ], { title: 'Betriebsanleitung D4', pageLabels: '<< /Nums [0 << /S /D /St 40 >>] >>' });

  const deApi = async (path, method = 'GET', body) => {
    const res = await callApi(de, path, body === undefined ? { method } : { method, body: JSON.stringify(body) });
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  before(async () => {
    de = await startStack({ locale: 'de-DE', timezoneId: 'Europe/Berlin', chatModel: false });
    dePage = de.context.pages()[0] ?? (await de.context.newPage());
    dePage.on('pageerror', (e) => deErrors.push(String(e)));
    d4 = await deApi('/api/vehicles', 'POST', { name: 'D4', fuel_type: 'diesel', default_vehicle: true });
    const form = new FormData();
    form.append('file', new Blob([deManual], { type: 'application/pdf' }), 'd4-handbuch.pdf');
    const up = await fetch(`${de.base}/api/documents/upload`, { method: 'POST', body: form });
    assert.equal(up.status, 200, await up.text());
    deMd5 = (await deApi('/api/documents')).find((d) => d.fileName === 'd4-handbuch.pdf').fileMd5;
    await deApi(`/api/vehicles/${d4.id}`, 'PUT', { manual_md5s: [deMd5] });
  });

  after(async () => {
    await de?.stop();
  });

  it('lists the values as the manual prints them, under German labels, and opens the cited page', async () => {
    await dePage.goto(`${de.base}/vehicles`);
    const car = dePage.getByRole('listitem').filter({ has: dePage.getByRole('heading', { level: 2, name: 'D4' }) });
    await car.getByRole('heading', { level: 3, name: 'Technische Daten' }).waitFor();
    await car.getByRole('button', { name: 'Technische Daten aus dem Handbuch anzeigen' }).click();
    const list = car.getByRole('list', { name: 'Technische Daten aus Betriebsanleitung D4' });
    await list.waitFor();
    await car.getByText('Nach Regeln gelesen, da kein KI-Modell eingerichtet ist: Prüfen Sie jeden Wert anhand seiner Seite.').waitFor();
    const rows = await list.getByRole('listitem').evaluateAll((lis) => lis.map((li) => [...li.children].map((c) => c.textContent)));
    assert.deepEqual(rows, [
      ['Motoröl', 'SAE 5W-30', 'Aus dem Handbuch, S. 41'],
      ['Motoröl-Füllmenge (mit Filter)', '5,2 Liter', 'Aus dem Handbuch, S. 41'],
      ['Reifendruck vorn', '2,4 bar', 'Aus dem Handbuch, S. 42'],
      ['Reifendruck hinten', '2,3 bar', 'Aus dem Handbuch, S. 42'],
      ['Reifendruck vorn, volle Beladung', '2,7 bar', 'Aus dem Handbuch, S. 42'],
      ['Reifendruck hinten, volle Beladung', '3,1 bar', 'Aus dem Handbuch, S. 42'],
      ['Anzugsmoment der Radschrauben', '120 Nm', 'Aus dem Handbuch, S. 42'],
      ['Batterie', '68 Ah', 'Aus dem Handbuch, S. 41'],
    ]);
    await dePage.evaluate(() => window.scrollTo(0, 0));
    await shootEverywhere(dePage, 'specs-de');
    assert.equal(await dePage.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);

    const front = list.getByRole('listitem').filter({ hasText: 'Reifendruck vorn' }).first();
    await front.getByRole('button', { name: 'Aus dem Handbuch, S. 42' }).click();
    await dePage.getByRole('dialog', { name: 'd4-handbuch.pdf, S. 42' }).waitFor();
    assert.equal(new URL(dePage.url()).searchParams.get('page'), '3');
    assert.deepEqual(deErrors, []);
  });
});

