// The reminders' calendar feed reached from the app with accounts on: "Add
// reminders to your calendar" on Costs makes a read-only access token on the
// spot (with the password), puts it in the link a calendar app subscribes to
// (https and webcal://), the link answers the reminders without a session,
// Settings lists the token by its name, and revoking it (beside the link)
// makes the link refused. The expenses' CSV downloads with the token too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeBothSchemes, navLink, shootEverywhere, startStack } from './harness.mjs';

const ADMIN = { username: 'admin', password: 'e2e-admin-password-1' };
let s;
let page;
let token;
let vehicle;
const pageErrors = [];

const api = async (path, init = {}) => {
  const res = await fetch(s.base + path, { ...init, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...init.headers } });
  const text = await res.text();
  assert.ok(res.ok, `${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
};
const field = (label) => page.getByLabel(label, { exact: true });
const heading = (name) => page.getByRole('heading', { level: 1, name, exact: true });

before(async () => {
  s = await startStack({ auth: ADMIN, locale: 'en-IE', chatModel: false });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  token = await s.login();
  vehicle = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Golf', fuel_type: 'gasoline', default_vehicle: true }) });
  await api('/api/reminders', {
    method: 'POST',
    body: JSON.stringify({ vehicle_id: vehicle.id, title: 'Inspection', category: 'inspection', every_months: 12, last_done: { time: new Date(Date.now() - 300 * 86_400_000).toISOString() } }),
  });
  await api('/api/expenses', {
    method: 'POST',
    body: JSON.stringify({ vehicle_id: vehicle.id, time: '2026-11-20T09:00:00Z', category: 'service', title: 'Oil and filter change', amount: 89.9 }),
  });
  await page.goto(`${s.base}/`);
  await heading('Sign in').waitFor();
  await field('Username').fill(ADMIN.username);
  await field('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await heading('Home').waitFor();
});

after(async () => {
  await s?.stop();
});

describe('the calendar feed from the app', () => {
  let link;
  it('makes a read-only token on the spot with the password, and the link answers the reminders without a session', async () => {
    await (await navLink(page, 'Costs')).click();
    await heading('Costs').waitFor();
    await page.getByText('Add reminders to your calendar', { exact: true }).click();
    // Without the password the service says which field is missing.
    await page.getByRole('button', { name: 'Make a calendar link' }).click();
    await page.getByRole('alert').filter({ hasText: 'Current password' }).waitFor();
    await field('Current password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Make a calendar link' }).click();
    await page.getByRole('status').filter({ hasText: 'Calendar link made' }).waitFor();
    link = await field('Calendar link').inputValue();
    assert.match(link, new RegExp(`^${s.base.replace(/[.]/g, '\\.')}/api/reminders\\.ics\\?token=chp_`));
    assert.equal(await page.getByRole('link', { name: 'Open in calendar app' }).getAttribute('href'), link.replace(/^http:/, 'webcal:'));
    // Copy puts the https link on the clipboard, to paste into a calendar's "subscribe by URL".
    await s.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.base });
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('status').filter({ hasText: 'Link copied.' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await shootEverywhere(page, 'costs-calendar-token');
    assert.deepEqual(await axeBothSchemes(page), []);

    const res = await fetch(link);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/calendar/);
    const ics = await res.text();
    assert.match(ics, /SUMMARY:.*Inspection/);
    // The token in the link only reads.
    const write = await fetch(`${s.base}/api/vehicles`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${new URL(link).searchParams.get('token')}` },
      body: JSON.stringify({ name: 'Stolen', fuel_type: 'gasoline' }),
    });
    assert.equal(write.status, 403);
  });

  it('Settings lists the token by its name, read-only; revoked beside the link, the link is refused', async () => {
    const tokens = await api('/api/auth/tokens');
    const feed = tokens.filter((t) => t.kind === 'token');
    assert.deepEqual(feed.map((t) => [t.name, t.scope, t.expires_at]), [['Calendar feed', 'read', null]]);
    await page.getByRole('button', { name: 'Revoke link' }).click();
    await page.getByRole('status').filter({ hasText: 'Calendar link revoked' }).waitFor();
    assert.equal(await field('Calendar link').count(), 0, 'the link goes with its token');
    assert.equal((await fetch(link)).status, 401);
    assert.deepEqual((await api('/api/auth/tokens')).filter((t) => t.kind === 'token'), []);
  });

  it("a link made again shows in Settings' token list, and revoking it there refuses it too", async () => {
    await field('Current password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Make a calendar link' }).click();
    link = await field('Calendar link').inputValue();
    assert.equal((await fetch(link)).status, 200);
    await (await navLink(page, 'Settings')).click();
    const item = page.getByRole('list', { name: 'Sign-ins and access tokens' }).getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Calendar feed' }) });
    await item.getByText('read only', { exact: true }).waitFor();
    await item.getByRole('button', { name: /^Revoke Calendar feed created / }).click();
    await item.waitFor({ state: 'detached' });
    assert.equal((await fetch(link)).status, 401);
  });
});

describe('the expenses as CSV with accounts on', () => {
  it('downloads with the session, the expense in it', async () => {
    await (await navLink(page, 'Costs')).click();
    await heading('Costs').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export expenses as CSV', exact: true }).click(),
    ]);
    const path = join(s.dir, 'expenses-auth.csv');
    await download.saveAs(path);
    assert.match(readFileSync(path, 'utf8'), /Oil and filter change/);
    assert.deepEqual(pageErrors, []);
  });
});
