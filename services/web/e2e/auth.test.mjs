// End-to-end with accounts on (AUTH_MODE=local): the login screen, a queued
// refuel that outlives a revoked token, the manuals' PDF opened with the
// token, a /login#token= link this browser did not start (ignored), the
// account's password and tokens, sign-out, and a throttled login. The built client behind the real Caddy,
// against the real services, in Debian's Chromium.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { axeBothSchemes, eventually, fillWhen, navLink, sessionOf, startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';


const ADMIN = { username: 'admin', password: 'e2e-admin-password-1' };

let s;
let ctx;
let page;
const cspViolations = [];
const pageErrors = [];
const dialogs = [];

/** api calls the gateway as a test's own session (token), never as the page. */
const api = async (path, token, init = {}) => {
  const res = await fetch(s.base + path, { ...init, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...init.headers } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

const field = (label) => page.getByLabel(label, { exact: true });
const heading = (name) => page.getByRole('heading', { level: 1, name });

async function nav(name) {
  await (await navLink(page, name)).click();
  await heading(name).waitFor();
}

async function signIn(password = ADMIN.password) {
  await heading('Sign in').waitFor();
  await field('Username').fill(ADMIN.username);
  await field('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** pageSession: the session this test's page (or p) keeps. */
const pageSession = (p = page) => sessionOf(p);

/** axe: axe-core's serious and critical violations on this test's page (or p), light and dark. */
const axe = (p = page) => axeBothSchemes(p);

const json = { 'Content-Type': 'application/json' };

/** ssoLink: the address single sign-on ends at, with token's session and, when given, a client state. */
function ssoLink(token, clientState) {
  const expires = new Date(Date.now() + 3_600_000).toISOString();
  return `${s.base}/login#token=${encodeURIComponent(token)}&expires_at=${encodeURIComponent(expires)}` + (clientState ? `&client_state=${clientState}` : '');
}

/** A client state as the sign-in button makes one (43 base64url characters), kept by no tab. */
const ANY_STATE = 'Zm9yZ2VkLWJ5LWFuLWF0dGFja2VyLW5vdC1zdGFydGVk';

const CHANGED = {
  true: 'Password changed. Your other sessions and devices are signed out and your access tokens are revoked; this one goes on.',
  false: 'Password changed. Your other sessions and devices are signed out; this one goes on. Your access tokens still work.',
};

/** changePassword changes the password on Settings, revoking the access tokens or not, and answers the body the page sent. */
async function changePassword(from, to, revokeTokens) {
  const form = page.getByRole('form', { name: 'Change password' });
  await form.getByLabel('Current password', { exact: true }).fill(from);
  await form.getByLabel('New password', { exact: true }).fill(to);
  await form.getByLabel('New password again', { exact: true }).fill(to);
  await form.getByLabel('Also revoke my access tokens', { exact: true }).setChecked(revokeTokens);
  const sent = await sentBody('PUT', '/api/users/me/password', () => form.getByRole('button', { name: 'Change password', exact: true }).click());
  await form.getByRole('status').filter({ hasText: CHANGED[revokeTokens] }).waitFor();
  return sent;
}

/** sentBody: the JSON body of the next request to path that the page sends while act() runs. */
async function sentBody(method, path, act) {
  const [req] = await Promise.all([page.waitForRequest((r) => r.method() === method && new URL(r.url()).pathname === path), act()]);
  return req.postDataJSON();
}

/** overflow: how far the page scrolls sideways (0: not at all). */
const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);


before(async () => {
  // Password changes and token creations count as logins too (one budget per username and per
  // address): room for all of this file's before the test that exhausts it.
  s = await startStack({ auth: { ...ADMIN, loginsPerMinute: 60 } });
  ctx = s.context;
  page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.accept();
  });
});

after(async () => {
  await s?.stop();
});

describe('the web client with accounts', () => {
  it('shows the login screen (no navigation), which passes axe-core; a wrong password is announced', async () => {
    const config = await api('/api/auth/config');
    assert.deepEqual(config.body.mode, 'local');
    await page.goto(s.base + '/vehicles');
    await heading('Sign in').waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0);
    assert.equal(await page.title(), 'Sign in · CarHub');
    assert.equal(await page.getByRole('button', { name: 'Sign in with single sign-on' }).count(), config.body.oidc ? 1 : 0);
    assert.deepEqual(await axe(), []);

    await signIn('not-the-password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.textContent(), 'Wrong username or password.');
    assert.equal(await field('Password').getAttribute('aria-invalid'), 'true');
    assert.equal(await field('Password').inputValue(), '', 'the wrong password is cleared');
    assert.equal(await pageSession(), null);
    assert.deepEqual(await axe(), [], 'the login screen with its error');
    assert.equal(await overflow(), 0, 'the login screen at 390 px');
  });

  it('the right password shows the page asked for, the user in the navigation; every call carries the token', async () => {
    await field('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading('Vehicles').waitFor();
    assert.equal(new URL(page.url()).pathname, '/vehicles');
    const header = page.getByRole('banner');
    await header.getByText('Signed in as admin').waitFor();
    await header.getByRole('button', { name: 'Sign out' }).waitFor();
    const session = await pageSession();
    assert.equal(session.user.username, 'admin');
    assert.ok(Date.parse(session.expiresAt) > Date.now());

    await page.getByRole('button', { name: 'Add vehicle' }).click();
    await field('Name').fill('Family car');
    await field('Fuel type').selectOption({ label: 'Gasoline' });
    await page.getByRole('button', { name: 'Save vehicle' }).click();
    await page.getByRole('heading', { level: 2, name: 'Family car' }).waitFor();
    const mine = await s.login();
    assert.deepEqual((await api('/api/vehicles', mine)).body.map((v) => v.name), ['Family car']);
    assert.equal((await api('/api/vehicles')).status, 401, 'the gateway refuses a call without a token');
    // docqa through Caddy's forward_auth: the page's token opens it too.
    await nav('Manuals');
    await page.getByText('No manual uploaded yet.').waitFor();
    assert.deepEqual(await axe(), [], 'the navigation with the account');
    assert.equal(await overflow(), 0, 'the navigation with the account at 390 px');
  });

  it('Manuals "Open" and an Ask source fetch the PDF with the token and show it from a blob: URL, #page= kept; a missing file is explained', async (t) => {
    const pdf = makePdf([
      ['CarHub test manual', 'Welcome to your car.'],
      ['Maintenance schedule', 'Change the engine oil every 15000 km or once a year.', 'Check the tyre pressure every month.'],
    ]);
    await field('Upload a PDF').setInputFiles({ name: 'e2e-manual.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByRole('status').filter({ hasText: 'Stored e2e-manual.pdf: 2 pages' }).waitFor({ timeout: 60_000 });
    const mine = await s.login();
    const md5 = (await api('/api/documents', mine)).body[0].fileMd5;
    const filePath = `/api/documents/${md5}/file`;
    assert.equal((await api(filePath)).status, 401, 'a plain link (no token) is refused');
    const { token } = await pageSession();

    // What the page fetched of the file, and every tab it opened.
    const fetched = [];
    const onResponse = (r) => new URL(r.url()).pathname === filePath && fetched.push(r);
    page.on('response', onResponse);
    const tabs = [];
    const onTab = (p) => {
      tabs.push(p);
      p.on('console', (m) => /Content Security Policy/i.test(m.text()) && cspViolations.push(`tab: ${m.text()}`));
      p.on('pageerror', (e) => pageErrors.push(`tab: ${e}`));
    };
    ctx.on('page', onTab);
    t.after(async () => {
      page.off('response', onResponse);
      ctx.off('page', onTab);
      for (const p of tabs) await p.close().catch(() => undefined);
    });
    // The blobs the page makes URLs of, to read back what the viewer was given
    // (Chromium keeps no copy of a body the page read with blob() for the DevTools protocol).
    await page.evaluate(() => {
      const create = URL.createObjectURL;
      window.__blobs = [];
      URL.createObjectURL = (b) => {
        window.__blobs.push(b);
        return create(b);
      };
    });
    // The n-th PDF blob (the page view's image is a blob too).
    const blobBytes = (i) => page.evaluate(async (n) => {
      const b = window.__blobs.filter((x) => x.type === 'application/pdf')[n];
      return { type: b.type, latin1: Array.from(new Uint8Array(await b.arrayBuffer()), (c) => String.fromCharCode(c)).join('') };
    }, i);
    /** openTab clicks link and answers the new tab once it shows a blob: URL. */
    const openTab = async (link) => {
      const [tab] = await Promise.all([ctx.waitForEvent('page'), link.click()]);
      await tab.waitForURL((u) => u.protocol === 'blob:');
      return tab;
    };
    const blobAt = (pageNo) => new RegExp(`^blob:${s.base.replace(/[.]/g, '\\.')}/[0-9a-f-]{36}#page=${pageNo}$`);
    const checkFetched = async (n) => {
      await eventually(() => assert.equal(fetched.length, n));
      const r = fetched[n - 1];
      assert.equal(r.status(), 200);
      assert.equal(r.request().headers().authorization, `Bearer ${token}`);
      assert.equal((await r.request().sizes()).responseBodySize, pdf.length, 'the whole file came');
      assert.deepEqual(await blobBytes(n - 1), { type: 'application/pdf', latin1: pdf.toString('latin1') }, 'the viewer is given the uploaded PDF');
    };

    const open = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'e2e-manual.pdf' }) }).getByRole('link', { name: 'Open' });
    assert.equal(await open.getAttribute('href'), `${filePath}#page=1`, 'the link still says where the file is');
    const first = await openTab(open);
    assert.match(first.url(), blobAt(1));
    await checkFetched(1);
    assert.equal(await first.evaluate(() => document.contentType), 'application/pdf');
    assert.equal(await first.evaluate(() => window.opener), null, 'the tab has no handle on the app');
    await first.close();
    assert.equal(await page.getByRole('alert').count(), 0);

    await nav('Ask');
    await field('Question').fill('How often should I change the engine oil?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.getByRole('region', { name: 'Answer' }).getByText('Change the engine oil every 15000 km [1].').waitFor();
    await page.waitForFunction(() => document.querySelector('.answer')?.getAttribute('aria-busy') === 'false');
    // The source opens its page inside the app: the image comes with the token too.
    await page.getByRole('list', { name: 'Sources' }).getByRole('link', { name: 'e2e-manual.pdf, p. 2' }).click();
    const view = page.getByRole('dialog', { name: 'e2e-manual.pdf, p. 2' });
    await view.waitFor();
    await page.waitForFunction(() => (document.querySelector('.page-view img')?.naturalWidth ?? 0) > 0);
    const source = view.getByRole('link', { name: 'Open PDF' });
    assert.equal(await source.getAttribute('href'), `${filePath}#page=2`);
    const second = await openTab(source);
    assert.match(second.url(), blobAt(2));
    await checkFetched(2);
    assert.equal(await second.evaluate(() => document.contentType), 'application/pdf');
    await second.close();

    // Gone since the answer came: the tab closes again, the page view says why.
    assert.equal((await api(`/api/documents/${md5}`, mine, { method: 'DELETE' })).status, 204);
    const gone = await api(filePath, mine);
    assert.equal(gone.status, 404);
    const opened = tabs.length;
    await source.click();
    const alert = view.getByRole('alert').filter({ hasText: 'could not be opened' });
    await alert.waitFor();
    assert.equal(await alert.textContent(), `e2e-manual.pdf could not be opened: ${gone.body.message}`);
    await eventually(() => assert.equal(fetched.length, 3));
    assert.equal(fetched[2].status(), 404);
    assert.equal(tabs.length, opened + 1, 'the tab was opened in the click');
    await eventually(() => assert.ok(tabs.at(-1).isClosed(), 'and closed again'));
    await view.getByRole('button', { name: 'Close', exact: true }).click();
    await view.waitFor({ state: 'hidden' });
    assert.ok(await pageSession(), 'a 404 keeps the session');
  });

  it('a refuel queued offline outlives a revoked token: login screen, then sent exactly once after signing in again', async (t) => {
    t.after(() => ctx.setOffline(false));
    // The shell must come from the service worker while offline.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await nav('Add refuel');
    await ctx.setOffline(true);
    await fillWhen(field('Date and time'), '2026-04-20T08:00');
    await field('Odometer').fill('14300');
    await field('Quantity').fill('39.9');
    await field('Total amount').fill('69.3');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel queued: 39.90 L' }).waitFor();
    await nav('History');
    await page.getByText('Waiting to sync').waitFor();

    // From another session: revoke the page's token.
    const other = await s.login();
    const tokens = (await api('/api/auth/tokens', other)).body;
    const pageToken = tokens.filter((tk) => !tk.current);
    assert.ok(pageToken.length >= 1, JSON.stringify(tokens));
    for (const tk of pageToken) assert.equal((await api(`/api/auth/tokens/${tk.id}`, other, { method: 'DELETE' })).status, 204);

    await ctx.setOffline(false); // the 'online' event sends the outbox: 401
    await heading('Sign in').waitFor();
    await page.getByRole('status').filter({ hasText: 'Your session has ended' }).waitFor();
    await page.getByText('1 refuel waits on this device').waitFor();
    assert.equal(await pageSession(), null);
    const vid = (await api('/api/vehicles', other)).body[0].id;
    assert.deepEqual((await api(`/api/refuels?vehicle_id=${vid}`, other)).body, [], 'nothing reached the server with the revoked token');

    await signIn();
    await heading('History').waitFor();
    await page.getByText('Waiting to sync').waitFor({ state: 'detached' });
    await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').first().waitFor();
    const records = await eventually(async () => {
      const r = (await api(`/api/refuels?vehicle_id=${vid}`, other)).body;
      assert.equal(r.length, 1);
      return r;
    });
    assert.equal(records[0].odometer, 14300);
    assert.equal(records[0].liters, 39.9);
    assert.equal(records[0].total_amount, 69.3);
    // Nothing is left to send again: a reload (which syncs at start) adds nothing.
    await page.reload();
    await heading('History').waitFor();
    await page.getByRole('list', { name: 'Refuels' }).getByRole('listitem').first().waitFor();
    assert.equal(await page.getByText('Waiting to sync').count(), 0);
    assert.equal((await api(`/api/refuels?vehicle_id=${vid}`, other)).body.length, 1);

    // The CSV export carries the token too (fetched, then saved).
    await nav('Statistics');
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const csv = readFileSync(await file.path(), 'utf8');
    assert.match(csv, /14300/);
    assert.equal(csv.trim().split('\n').length, 2, csv);
  });

  it('a /login#token=… link this browser did not start signs no one in: the login screen stays, with a notice', async () => {
    const token = await s.login(); // a valid session, as an attacker would hand out their own
    const other = await s.newProfile();
    try {
      const p2 = other.pages()[0] ?? (await other.newPage());
      const notice = p2.getByRole('status').filter({ hasText: 'This sign-in link was not started from this browser and was ignored.' });
      for (const link of [ssoLink(token, ANY_STATE), ssoLink(token)]) {
        await p2.goto('about:blank'); // from /login, a new fragment alone would not load the page again
        await p2.goto(link);
        await p2.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
        await notice.waitFor();
        assert.equal(p2.url(), s.base + '/login', 'the token is cleared from the address');
        assert.equal(await pageSession(p2), null);
      }
      assert.deepEqual(await axe(p2), [], 'the login screen with the notice');
      // Even with the value this tab's sign-in button would have kept: single sign-on is off on this server.
      await p2.goto(s.base + '/history'); // kept by a page of the app, as the button keeps it
      await p2.evaluate((v) => sessionStorage.setItem('carhub-sso-client-state', v), ANY_STATE);
      await p2.goto(ssoLink(token, ANY_STATE));
      await p2.getByRole('status').filter({ hasText: 'This server has no single sign-on, so the sign-in link was ignored.' }).waitFor();
      assert.equal(await pageSession(p2), null);
      assert.equal(await p2.evaluate(() => sessionStorage.getItem('carhub-sso-client-state')), null, 'the value served once');
    } finally {
      await other.close();
      await api('/api/auth/logout', token, { method: 'POST' }); // not among this device's sign-ins later
    }
  });

  it('the same link over a signed-in session changes nothing and asks nothing; #error= is not shown to a signed-in user', async () => {
    const mine = await pageSession();
    assert.equal(mine.user.username, 'admin');
    const admin = await s.login();
    const made = await api('/api/users', admin, { method: 'POST', headers: json, body: JSON.stringify({ username: 'mallory', password: 'mallory-password-1' }) });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    try {
      const theirs = (await api('/api/auth/login', null, { method: 'POST', headers: json, body: JSON.stringify({ username: 'mallory', password: 'mallory-password-1' }) })).body.token;
      const asked = dialogs.length;
      await page.goto(ssoLink(theirs, ANY_STATE));
      await heading('Home').waitFor();
      const notice = page.getByRole('status').filter({ hasText: 'This sign-in link was not started from this browser and was ignored.' });
      await notice.waitFor();
      assert.equal(page.url(), s.base + '/');
      await page.getByRole('banner').getByText('Signed in as admin').waitFor();
      assert.deepEqual(await pageSession(), mine, 'the session is unchanged');
      assert.deepEqual(dialogs.slice(asked), [], 'nothing was asked');
      assert.equal((await api('/api/auth/me', mine.token)).status, 200);
      assert.deepEqual(await axe(), [], 'the app with the notice');
      assert.equal(await overflow(), 0, 'the notice at 390 px');
      await page.getByRole('button', { name: 'Dismiss' }).click();
      await notice.waitFor({ state: 'detached' });
    } finally {
      assert.equal((await api(`/api/users/${made.body.id}`, admin, { method: 'DELETE' })).status, 204);
    }

    await page.goto(`${s.base}/login#error=access_denied`);
    // Signed in already: the error page is not shown to a signed-in user.
    await heading('Home').waitFor();
    assert.equal(page.url(), s.base + '/');
  });

  it('Settings: the password is changed (other sessions end, this one goes on); an administrator adds and deletes a user', async () => {
    const other = await s.login(); // another device of the same user
    await nav('Settings');
    await page.getByRole('heading', { level: 2, name: 'Account' }).waitFor();
    const users = page.getByRole('list', { name: 'Users' });
    await users.getByRole('heading', { level: 3, name: /^admin/ }).waitFor();
    assert.deepEqual(await users.getByRole('heading', { level: 3 }).allInnerTexts(), ['admin administrator you']);
    assert.equal(await users.getByRole('button').count(), 0, 'no Delete for oneself');
    assert.deepEqual(await axe(), [], 'Settings with the account and the users');
    assert.equal(await overflow(), 0, 'Settings with the account at 390 px');

    // A new user, who can sign in and is not an administrator.
    await field('Username').fill('sam');
    await field('Password').fill('sam-password-1');
    await page.getByRole('button', { name: 'Add user', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'sam can sign in now.' }).waitFor();
    await users.getByRole('heading', { level: 3, name: 'sam', exact: true }).waitFor();
    assert.equal(await field('Username').inputValue(), '', 'the form is emptied');
    const sam = await api('/api/auth/login', null, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'sam', password: 'sam-password-1' }) });
    assert.equal(sam.status, 200, JSON.stringify(sam.body));
    assert.equal(sam.body.user.is_admin, false);
    assert.equal((await api('/api/users', sam.body.token)).status, 403);
    // The same name again: the service's answer, naming the field.
    await field('Username').fill('SAM');
    await field('Password').fill('sam-password-2');
    await page.getByRole('button', { name: 'Add user', exact: true }).click();
    // In the form's error summary, as a link to the field, and beside the field, which has the focus.
    const addUser = page.getByRole('form', { name: 'Add a user' });
    await addUser.getByRole('alert').getByRole('link', { name: 'Username: "SAM" is taken' }).waitFor();
    assert.equal(await field('Username').getAttribute('aria-invalid'), 'true');
    assert.equal(await field('Username').evaluate((el) => el === document.activeElement), true, 'the bad field has the focus');

    // The password: the repetition is checked here, the current one by the service.
    const form = page.getByRole('form', { name: 'Change password' });
    const current = form.getByLabel('Current password', { exact: true });
    const revoke = form.getByLabel('Also revoke my access tokens', { exact: true });
    assert.equal(await revoke.isChecked(), true, 'revoking the tokens is on by default');
    assert.match(await revoke.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby')).textContent), /^Every access token of yours stops working/);
    await current.fill(ADMIN.password);
    await form.getByLabel('New password', { exact: true }).fill('e2e-admin-password-2');
    await form.getByLabel('New password again', { exact: true }).fill('e2e-admin-password-3');
    await page.getByRole('button', { name: 'Change password', exact: true }).click();
    await form.getByRole('alert').getByRole('link', { name: 'The new password and its repetition differ.' }).waitFor();
    assert.equal(await form.getByLabel('New password again', { exact: true }).getAttribute('aria-invalid'), 'true');
    await current.fill('not-the-password');
    await form.getByLabel('New password again', { exact: true }).fill('e2e-admin-password-2');
    await page.getByRole('button', { name: 'Change password', exact: true }).click();
    // In the summary (a link to the field) and beside the field it names, which points to it.
    await form.getByRole('alert').getByRole('link', { name: 'Current password: does not match' }).waitFor();
    const wrong = form.locator('#password-current-error');
    assert.equal(await wrong.textContent(), 'Current password: does not match');
    assert.equal(await current.getAttribute('aria-invalid'), 'true');
    assert.equal(await current.getAttribute('aria-describedby'), 'password-current-error');
    assert.equal(await current.evaluate((el) => el === document.activeElement), true, 'the bad field has the focus');
    assert.equal((await api('/api/auth/me', other)).status, 200, 'nothing changed yet');
    assert.deepEqual(await axe(), [], 'the password form with its error beside the field');
    const sent = await changePassword(ADMIN.password, 'e2e-admin-password-2', true);
    assert.deepEqual(sent, { current_password: ADMIN.password, new_password: 'e2e-admin-password-2', revoke_tokens: true });
    assert.equal(await current.getAttribute('aria-invalid'), null);
    assert.equal(await form.getByLabel('New password', { exact: true }).inputValue(), '', 'the passwords are not kept on the form');
    assert.equal((await api('/api/auth/me', other)).status, 401, 'the other session ended');
    const mine = (await pageSession()).token;
    assert.equal((await api('/api/auth/me', mine)).status, 200, 'this one goes on');
    const login = (password) => api('/api/auth/login', null, { method: 'POST', headers: json, body: JSON.stringify({ username: ADMIN.username, password }) });
    assert.equal((await login('e2e-admin-password-2')).status, 200);
    // Back to the password the other tests sign in with, the box unticked this time.
    assert.equal((await changePassword('e2e-admin-password-2', ADMIN.password, false)).revoke_tokens, false);
    assert.equal(await revoke.isChecked(), true, 'on again for the next change');
    const again = await login(ADMIN.password);
    assert.equal(again.status, 200);
    await api('/api/auth/logout', again.body.token, { method: 'POST' }); // not among this device's sign-ins later

    // Deleting a user asks first, and ends their sessions.
    const asked = dialogs.length;
    await users.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'sam', exact: true }) }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'The account sam is deleted.' }).waitFor();
    assert.deepEqual(dialogs.slice(asked), ['Delete the account sam, with its vehicles and their refuels?']);
    await eventually(async () => assert.deepEqual(await users.getByRole('heading', { level: 3 }).allInnerTexts(), ['admin administrator you']));
    assert.deepEqual((await api('/api/users', mine)).body.map((u) => u.username), ['admin']);
    assert.equal((await api('/api/auth/me', sam.body.token)).status, 401);
  });

  it('Settings: an account made by single sign-on (the service says has_password: false) is offered no password form, and no password field for a token', async () => {
    const admin = await s.login();
    assert.equal((await api('/api/auth/me', admin)).body.has_password, true, 'the administrator has a password');
    await api('/api/auth/logout', admin, { method: 'POST' });
    // No identity provider runs in this stack (the Go tests sign in through one): the service's
    // answers for this sign-in are changed to what it says of an account made by single sign-on.
    const other = await s.newProfile();
    let token;
    try {
      const noPassword = async (route) => {
        const res = await route.fetch();
        const body = await res.json();
        await route.fulfill({ response: res, json: body.user ? { ...body, user: { ...body.user, has_password: false } } : { ...body, has_password: false } });
      };
      await other.route('**/api/auth/me', noPassword);
      await other.route('**/api/auth/login', noPassword);
      const p2 = other.pages()[0] ?? (await other.newPage());
      await p2.goto(s.base + '/settings');
      await p2.getByLabel('Username', { exact: true }).fill(ADMIN.username);
      await p2.getByLabel('Password', { exact: true }).fill(ADMIN.password);
      await p2.getByRole('button', { name: 'Sign in', exact: true }).click();
      await p2.getByText('You sign in by single sign-on: your password is kept, and changed, by your identity provider.').waitFor();
      token = (await pageSession(p2)).token;
      assert.equal(await p2.getByRole('button', { name: 'Change password' }).count(), 0);
      const tokenForm = p2.getByRole('form', { name: 'New access token' });
      await tokenForm.getByLabel('Name (what uses it)', { exact: true }).waitFor();
      assert.equal(await tokenForm.getByLabel('Current password').count(), 0, 'no password to ask for');
      assert.deepEqual(await axe(p2), [], 'Settings of an account without a password');
    } finally {
      await other.close();
      if (token) await api('/api/auth/logout', token, { method: 'POST' }); // not among this device's sign-ins later
    }
  });

  it('Settings: an access token for a script is shown once, works with its scope, and is revoked; this device\'s sign-in stays', async () => {
    const list = page.getByRole('list', { name: 'Sign-ins and access tokens' });
    await eventually(async () => assert.deepEqual(await list.getByRole('heading', { level: 3 }).allInnerTexts(), ['Sign-in this device']));
    assert.equal(await list.getByRole('button').count(), 0, 'this device\'s sign-in is ended by Sign out, not here');
    await field('Name (what uses it)').fill('home-assistant');
    await field('Valid for').selectOption({ label: '30 days' });
    // The current password is asked for: the browser sends nothing without it.
    const password = page.getByRole('form', { name: 'New access token' }).getByLabel('Current password', { exact: true });
    assert.equal(await password.evaluate((el) => el.required && el.validity.valueMissing && !el.form.checkValidity()), true);
    await password.fill(ADMIN.password);
    const sent = await sentBody('POST', '/api/auth/tokens', () => page.getByRole('button', { name: 'Create token', exact: true }).click());
    assert.deepEqual(sent, { name: 'home-assistant', scope: 'read', expires_in_days: 30, current_password: ADMIN.password });
    await page.getByRole('status').filter({ hasText: 'Access token home-assistant created.' }).waitFor();
    assert.equal(await password.inputValue(), '', 'the password is not kept on the form');
    const secret = await field('The token home-assistant: copy it now, it is not shown again').inputValue();
    assert.match(secret, /^\S{30,}$/);
    assert.equal((await api('/api/vehicles', secret)).status, 200, 'the token reads');
    assert.equal((await api('/api/vehicles', secret, { method: 'POST', headers: json, body: '{"name":"x","fuel_type":"diesel"}' })).status, 403, 'read only by default');
    const mine = (await pageSession()).token;
    const listed = (await api('/api/auth/tokens', mine)).body.find((x) => x.name === 'home-assistant');
    assert.equal(listed.scope, 'read');
    const days = (Date.parse(listed.expires_at) - Date.parse(listed.created_at)) / 86_400_000;
    assert.ok(Math.abs(days - 30) < 0.01, `valid for ${days} days`);
    await eventually(async () => assert.deepEqual(await list.getByRole('heading', { level: 3 }).allInnerTexts(), ['home-assistant', 'Sign-in this device'] /* newest first, as the service lists them */));
    await list.getByRole('listitem').filter({ hasText: 'home-assistant' }).getByText('read only', { exact: true }).waitFor();
    assert.deepEqual(await axe(), [], 'Settings with a token listed and its secret shown');

    await list.getByRole('button', { name: /^Revoke home-assistant created / }).click();
    await page.getByRole('status').filter({ hasText: 'home-assistant is revoked.' }).waitFor();
    assert.equal((await api('/api/vehicles', secret)).status, 401, 'revoked at once');
    await eventually(async () => assert.deepEqual(await list.getByRole('heading', { level: 3 }).allInnerTexts(), ['Sign-in this device']));
    assert.equal((await api('/api/auth/me', mine)).status, 200);
  });

  it('Settings: a new token with a wrong current password is refused, the answer beside the field', async () => {
    const mine = (await pageSession()).token;
    const tokenForm = page.getByRole('form', { name: 'New access token' });
    const password = tokenForm.getByLabel('Current password', { exact: true });
    await tokenForm.getByLabel('Name (what uses it)', { exact: true }).fill('backup-script');
    await password.fill('not-the-password');
    await tokenForm.getByRole('button', { name: 'Create token', exact: true }).click();
    await tokenForm.getByRole('alert').getByRole('link', { name: 'Current password: does not match' }).waitFor();
    const wrong = tokenForm.locator('#token-password-error');
    assert.equal(await wrong.textContent(), 'Current password: does not match');
    assert.equal(await password.getAttribute('aria-invalid'), 'true');
    assert.deepEqual((await password.getAttribute('aria-describedby')).split(' '), ['token-password-hint', 'token-password-error']);
    assert.deepEqual(await axe(), [], 'the token form with its error beside the field');
    assert.equal((await api('/api/auth/tokens', mine)).body.filter((x) => x.kind === 'token').length, 0, 'no token was made');
    await password.fill(ADMIN.password);
    await tokenForm.getByRole('button', { name: 'Create token', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Access token backup-script created.' }).waitFor();
    const made = (await api('/api/auth/tokens', mine)).body.find((x) => x.name === 'backup-script');
    assert.equal((await api(`/api/auth/tokens/${made.id}`, mine, { method: 'DELETE' })).status, 204);
  });

  it('Settings: a password change revokes the access tokens when asked, and keeps them when not', async () => {
    const mine = (await pageSession()).token;
    const make = async (name, password) => {
      const r = await api('/api/auth/tokens', mine, { method: 'POST', headers: json, body: JSON.stringify({ name, scope: 'read', expires_in_days: 1, current_password: password }) });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    };
    const first = await make('first', ADMIN.password);
    assert.equal((await api('/api/vehicles', first.token)).status, 200);
    await changePassword(ADMIN.password, 'e2e-admin-password-2', true);
    assert.equal((await api('/api/vehicles', first.token)).status, 401, 'revoked with the change');
    const second = await make('second', 'e2e-admin-password-2');
    await changePassword('e2e-admin-password-2', ADMIN.password, false);
    assert.equal((await api('/api/vehicles', second.token)).status, 200, 'kept through the change');
    assert.equal((await api('/api/auth/me', mine)).status, 200, 'this sign-in goes on');
    assert.equal((await api(`/api/auth/tokens/${second.id}`, mine, { method: 'DELETE' })).status, 204);
  });

  it('Vehicles: the owner shares a vehicle by name; the other user sees it with what the role allows, and no more', async () => {
    const mine = await s.login();
    const json = { 'Content-Type': 'application/json' };
    assert.equal((await api('/api/users', mine, { method: 'POST', headers: json, body: JSON.stringify({ username: 'kim', password: 'kim-password-1' }) })).status, 201);
    const family = (await api('/api/vehicles', mine)).body.find((v) => v.name === 'Family car');
    assert.equal(family.role, 'owner');

    await nav('Vehicles');
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 2, name: 'Family car' }) });
    await card.getByRole('button', { name: 'Sharing' }).click();
    const panel = card.getByRole('region', { name: 'Sharing Family car' });
    await panel.getByText('Not shared with anyone.').waitFor();
    assert.deepEqual(await axe(), [], 'Vehicles with the sharing panel');
    assert.equal(await overflow(), 0, 'the sharing panel at 390 px');
    await panel.getByLabel('Username', { exact: true }).fill('nobody');
    await panel.getByRole('button', { name: 'Share', exact: true }).click();
    await panel.getByRole('alert').filter({ hasText: 'username: no user is named "nobody"' }).waitFor();
    await panel.getByLabel('Username', { exact: true }).fill(' Kim ');
    await panel.getByRole('button', { name: 'Share', exact: true }).click();
    await panel.getByRole('status').filter({ hasText: 'Family car is shared with kim (view).' }).waitFor();
    const members = panel.getByRole('list', { name: 'People Family car is shared with' });
    await eventually(async () => assert.deepEqual(await members.getByRole('listitem').allInnerTexts(), ['kim · view\nStop sharing']));

    // Kim, in a browser of her own: the car with its badge, History without Edit, not on Add refuel.
    const kimApi = (await api('/api/auth/login', null, { method: 'POST', headers: json, body: JSON.stringify({ username: 'kim', password: 'kim-password-1' }) })).body.token;
    assert.deepEqual((await api('/api/vehicles', kimApi)).body.map((v) => [v.name, v.role]), [['Family car', 'viewer']]);
    const other = await s.newProfile();
    try {
      const p2 = other.pages()[0] ?? (await other.newPage());
      await p2.goto(s.base + '/vehicles');
      await p2.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await p2.getByLabel('Username', { exact: true }).fill('kim');
      await p2.getByLabel('Password', { exact: true }).fill('kim-password-1');
      await p2.getByRole('button', { name: 'Sign in', exact: true }).click();
      const kimCard = p2.getByRole('listitem').filter({ has: p2.getByRole('heading', { level: 2, name: /^Family car/ }) });
      await kimCard.getByText('shared with you: view only', { exact: true }).waitFor();
      assert.equal(await kimCard.getByRole('button').count(), 0, 'no Edit, Make default, Delete or Sharing for a viewer');
      await p2.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History', exact: true }).click();
      const records = p2.getByRole('list', { name: 'Refuels' });
      await records.getByRole('listitem').first().waitFor();
      assert.equal(await records.getByRole('button').count(), 0, 'a viewer changes no record');
      await p2.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Add refuel', exact: true }).click();
      await p2.getByText('No vehicle yet: add one on the', { exact: false }).waitFor();
      assert.equal(await p2.getByLabel('Vehicle', { exact: true }).count(), 0, 'the view-only car is not offered');

      // An editor: the owner changes the role with the same form.
      await panel.getByLabel('Username', { exact: true }).fill('kim');
      await panel.getByLabel('Can', { exact: true }).selectOption({ label: 'log refuels' });
      await panel.getByRole('button', { name: 'Share', exact: true }).click();
      await panel.getByRole('status').filter({ hasText: 'Family car is shared with kim (log refuels).' }).waitFor();
      await eventually(async () => assert.deepEqual(await members.getByRole('listitem').allInnerTexts(), ['kim · log refuels\nStop sharing']));
      await p2.reload();
      await p2.getByLabel('Vehicle', { exact: true }).waitFor();
      assert.deepEqual(await p2.getByLabel('Vehicle', { exact: true }).locator('option').allInnerTexts(), ['Family car']);

      // The owner stops sharing: Kim's list is empty again.
      await members.getByRole('button', { name: 'Stop sharing with kim' }).click();
      await panel.getByRole('status').filter({ hasText: 'Family car is no longer shared with kim.' }).waitFor();
      await panel.getByText('Not shared with anyone.').waitFor();
      assert.deepEqual((await api('/api/vehicles', kimApi)).body, []);
    } finally {
      await other.close();
    }
  });

  it('Sign out with a refuel not sent yet warns, keeps it, and it is sent once after the next sign-in', async (t) => {
    t.after(() => ctx.setOffline(false));
    const mine = await s.login();
    const vid = (await api('/api/vehicles', mine)).body[0].id;
    await nav('Add refuel');
    await ctx.setOffline(true);
    await fillWhen(field('Date and time'), '2026-05-02T08:00');
    await field('Odometer').fill('15000');
    await field('Quantity').fill('30');
    await field('Total amount').fill('52.5');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refuel queued: 30.00 L' }).waitFor();
    const asked = dialogs.length;
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click(); // offline: forgotten here only
    await heading('Sign in').waitFor();
    assert.deepEqual(dialogs.slice(asked), ['1 refuel saved on this device is not sent yet. It stays here and is sent the next time admin signs in. Sign out?']);
    await page.getByText('1 refuel waits on this device').waitFor();
    await ctx.setOffline(false);
    assert.deepEqual((await api(`/api/refuels?vehicle_id=${vid}`, mine)).body.map((r) => r.odometer), [14300]);
    await signIn();
    await heading('Add refuel').waitFor();
    const odometers = await eventually(async () => {
      const r = (await api(`/api/refuels?vehicle_id=${vid}`, mine)).body.map((x) => x.odometer);
      assert.equal(r.length, 2);
      return r;
    });
    assert.deepEqual(odometers.sort(), [14300, 15000]);
  });

  it('Sign out ends the session on the server and returns to the login screen', async () => {
    const before = await pageSession();
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    assert.equal(await pageSession(), null);
    assert.equal((await api('/api/auth/me', before.token)).status, 401, 'the token is revoked');
    await page.reload();
    await heading('Sign in').waitFor();

    await page.goto(`${s.base}/login#error=access_denied`);
    await heading('Sign in').waitFor();
    await page.getByRole('status').filter({ hasText: 'Single sign-on was cancelled or refused' }).waitFor();
    assert.equal(page.url(), s.base + '/login', 'the fragment is cleared');
  });

  it('a throttled login says when to try again', async () => {
    const wrong = () => api('/api/auth/login', null, { method: 'POST', headers: json, body: JSON.stringify({ username: ADMIN.username, password: 'wrong-password' }) });
    let status = 0;
    for (let i = 0; i < 150 && status !== 429; i++) status = (await wrong()).status;
    assert.equal(status, 429);
    // The bucket refills (one a second here): until the page has its answer, every attempt that
    // comes free is taken, so the page's own is refused however long it takes to send.
    let draining = true;
    const drain = (async () => {
      while (draining) await wrong();
    })();
    try {
      await signIn('wrong-password');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      // Seconds, or minutes when the refused attempts of a slow run have
      // pushed the retry past one (a cold CI run: "2 minutes").
      assert.match(await alert.textContent(), /^Too many sign-in attempts\. Try again in \d+ (seconds?|minutes?) \(at \d\d:\d\d\)\.$/);
    } finally {
      draining = false;
      await drain;
    }
  });

  it('no CSP violation and no uncaught error in the whole run', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});
