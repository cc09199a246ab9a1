// End-to-end single sign-on (AUTH_MODE=local with an OpenID provider,
// oauth2-mock-server, in front of the real fuel-service behind the real
// Caddy, in Debian's Chromium): the sign-in button's round trip ends signed
// in; the /login#token=… address of someone else's sign-in, replayed in
// another browser or again in the same tab, signs no one in; a sign-in that
// comes back over another user's session asks first.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, navLink, sessionOf, startStack } from './harness.mjs';

const ADMIN = { username: 'admin', password: 'e2e-admin-password-1' };
const STATE_KEY = 'carhub-sso-client-state';
const NOT_STARTED = 'This sign-in link was not started from this browser and was ignored.';

let s;
const pageErrors = [];
const cspViolations = [];

const api = async (path, token) => {
  const res = await fetch(s.base + path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

/**
 * browser: a new profile whose tabs note the address each document was
 * loaded at (window.__arrived, fragment included: the app clears it at once)
 * and answer confirm() with answers.shift() (true when none is left).
 */
async function browser(opts = {}) {
  const ctx = await s.newProfile(opts);
  await ctx.addInitScript(() => {
    window.__arrived = location.href;
  });
  const b = { ctx, asked: [], answers: [] };
  const taken = new Set();
  b.tab = async () => {
    const p = ctx.pages().find((x) => !taken.has(x)) ?? (await ctx.newPage());
    taken.add(p);
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    p.on('console', (m) => /Content Security Policy/i.test(m.text()) && cspViolations.push(m.text()));
    p.on('dialog', (d) => {
      b.asked.push(d.message());
      void (b.answers.length === 0 || b.answers.shift() ? d.accept() : d.dismiss());
    });
    return p;
  };
  return b;
}

/**
 * signInWithSso clicks the login screen's button (shown at any address but
 * /) and answers the client state the sign-in was started with and the
 * address it came back to, once the app has gone on to the start page.
 */
async function signInWithSso(p) {
  await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  const [req] = await Promise.all([
    p.waitForRequest((r) => new URL(r.url()).pathname === '/api/auth/oidc/login'),
    p.getByRole('button', { name: 'Sign in with single sign-on' }).click(),
  ]);
  await p.waitForURL((u) => u.pathname === '/');
  return { state: new URL(req.url()).searchParams.get('client_state'), arrived: await p.evaluate(() => window.__arrived) };
}

before(async () => {
  s = await startStack({ auth: ADMIN, oidc: true });
});

after(async () => {
  await s?.stop();
});

describe('single sign-on', () => {
  it('the button goes through the provider and back: signed in, the one-time value used up, the address cleared', async () => {
    assert.deepEqual((await api('/api/auth/config')).body, { mode: 'local', oidc: true });
    const b = await browser();
    try {
      const p = await b.tab();
      await p.goto(s.base + '/history');
      assert.deepEqual(await axeBothSchemes(p), [], 'the login screen with the single sign-on button');
      const { state, arrived } = await signInWithSso(p);
      assert.match(state, /^[A-Za-z0-9_-]{43}$/);
      const fragment = new URLSearchParams(new URL(arrived).hash.slice(1));
      assert.equal(fragment.get('client_state'), state, 'the service handed the value back');
      await p.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
      await p.getByRole('banner').getByText('Signed in as ann').waitFor();
      assert.equal(p.url(), s.base + '/');
      const session = await sessionOf(p);
      assert.equal(session.token, fragment.get('token'));
      assert.equal(session.user.username, 'ann');
      assert.equal(session.user.has_password, false);
      assert.equal(await p.evaluate((k) => sessionStorage.getItem(k), STATE_KEY), null);
      assert.deepEqual(b.asked, []);

      // An account without a password makes a token without one, just after signing in.
      await (await navLink(p, 'Settings')).click();
      const tokenForm = p.getByRole('form', { name: 'New access token' });
      await tokenForm.getByLabel('Name (what uses it)', { exact: true }).fill('ann-script');
      assert.equal(await tokenForm.getByLabel('Current password').count(), 0);
      await tokenForm.getByRole('button', { name: 'Create token', exact: true }).click();
      await p.getByRole('status').filter({ hasText: 'Access token ann-script created.' }).waitFor();
    } finally {
      await b.ctx.close();
    }
  });

  it("someone else's /login#token=… address signs no one in: not in another browser, not again in the same tab", async () => {
    // Mallory signs in with single sign-on in her own browser and keeps the address it came back to.
    s.oidcUser = { sub: 'mallory-at-provider', preferred_username: 'mallory' };
    const mallory = await browser();
    const victim = await browser();
    try {
      const mp = await mallory.tab();
      await mp.goto(s.base + '/history');
      const { arrived } = await signInWithSso(mp);
      await mp.getByRole('banner').getByText('Signed in as mallory').waitFor();
      const theirs = new URLSearchParams(new URL(arrived).hash.slice(1)).get('token');
      assert.equal((await api('/api/auth/me', theirs)).body.username, 'mallory');

      // Sent to someone signed out: the login screen stays, with the notice.
      const vp = await victim.tab();
      await vp.goto(arrived);
      await vp.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await vp.getByRole('status').filter({ hasText: NOT_STARTED }).waitFor();
      assert.equal(vp.url(), s.base + '/login');
      assert.equal(await sessionOf(vp), null);

      // The victim signs in, then opens the link again: still the victim, nothing asked.
      await vp.getByLabel('Username', { exact: true }).fill(ADMIN.username);
      await vp.getByLabel('Password', { exact: true }).fill(ADMIN.password);
      await vp.getByRole('button', { name: 'Sign in', exact: true }).click();
      await vp.getByRole('banner').getByText('Signed in as admin').waitFor();
      const mine = await sessionOf(vp);
      await vp.goto(arrived);
      await vp.getByRole('status').filter({ hasText: NOT_STARTED }).waitFor();
      await vp.getByRole('banner').getByText('Signed in as admin').waitFor();
      assert.deepEqual(await sessionOf(vp), mine);
      assert.deepEqual(victim.asked, []);

      // In the tab that started it, the value is used up: the address works once.
      await mp.goto(s.base + '/history');
      await mp.goto(arrived);
      await mp.getByRole('status').filter({ hasText: NOT_STARTED }).waitFor();
      assert.equal((await sessionOf(mp)).token, theirs, 'her own session, as it was');
    } finally {
      s.oidcUser = { sub: 'ann-at-provider', preferred_username: 'ann' };
      await mallory.ctx.close();
      await victim.ctx.close();
    }
  });

  it("a sign-in that comes back over another user's session asks first, naming both; declined it is ended, accepted it replaces the other", async () => {
    // page.route does not see what the service worker fetches: the sign-in is held without one.
    const b = await browser({ serviceWorkers: 'block' });
    try {
      // Tab A starts single sign-on (its value kept); before it goes on to the
      // provider, admin signs in in tab B of the same browser.
      const a = await b.tab();
      const other = await b.tab();
      /** startOverAdmin: A's sign-in, with admin signed in meanwhile; answers the address A came back to and admin's token. */
      let adminToken;
      const startOverAdmin = async () => {
        await a.goto(s.base + '/history');
        // Held at its first request: page.route sees no request a redirect leads to.
        await a.route((url) => url.pathname === '/api/auth/oidc/login', async (route) => {
          await other.goto(s.base + '/');
          await other.getByLabel('Username', { exact: true }).fill(ADMIN.username);
          await other.getByLabel('Password', { exact: true }).fill(ADMIN.password);
          await other.getByRole('button', { name: 'Sign in', exact: true }).click();
          await other.getByRole('banner').getByText('Signed in as admin').waitFor();
          adminToken = (await sessionOf(other)).token;
          await route.continue();
        }, { times: 1 });
        return { arrived: (await signInWithSso(a)).arrived, adminToken };
      };
      const ask = 'This browser is signed in as admin. Sign admin out here and sign in as ann?';

      b.answers.push(false);
      const { arrived: declined } = await startOverAdmin();
      await a.getByRole('status').filter({ hasText: 'You are still signed in as admin; the new sign-in was not used.' }).waitFor();
      assert.deepEqual(b.asked, [ask]);
      const admin = await sessionOf(a);
      assert.equal(admin.user.username, 'admin');
      const refused = new URLSearchParams(new URL(declined).hash.slice(1)).get('token');
      assert.notEqual(admin.token, refused);
      assert.equal((await api('/api/auth/me', refused)).status, 401, 'the sign-in not kept is ended on the service');
      assert.equal((await api('/api/auth/me', admin.token)).status, 200);

      // Signed out in the meantime (the login screen comes back), then the same with "OK".
      await a.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
      await a.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      b.answers.push(true);
      const { arrived: accepted, adminToken: replaced } = await startOverAdmin();
      await a.getByRole('banner').getByText('Signed in as ann').waitFor();
      assert.deepEqual(b.asked, [ask, ask]);
      const ann = await sessionOf(a);
      assert.equal(ann.token, new URLSearchParams(new URL(accepted).hash.slice(1)).get('token'));
      assert.equal((await sessionOf(other)).token, ann.token, 'one session for the browser: tab B reads it too');
      assert.equal((await api('/api/auth/me', ann.token)).body.username, 'ann');
      assert.equal((await api('/api/auth/me', replaced)).status, 401, 'the session replaced is ended on the service');
    } finally {
      await b.ctx.close();
    }
  });

  it('no CSP violation and no uncaught error in the whole run', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});
