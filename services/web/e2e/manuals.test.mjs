// The manual belongs to the car: a manual linked to its vehicle right after
// the upload, named on Vehicles, and Ask scoped to the current vehicle's
// manuals with one tap to ask every manual.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, eventually, navLink, shootEverywhere, startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';

let s;
let page;

// Two manuals that both answer the tyre question: which one answers says
// which manuals were asked.
const golfManual = makePdf([
  ['Tyre pressure. The Golf tyre pressure is 2.3 bar at the front and 2.1 bar at the rear.'],
  ['Wipers. Replace the Golf wiper blades every year.'],
]);
const vanManual = makePdf([
  ['Tyre pressure. The Van tyre pressure is 3.5 bar at the front and 4.0 bar at the rear when loaded.'],
  ['Tyre pressure when empty. The Van tyre pressure is 3.0 bar all round.'],
]);
const STALE = '0'.repeat(31) + '1'; // a document docqa never held (deleted since)

const api = async (method, path, body) => {
  const res = await fetch(`${s.base}${path}`, { method, headers: body ? { 'Content-Type': 'application/json' } : {}, body: body && JSON.stringify(body) });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
};
const md5Of = async (fileName) => (await api('GET', '/api/documents')).find((d) => d.fileName === fileName).fileMd5;

async function ask(question) {
  await page.getByLabel('Question', { exact: true }).fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('.answer')?.getAttribute('aria-busy') === 'false');
  const quoted = await page.getByRole('list', { name: 'Sources', exact: true }).getByRole('link').allInnerTexts();
  const more = page.locator('details.more-sources');
  const rest = (await more.count()) > 0 ? await more.getByRole('link').allTextContents() : [];
  return { answer: page.getByRole('region', { name: 'Answer' }), files: [...quoted, ...rest].map((l) => l.replace(/, p\. \d+$/, '')) };
}

before(async () => {
  s = await startStack({ chatModel: false });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  await api('POST', '/api/vehicles', { name: 'Golf', fuel_type: 'gasoline', default_vehicle: true });
  await api('POST', '/api/vehicles', { name: 'Van', fuel_type: 'diesel' });
  const form = new FormData();
  form.append('file', new Blob([vanManual], { type: 'application/pdf' }), 'van-manual.pdf');
  const res = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
  assert.equal(res.status, 200, await res.text());
});

after(async () => {
  await s?.stop();
});

describe('the manual belongs to the car', () => {
  it('asks which vehicle a new manual is for, the current one chosen, and links it', async () => {
    await page.goto(`${s.base}/manuals`);
    await page.getByLabel('Upload a PDF').setInputFiles({ name: 'golf-manual.pdf', mimeType: 'application/pdf', buffer: golfManual });
    const question = page.getByRole('region', { name: 'Which vehicle is golf-manual.pdf for?' });
    await question.waitFor();
    assert.equal(await question.getByLabel('Vehicle').inputValue(), String((await api('GET', '/api/vehicles')).find((v) => v.name === 'Golf').id));
    await shootEverywhere(page, 'manuals-link');
    await question.getByRole('button', { name: 'Link to vehicle' }).click();
    await page.getByText('golf-manual.pdf is now a manual of Golf.').waitFor();
    assert.equal(await question.count(), 0, 'the question goes once answered');
    const golf = (await api('GET', '/api/vehicles')).find((v) => v.name === 'Golf');
    assert.deepEqual(golf.manual_md5s, [await md5Of('golf-manual.pdf')]);
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'golf-manual.pdf' }) });
    await item.getByText('Manual of Golf', { exact: true }).waitFor();
    const van = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'van-manual.pdf' }) });
    assert.equal(await van.getByText('Manual of', { exact: false }).count(), 0, 'an unlinked manual names no vehicle');
  });

  it('asks the current vehicle\'s manual first and says so; one tap asks every manual', async () => {
    await page.goto(`${s.base}/ask`);
    await page.getByText("Asking Golf's manual: golf-manual.pdf.").waitFor();
    let { answer, files } = await ask('What is the tyre pressure?');
    await answer.getByText("From Golf's manual", { exact: true }).waitFor();
    assert.ok(files.length > 0, 'the answer has sources');
    assert.deepEqual([...new Set(files)], ['golf-manual.pdf'], `only the Golf's manual answers: ${files}`);
    assert.deepEqual(await axeBothSchemes(page), []);
    await shootEverywhere(page, 'ask-vehicle-scope');

    await page.getByRole('button', { name: 'Ask every manual' }).click();
    await page.getByText('Asking every manual.').waitFor();
    ({ answer, files } = await ask('What is the tyre pressure of the Van when loaded?'));
    assert.equal(await answer.getByText("From Golf's manual").count(), 0);
    assert.equal(files[0], 'van-manual.pdf', `every manual: the Van's page ranks first: ${files}`);
    await page.getByRole('button', { name: "Ask only Golf's manual" }).waitFor();
  });

  it('a vehicle without a manual asks every manual and says where to link one', async () => {
    await page.goto(`${s.base}/add`);
    await page.getByLabel('Vehicle', { exact: true }).selectOption({ label: 'Van' });
    // The vehicle chosen is the app's state: go to Ask within the app.
    await (await navLink(page, 'Ask')).click();
    await page.getByText('No manual is linked to Van: asking every manual.').waitFor();
    await page.getByRole('link', { name: 'Link one on Vehicles' }).waitFor();
    const { files } = await ask('What is the Golf tyre pressure?');
    assert.ok(files.includes('golf-manual.pdf') && files.includes('van-manual.pdf'), `both manuals asked: ${files}`);
  });

  it('Vehicles names and edits the links; a save drops the link to a document docqa no longer lists', async () => {
    const golf = (await api('GET', '/api/vehicles')).find((v) => v.name === 'Golf');
    const golfMd5 = await md5Of('golf-manual.pdf');
    await api('PUT', `/api/vehicles/${golf.id}`, { manual_md5s: [STALE, golfMd5] });
    await page.goto(`${s.base}/vehicles`);
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Golf' }) });
    await card.getByText('golf-manual.pdf', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit Golf' });
    const picker = form.getByRole('group', { name: 'Manuals' });
    assert.equal(await picker.getByLabel('golf-manual.pdf').isChecked(), true);
    assert.equal(await picker.getByLabel('van-manual.pdf').isChecked(), false);
    await picker.getByLabel('van-manual.pdf').check();
    await shootEverywhere(page, 'vehicles-manuals');
    await form.getByRole('button', { name: 'Save vehicle' }).click();
    await page.getByText('Golf updated.').waitFor();
    const saved = (await api('GET', '/api/vehicles')).find((v) => v.name === 'Golf');
    assert.deepEqual(saved.manual_md5s, [golfMd5, await md5Of('van-manual.pdf')], 'the stale link dropped, the order kept, the new one last');
  });
});

// A manual with a maintenance schedule as a list, between pages of other
// numbers: docqa's rules propose its items (no chat model here).
const planManual = makePdf([
  ['Welcome. This manual covers the Golf 1.5 TSI. Top speed 210 km/h, tank 50 litres.'],
  ['Maintenance schedule', 'Tyre rotation: every 10,000 km.', 'Wiper blades: replace every 12 months.', 'Battery check: every 20,000 km or 12 months.'],
  ['Warranty. The paint is guaranteed for 3 years. Towing up to 1,500 kg.'],
]);

// A schedule printed as a table whose rows end in no full stop, under a
// header that names the interval: text extraction gives it as lines of prose.
const tableManual = makePdf([
  ['Service plan', 'Item Interval', 'Engine oil and filter every 15,000 km or 12 months', 'Air filter every 30,000 km', 'Brake fluid every 24 months'],
]);

describe('a maintenance plan from the manual', () => {
  it('proposes the manual\'s items with their page; ticked items become the vehicle\'s reminders, queued while offline', async () => {
    const form = new FormData();
    form.append('file', new Blob([planManual], { type: 'application/pdf' }), 'plan-manual.pdf');
    const up = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
    assert.equal(up.status, 200, await up.text());
    const golf = (await api('GET', '/api/vehicles')).find((v) => v.name === 'Golf');
    await api('PUT', `/api/vehicles/${golf.id}`, { manual_md5s: [...golf.manual_md5s, await md5Of('plan-manual.pdf')] });
    // The vehicle has one of the items already: it is proposed unticked.
    await api('POST', '/api/reminders', { vehicle_id: golf.id, title: 'Battery check', category: 'service', every_months: 12 });

    await page.goto(`${s.base}/manuals`);
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'plan-manual.pdf' }) });
    await item.getByRole('button', { name: 'Propose a maintenance plan' }).click();
    const plan = page.getByRole('region', { name: 'Maintenance plan from plan-manual.pdf' });
    const items = plan.getByRole('list', { name: 'Proposed items' });
    await items.waitFor();
    await plan.getByText('Read by rules, as no AI model is configured', { exact: false }).waitFor();
    const labels = await items.locator('label').allInnerTexts();
    assert.deepEqual(labels, ['Tyre rotation', 'Wiper blades', 'Battery check'], 'the three items of the schedule, in its order, nothing from the other pages');
    assert.equal(await plan.getByLabel('Tyre rotation').isChecked(), true);
    assert.equal(await plan.getByLabel('Wiper blades').isChecked(), true);
    assert.equal(await plan.getByLabel('Battery check').isChecked(), false, 'already a reminder');
    await plan.getByText('already planned: Battery check (your reminder)').waitFor();
    await plan.getByText('every 10,000 km', { exact: true }).waitFor();

    // Each item shows its page.
    await plan.getByRole('button', { name: 'Show page 2' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await shootEverywhere(page, 'plan-page', { fullPage: false });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await shootEverywhere(page, 'plan');
    assert.deepEqual(await axeBothSchemes(page), []);

    await s.context.setOffline(true);
    await plan.getByRole('button', { name: 'Add 2 reminders to Golf' }).click();
    await plan.getByText('2 reminders wait for a connection and are sent when you are back online.').waitFor();
    assert.equal((await api('GET', `/api/reminders?vehicle_id=${golf.id}`)).length, 1, 'nothing sent while offline');
    await s.context.setOffline(false);
    const stored = await eventually(async () => {
      const list = await api('GET', `/api/reminders?vehicle_id=${golf.id}`);
      assert.equal(list.length, 3, 'the queued reminders are sent once back online');
      return list;
    });
    const byTitle = Object.fromEntries(stored.map((r) => [r.title, r]));
    assert.deepEqual(Object.keys(byTitle).sort(), ['Battery check', 'Tyre rotation', 'Wiper blades']);
    assert.equal(byTitle['Tyre rotation'].every_km, 10000);
    assert.equal(byTitle['Tyre rotation'].every_months, null);
    assert.equal(byTitle['Tyre rotation'].category, 'tyres');
    assert.equal(byTitle['Wiper blades'].every_months, 12);
    assert.equal(byTitle['Wiper blades'].every_km, null);
    assert.match(byTitle['Wiper blades'].notes, /^plan-manual\.pdf, p\. 2: “Wiper blades: replace every 12 months\.”$/);

    await page.goto(`${s.base}/costs`);
    const reminders = page.getByRole('list', { name: 'Reminders', exact: true });
    for (const title of ['Tyre rotation', 'Wiper blades', 'Battery check']) await reminders.getByText(title, { exact: false }).first().waitFor();
  });

  it('a table read as lines: each item is titled without the header and quotes its own row, not the table', async () => {
    const form = new FormData();
    form.append('file', new Blob([tableManual], { type: 'application/pdf' }), 'table-manual.pdf');
    const up = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
    assert.equal(up.status, 200, await up.text());
    const golf = (await api('GET', '/api/vehicles')).find((v) => v.name === 'Golf');
    await api('PUT', `/api/vehicles/${golf.id}`, { manual_md5s: [...golf.manual_md5s, await md5Of('table-manual.pdf')] });
    await page.goto(`${s.base}/manuals`);
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'table-manual.pdf' }) });
    await item.getByRole('button', { name: 'Propose a maintenance plan' }).click();
    const plan = page.getByRole('region', { name: 'Maintenance plan from table-manual.pdf' });
    const items = plan.getByRole('list', { name: 'Proposed items' });
    await items.waitFor();
    assert.deepEqual(await items.locator('label').allInnerTexts(), ['Engine oil and filter', 'Air filter', 'Brake fluid']);
    const text = await plan.innerText();
    assert.match(text, /Show page 1 Air filter every 30,000 km\n/, 'the row is the quote (its quotation marks are the style\'s)');
    assert.doesNotMatch(text, /Item Interval/, 'the header is neither title nor quote');
    assert.doesNotMatch(text, /12 months Air filter/, 'no quote runs into the next row');
  });

  it('on a diesel, spark plugs are said not to apply and start unticked; the owner\'s ticks are kept when the plan opens again', async () => {
    const form = new FormData();
    form.append('file', new Blob([dieselManual], { type: 'application/pdf' }), 'diesel-manual.pdf');
    const up = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
    assert.equal(up.status, 200, await up.text());
    const van = (await api('GET', '/api/vehicles')).find((v) => v.name === 'Van');
    await api('PUT', `/api/vehicles/${van.id}`, { manual_md5s: [await md5Of('diesel-manual.pdf')] });
    const open = async () => {
      await page.goto(`${s.base}/manuals`);
      const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'diesel-manual.pdf' }) });
      await item.getByRole('button', { name: 'Propose a maintenance plan' }).click();
      const plan = page.getByRole('region', { name: 'Maintenance plan from diesel-manual.pdf' });
      await plan.getByRole('list', { name: 'Proposed items' }).waitFor();
      await eventually(async () => assert.equal(await plan.getByLabel('AdBlue').isDisabled(), false));
      return plan;
    };
    let plan = await open();
    const labels = await plan.getByRole('list', { name: 'Proposed items' }).locator('label').allInnerTexts();
    assert.deepEqual(labels, ['Spark plugs', 'AdBlue', 'Brake fluid']);
    assert.equal(await plan.getByLabel('Spark plugs').isChecked(), false, 'not for a diesel');
    await plan.getByText('does not apply to this vehicle (Diesel)').waitFor();
    assert.equal(await plan.getByLabel('AdBlue').isChecked(), true);
    assert.equal(await plan.getByLabel('Brake fluid').isChecked(), true);
    await shootEverywhere(page, 'plan-diesel', { fullPage: false });
    // The owner unticks the brake fluid and ticks the spark plugs (their van, their call); opened again, the plan remembers.
    await plan.getByLabel('Brake fluid').uncheck();
    await plan.getByLabel('Spark plugs').check();
    await plan.getByRole('button', { name: 'Close' }).click();
    plan = await open();
    assert.equal(await plan.getByLabel('Brake fluid').isChecked(), false);
    assert.equal(await plan.getByLabel('Spark plugs').isChecked(), true);
    assert.equal(await plan.getByLabel('AdBlue').isChecked(), true);
  });

  it('one reminder per job: the owner\'s "AdBlue top-up" is the item\'s job, never added twice, and takes the manual\'s interval on request', async () => {
    const van = (await api('GET', '/api/vehicles')).find((v) => v.name === 'Van');
    const mine = await api('POST', '/api/reminders', { vehicle_id: van.id, title: 'AdBlue top-up', category: 'service', every_km: 20000 });
    await page.goto(`${s.base}/manuals`);
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'diesel-manual.pdf' }) });
    await item.getByRole('button', { name: 'Propose a maintenance plan' }).click();
    const plan = page.getByRole('region', { name: 'Maintenance plan from diesel-manual.pdf' });
    await plan.getByText('already planned: AdBlue top-up (your reminder)').waitFor();
    // Ticked when the plan was last open; a reminder of the job now, it is not.
    assert.equal(await plan.getByLabel('AdBlue').isChecked(), false);
    await plan.getByRole('button', { name: 'Use the manual’s interval in it: every 15,000 km' }).click();
    await plan.getByText('AdBlue top-up is now every 15,000 km.').waitFor();
    const after = (await api('GET', `/api/reminders?vehicle_id=${van.id}`)).filter((r) => /adblue/i.test(r.title));
    assert.deepEqual(after.map((r) => [r.id, r.every_km, r.every_months]), [[mine.id, 15000, null]], 'the one reminder, with the manual\'s interval');
    // The same interval now: nothing more to offer.
    await eventually(async () => assert.equal(await plan.getByRole('button', { name: /Use the manual’s interval/ }).count(), 0));
    await plan.getByRole('button', { name: /^Add 1 reminder to Van$/ }).click();
    await plan.getByText('Added 1 reminder to Van.').waitFor();
    const titles = (await api('GET', `/api/reminders?vehicle_id=${van.id}`)).map((r) => r.title).sort();
    assert.deepEqual(titles, ['AdBlue top-up', 'Spark plugs'], 'the ticked spark plugs added, AdBlue not twice, the unticked brake fluid not at all');
  });
});

// A diesel's manual: spark plugs are in its schedule (as in a manual for petrol and diesel models).
const dieselManual = makePdf([
  ['This manual covers the Transporter 2.0 TDI and 2.0 TSI.'],
  ['Maintenance schedule', 'Spark plugs: replace every 60,000 km.', 'AdBlue: top up every 15,000 km.', 'Brake fluid: replace every 24 months.'],
]);
