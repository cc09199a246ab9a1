// End-to-end, Settings → Notifications and what the service worker does with
// a push (issue 57), accounts off, on a 390x844 phone, in an en-IE browser and
// then a German one. fuel-service runs with the notifications on: e-mail to a
// small SMTP server of this test, webhooks and push endpoints allowed on this
// machine's addresses (WEBHOOK_ALLOW_PRIVATE), reminders evaluated every
// second. Chromium here cannot reach a real push service, so PushManager is
// stubbed in the page: its subscription's endpoint is a stand-in push service
// of this test (with a real P-256 key, which fuel-service checks and encrypts
// to), so what the service sends to "this device" is seen arriving there.
// A push is then delivered to the real service worker through the DevTools
// protocol (ServiceWorker.deliverPushMessage), which shows it as a
// notification, and a tap on it (a notificationclick dispatched in the
// worker) takes the open app to the reminder. The reminders' cards say how
// their owner will hear of them. Screenshots light and dark; axe-core finds
// nothing serious in either scheme.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as tcpServer } from 'node:net';
import { createECDH, randomBytes } from 'node:crypto';
import { axeBothSchemes, callApi, eventually, shootEverywhere, startStack } from './harness.mjs';

let s;
const pageErrors = [];
const api = async (path, init) => {
  const res = await callApi(s, path, init);
  assert.ok(res.status >= 200 && res.status < 300, `${init?.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** receivers: the stand-in push service (POST /push/<device>) and a generic webhook (POST /hook), with what each got. */
function receivers() {
  const pushes = [];
  const hooks = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url.startsWith('/push/')) {
        pushes.push({ path: req.url, headers: req.headers, length: body.length });
        res.writeHead(201).end();
      } else if (req.method === 'POST' && req.url === '/hook') {
        hooks.push({ headers: req.headers, body: JSON.parse(body.toString('utf8')) });
        res.writeHead(200).end();
      } else {
        res.writeHead(404).end();
      }
    });
  });
  return {
    pushes, hooks,
    listen: () => new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server.address().port))),
    close: () => new Promise((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
}

/** smtpSink: an SMTP server that takes every message (no TLS, no login) and keeps its text. */
function smtpSink() {
  const mails = [];
  const server = tcpServer((sock) => {
    let buf = '';
    let data = null;
    sock.write('220 sink.test ESMTP\r\n');
    sock.on('data', (d) => {
      buf += d.toString('utf8');
      for (;;) {
        if (data !== null) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mails.push(data + buf.slice(0, end));
          buf = buf.slice(end + 5);
          data = null;
          sock.write('250 queued\r\n');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') sock.write('250-sink.test\r\n250 8BITMIME\r\n');
        else if (verb === 'DATA') {
          data = '';
          sock.write('354 go on\r\n');
        } else if (verb === 'QUIT') sock.end('221 bye\r\n');
        else sock.write('250 ok\r\n');
      }
    });
    sock.on('error', () => undefined);
  });
  return {
    mails,
    listen: () => new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server.address().port))),
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

const stand = receivers();
const smtp = smtpSink();
let standPort;

/**
 * stubPush: PushManager in every page of context answers a subscription to
 * the stand-in push service (kept in localStorage, as a browser keeps its
 * own across reloads), with a real P-256 key and auth secret.
 */
async function stubPush(context, device) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const sub = {
    endpoint: `http://127.0.0.1:${standPort}/push/${device}`,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  };
  await context.addInitScript((sub) => {
    const KEY = 'e2e-push-subscription';
    const make = (key) => ({
      endpoint: sub.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: key },
      toJSON: () => ({ endpoint: sub.endpoint, expirationTime: null, keys: { p256dh: sub.p256dh, auth: sub.auth } }),
      unsubscribe: async () => {
        localStorage.removeItem(KEY);
        return true;
      },
    });
    PushManager.prototype.subscribe = async function (options) {
      const key = new Uint8Array(options.applicationServerKey);
      localStorage.setItem(KEY, JSON.stringify({ userVisibleOnly: options.userVisibleOnly, key: [...key] }));
      return make(key.buffer);
    };
    PushManager.prototype.getSubscription = async function () {
      const kept = JSON.parse(localStorage.getItem(KEY) ?? 'null');
      return kept ? make(new Uint8Array(kept.key).buffer) : null;
    };
  }, sub);
  return sub;
}

/** openPage: a page of context at /settings, its errors collected. */
async function openSettings(context, heading) {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${s.base}/settings`);
  await page.getByRole('heading', { level: 2, name: heading }).waitFor();
  return page;
}

/**
 * watchShown makes the app's service worker in context note each
 * notification it shows: its title, body, icon and link, and whether
 * registration.getNotifications() lists it right after it was shown, and
 * keep its Notification to be tapped (tap). Read at once, because headless
 * Chromium's list can drop a notification at any later moment: it has no
 * notification centre to keep it in, and its list is synchronised with that.
 */
async function watchShown(context) {
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  await worker.evaluate(() => {
    if (self.e2eShown) return;
    self.e2eShown = [];
    self.e2eNotifications = {};
    const show = self.registration.showNotification.bind(self.registration);
    self.registration.showNotification = async (title, options) => {
      await show(title, options);
      const n = (await self.registration.getNotifications()).find((x) => x.title === title);
      self.e2eShown.push({ title, body: options.body, icon: options.icon, url: options.data?.url, listed: n !== undefined, closed: false });
      if (!n) return;
      self.e2eNotifications[title] = n;
      const close = n.close.bind(n);
      n.close = () => {
        self.e2eShown.find((x) => x.title === title).closed = true;
        close();
      };
    };
  });
  return {
    /** shown: what the worker showed with title, once it has. */
    shown: (title) => eventually(async () => {
      const found = (await worker.evaluate(() => self.e2eShown)).find((x) => x.title === title);
      assert.ok(found, `${title} shown`);
      return found;
    }),
    /** tap: a tap on the notification title (a notificationclick in the worker). */
    tap: (title) => worker.evaluate((title) => {
      // eslint-disable-next-line no-undef -- the worker's global, this function runs there
      self.dispatchEvent(new NotificationEvent('notificationclick', { notification: self.e2eNotifications[title] }));
    }, title),
  };
}

/** The DevTools session of each page that pushes were delivered through, with its registration's id. */
const pushSessions = new WeakMap();

/**
 * deliverPush hands the service worker of page's origin a push (message as
 * JSON, a string as it is), as a push service would, through the DevTools
 * protocol: one session per page, which learns the registration's id once.
 */
async function deliverPush(page, message) {
  if (!pushSessions.has(page)) {
    const cdp = await page.context().newCDPSession(page);
    const registration = new Promise((ok) => cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const r = registrations.find((x) => !x.isDeleted && x.scopeURL === `${s.base}/`);
      if (r) ok(r.registrationId);
    }));
    await cdp.send('ServiceWorker.enable');
    pushSessions.set(page, { cdp, registrationId: await registration });
  }
  const { cdp, registrationId } = pushSessions.get(page);
  await cdp.send('ServiceWorker.deliverPushMessage', { origin: s.base, registrationId, data: typeof message === 'string' ? message : JSON.stringify(message) });
}

before(async () => {
  standPort = await stand.listen();
  const smtpPort = await smtp.listen();
  s = await startStack({
    fuelEnv: {
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, NOTIFY_FROM: 'CarHub <cars@example.org>',
      WEBHOOK_ALLOW_PRIVATE: 'true', NOTIFY_INTERVAL: '1s', NOTIFY_RETRY_BASE: '1s',
    },
  });
});

after(async () => {
  if (pageErrors.length > 0) console.log(pageErrors.join('\n'));
  await s?.stop();
  await stand.close();
  await smtp.close();
});

describe('notifications', () => {
  let golf;
  let oil;

  it('push on this device, e-mail and a webhook: refused where wrong, saved, kept after a reload, tested on each channel', async () => {
    const context = s.context;
    await context.grantPermissions(['notifications'], { origin: s.base });
    const device = await stubPush(context, 'phone-en');
    const page = await openSettings(context, 'Notifications');
    const section = page.getByRole('region', { name: 'Notifications' });

    await section.getByText('Push is off for this device.').waitFor();
    await section.getByRole('button', { name: 'Turn on push on this device' }).click();
    await section.getByRole('status').filter({ hasText: 'Push is on for this device: reminders show here as notifications.' }).waitFor();
    // Subscribed as a push service wants it: shown to the user, with the service's 65-byte key.
    const asked = await page.evaluate(() => JSON.parse(localStorage.getItem('e2e-push-subscription')));
    assert.equal(asked.userVisibleOnly, true);
    const key = (await api('/api/notifications/vapid-public-key')).key;
    assert.deepEqual(asked.key, [...Buffer.from(key, 'base64url')]);
    // Push on a device turned the channel on.
    assert.equal(await section.getByRole('checkbox', { name: 'Push, on the devices where it is on' }).isChecked(), true);
    assert.equal((await api('/api/notifications/settings')).channels.push, true);

    await section.getByRole('checkbox', { name: 'E-mail', exact: true }).check();
    await section.getByRole('textbox', { name: 'E-mail address' }).fill('ann@example.org');
    await section.getByRole('checkbox', { name: 'Webhook (ntfy, Gotify or your own)' }).check();
    await section.getByLabel('Format').selectOption('generic');
    const url = section.getByRole('textbox', { name: 'Webhook URL' });
    const save = section.getByRole('button', { name: 'Save notifications' });

    // Without its scheme: refused here, in words, beside the field and in the summary.
    await url.fill('127.0.0.1/hook');
    await save.click();
    const summary = section.getByRole('alert').filter({ hasText: 'There is a problem' });
    await summary.getByRole('link', { name: 'Webhook URL: write the whole address, starting with https://.' }).waitFor();
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#notify-webhook-url-error').textContent(), 'Webhook URL: write the whole address, starting with https://.');
    // A fragment: the service refuses it, naming the field, and the form puts it there.
    await url.fill(`http://127.0.0.1:${standPort}/hook#here`);
    await save.click();
    await page.locator('#notify-webhook-url-error').filter({ hasText: /^Webhook URL: must not have a #fragment/ }).waitFor();
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    assert.equal((await api('/api/notifications/settings')).webhook_url, null, 'nothing saved');
    await shootEverywhere(page, 'notifications-refused-en', { fullPage: false });

    await url.fill(`http://127.0.0.1:${standPort}/hook`);
    await section.getByLabel('Bearer token (optional)').fill('tk-e2e-secret');
    await save.click();
    await section.getByText('Notifications saved.').waitFor();
    const saved = await api('/api/notifications/settings');
    assert.deepEqual(
      [saved.email, saved.webhook_url, saved.webhook_format, saved.webhook_token_set, saved.channels, saved.when],
      ['ann@example.org', `http://127.0.0.1:${standPort}/hook`, 'generic', true, { push: true, email: true, webhook: true }, 'due'],
    );
    assert.equal('webhook_token' in saved, false, 'the token is never answered');

    await page.reload();
    await section.getByText('Push is on for this device: reminders show here as notifications.').waitFor();
    assert.equal(await section.getByRole('textbox', { name: 'E-mail address' }).inputValue(), 'ann@example.org');
    assert.equal(await url.inputValue(), `http://127.0.0.1:${standPort}/hook`);
    assert.equal(await section.getByLabel('Bearer token (optional)').inputValue(), '', 'a token is never shown');
    await section.getByText('A token is saved: leave this empty to keep it, or type a new one.').waitFor();
    for (const name of ['Push, on the devices where it is on', 'E-mail', 'Webhook (ntfy, Gotify or your own)']) {
      assert.equal(await section.getByRole('checkbox', { name, exact: true }).isChecked(), true, name);
    }

    // The test reaches each channel: the stand-in push service at this device's endpoint, the mail server, the webhook.
    await section.getByRole('button', { name: 'Send a test' }).click();
    const results = section.getByRole('list').filter({ hasText: 'Push: sent' });
    await results.waitFor();
    assert.deepEqual(await results.getByRole('listitem').allInnerTexts(), ['Push: sent', 'E-mail: sent', 'Webhook: sent']);
    const push = stand.pushes.find((p) => p.path === new URL(device.endpoint).pathname);
    assert.ok(push, `the push service got ${JSON.stringify(stand.pushes.map((p) => p.path))}`);
    assert.equal(push.headers['content-encoding'], 'aes128gcm');
    assert.match(push.headers.authorization, /^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/);
    assert.ok(smtp.mails.some((m) => /^Subject: CarHub test notification\r?$/m.test(m) && /^To: <?ann@example\.org>?\r?$/m.test(m)), 'the test mail');
    const hook = stand.hooks.at(-1);
    assert.equal(hook.headers.authorization, 'Bearer tk-e2e-secret');
    assert.equal(hook.body.title, 'CarHub test notification');

    await shootEverywhere(page, 'notifications-en');
    assert.deepEqual(await axeBothSchemes(page), []);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
  });

  it('a reminder due is sent on each channel once, listed as sent, and its card says so', async () => {
    golf = await api('/api/vehicles', { method: 'POST', body: JSON.stringify({ name: 'Golf', fuel_type: 'gasoline', default_vehicle: true, current_odometer: 20000 }) });
    // Every 5 000 km, last done at 14 000: overdue by 1 000 km.
    oil = await api('/api/reminders', { method: 'POST', body: JSON.stringify({ vehicle_id: golf.id, title: 'Oil change', category: 'service', every_km: 5000, last_done: { odometer: 14000 } }) });
    const tyres = await api('/api/reminders', { method: 'POST', body: JSON.stringify({ vehicle_id: golf.id, title: 'Tyres', category: 'tyres', every_months: 24, last_done: { time: new Date().toISOString() } }) });
    assert.equal(oil.status, 'overdue');
    assert.equal(tyres.status, 'ok');
    const sent = await eventually(async () => {
      const list = (await api('/api/notifications')).filter((d) => d.reminder_id === oil.id);
      assert.deepEqual(list.map((d) => [d.channel, d.status]).sort(), [['email', 'sent'], ['push', 'sent'], ['webhook', 'sent']]);
      return list;
    }, 30_000, 250);
    assert.ok(sent.every((d) => d.title === 'Oil change' && d.vehicle === 'Golf'));
    assert.ok(smtp.mails.some((m) => /^Subject: Oil change is overdue - Golf\r?$/m.test(m)), 'the reminder\'s mail');
    assert.equal(stand.hooks.at(-1).body.title, 'Oil change');

    const page = s.context.pages()[0];
    await page.goto(`${s.base}/costs`);
    const card = (title) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3, name: title }) });
    await card('Oil change').getByText('You’re notified once by push, e-mail and webhook.').waitFor();
    await card('Tyres').getByText('You’ll be notified by push, e-mail and webhook when it is due soon.').waitFor();

    await page.goto(`${s.base}/settings`);
    const recent = page.getByRole('list', { name: 'Recently sent' });
    await recent.getByRole('listitem').first().waitFor();
    const items = await recent.getByRole('listitem').allInnerTexts();
    assert.equal(items.length, 3);
    for (const channel of ['Push', 'E-mail', 'Webhook']) {
      assert.ok(items.some((t) => new RegExp(`^Oil change – Golf\\s+Sent ${channel} · `).test(t)), `${channel}: ${JSON.stringify(items)}`);
    }
  });

  it('the service worker shows a pushed message, and its tap opens the reminder in the open app', async () => {
    const page = s.context.pages()[0];
    await page.goto(`${s.base}/settings`);
    await page.getByRole('heading', { level: 2, name: 'Notifications' }).waitFor();
    const title = 'Oil change is overdue - Golf';
    const worker = await watchShown(s.context);
    const link = `/costs?vehicle=${golf.id}&reminder=${oil.id}`;
    await deliverPush(page, { title, body: 'Overdue by 1,000 km.', url: link });
    assert.deepEqual(await worker.shown(title), { title, body: 'Overdue by 1,000 km.', icon: '/icon-192.png', url: link, listed: true, closed: false });

    // A tap: the worker closes it and takes the open window to the reminder, inside the app (no reload).
    await page.evaluate(() => (window.__sameDocument = true));
    await worker.tap(title);
    await page.waitForURL(`${s.base}${link}`);
    const card = page.locator(`#reminder-${oil.id}`);
    await eventually(async () => assert.equal(await card.evaluate((el) => el === document.activeElement), true, 'the reminder is focused'));
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'no reload');
    assert.equal((await worker.shown(title)).closed, true, 'closed on the tap');

    // A link to another site is not followed: the reminders open instead.
    await deliverPush(page, { title: 'Elsewhere', body: '', url: 'https://example.org/phish' });
    assert.equal((await worker.shown('Elsewhere')).url, '/costs');
    // Not the JSON expected: shown all the same, as its text, under the app's name.
    await deliverPush(page, 'oil');
    assert.equal((await worker.shown('CarHub')).body, 'oil');
    await shootEverywhere(page, 'notifications-reminder', { fullPage: false });
  });

  it('in German: blocked notifications say how to allow them; a digest at 7.30 and an ntfy topic are kept', async () => {
    const context = await s.newProfile({ locale: 'de-DE' });
    try {
      await stubPush(context, 'phone-de');
      await context.grantPermissions([], { origin: s.base });
      const page = await openSettings(context, 'Benachrichtigungen');
      const section = page.getByRole('region', { name: 'Benachrichtigungen' });
      // Refused before: asking again would show nothing, so the page says how to allow them instead.
      await section.getByText(/^Dieser Browser blockiert Mitteilungen von CarHub\. Um sie zu erlauben, öffnen Sie die Einstellungen der Website/).waitFor();
      await page.locator('#notify-h').evaluate((h) => h.scrollIntoView());
      await shootEverywhere(page, 'notifications-blocked-de', { fullPage: false });
      assert.equal(await section.getByRole('button', { name: 'Push auf diesem Gerät einschalten' }).isDisabled(), true);
      assert.equal(await section.getByText('Push ist auf diesem Gerät aus.').isVisible(), true);

      await context.grantPermissions(['notifications'], { origin: s.base });
      await page.reload();
      await section.getByRole('button', { name: 'Push auf diesem Gerät einschalten' }).click();
      await section.getByText('Push ist auf diesem Gerät an: Erinnerungen erscheinen hier als Mitteilungen.').waitFor();
      assert.equal(await section.getByText(/^Dieser Browser blockiert/).count(), 0);

      await section.getByLabel('Nachrichtenformat').selectOption('ntfy');
      const url = section.getByRole('textbox', { name: 'Webhook-URL' });
      await url.fill('ntfy.sh/golf');
      await section.getByRole('radio', { name: 'In einer Übersicht am Tag' }).check();
      const time = section.getByRole('textbox', { name: 'Uhrzeit der Übersicht' });
      await time.fill('7.30');
      await section.getByRole('button', { name: 'Benachrichtigungen speichern' }).click();
      await page.locator('#notify-webhook-url-error').filter({ hasText: 'Webhook-URL: Schreiben Sie die ganze Adresse, beginnend mit https://.' }).waitFor();
      await url.fill(`http://127.0.0.1:${standPort}/golf`);
      await section.getByRole('button', { name: 'Benachrichtigungen speichern' }).click();
      await section.getByText('Benachrichtigungen gespeichert.').waitFor();
      // A new address drops the token that was given for the old one.
      const saved = await api('/api/notifications/settings');
      assert.deepEqual([saved.webhook_format, saved.webhook_url, saved.webhook_token_set, saved.when, saved.digest_time],
        ['ntfy', `http://127.0.0.1:${standPort}/golf`, false, 'digest', '07:30']);

      await page.reload();
      await section.getByText('Push ist auf diesem Gerät an: Erinnerungen erscheinen hier als Mitteilungen.').waitFor();
      assert.equal(await time.inputValue(), '07:30');
      assert.equal(await section.getByRole('radio', { name: 'In einer Übersicht am Tag' }).isChecked(), true);
      assert.equal(await section.getByLabel('Nachrichtenformat').inputValue(), 'ntfy');
      await section.getByText('In Ihrer Zeitzone, Europe/Berlin. Schreiben Sie sie wie 17:10.').waitFor();

      const worker = await watchShown(context);
      await deliverPush(page, { title: 'Ölwechsel ist überfällig - Golf', body: 'Überfällig seit 1.000 km.', url: '/costs' });
      assert.equal((await worker.shown('Ölwechsel ist überfällig - Golf')).listed, true);

      await page.goto(`${s.base}/costs`);
      const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3, name: 'Oil change' }) });
      await card.getByText('Sie steht in Ihrer täglichen Übersicht um 07:30, per Push, E-Mail und Webhook.').waitFor();

      await page.goto(`${s.base}/settings`);
      await page.getByRole('heading', { level: 2, name: 'Benachrichtigungen' }).waitFor();
      await shootEverywhere(page, 'notifications-de');
      assert.deepEqual(await axeBothSchemes(page), []);

      // Off again: the browser's subscription ends and the service forgets it.
      const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE' && /\/api\/notifications\/push-subscriptions\/\d+$/.test(r.url()));
      await section.getByRole('button', { name: 'Push auf diesem Gerät ausschalten' }).click();
      assert.equal((await deleted).status(), 204);
      await section.getByRole('status').filter({ hasText: 'Push ist auf diesem Gerät aus.' }).waitFor();
      assert.equal(await page.evaluate(() => localStorage.getItem('e2e-push-subscription')), null, 'unsubscribed in the browser');
    } finally {
      await context.close();
    }
  });

  it('on an iPhone, in Safari rather than from the Home Screen: add it there first', async () => {
    const context = await s.newProfile({
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1',
    });
    try {
      const page = await openSettings(context, 'Notifications');
      const device = page.getByRole('group', { name: 'Push on this device' });
      await device.getByText('On an iPhone or iPad, notifications reach CarHub only once it is on your Home Screen: in Safari, tap Share, then “Add to Home Screen”, and open CarHub from there. Then turn push on here.').waitFor();
      assert.equal(await device.getByRole('button').count(), 0, 'nothing to tap that cannot work');
      await page.locator('#notify-h').evaluate((h) => h.scrollIntoView());
      await shootEverywhere(page, 'notifications-iphone', { fullPage: false });
    } finally {
      await context.close();
    }
  });

  it('the page showed no script error', () => {
    assert.deepEqual(pageErrors, []);
  });
});
