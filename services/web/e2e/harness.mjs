// The stack the end-to-end tests drive: fuel-service and docqa-service built
// from this repository (BIN_DIR: make test's race-detector builds; else bin/,
// by `make build`) on their embedded defaults in
// a temporary directory, the repository's Caddyfile in front of them serving
// services/web/dist, and Debian's Chromium through playwright-core. docqa's
// chat provider is a small OpenAI-compatible stand-in (fakeChat) whose
// stream the test can hold open, so "the answer renders while it streams"
// is observed, not assumed; retrieval and its sources are docqa's own.
// startStack({ auth }) starts everything with accounts on (AUTH_MODE=local),
// as deploy/scripts/run-local.sh would: the same identity secret for
// fuel-service, docqa-service and Caddy, and a first administrator; with
// oidc as well, fuel-service signs in through an OpenID provider
// (oauth2-mock-server: discovery, JWKS, RS256 ID tokens with the nonce, PKCE
// checked) that signs in s.oidcUser at once, as a provider with a remembered
// sign-in does.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as netServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import { OAuth2Server } from 'oauth2-mock-server';

export const repo = resolve(import.meta.dirname, '../../..');
const bin = process.env.BIN_DIR ?? join(repo, 'bin');
// WEB_DIST: another build of the client (a second checkout's, or one built beside dist/).
export const dist = resolve(process.env.WEB_DIST ?? resolve(import.meta.dirname, '../dist'));
export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axeViolations runs axe-core on the page as it is and returns its serious and critical violations. */
export async function axeViolations(page) {
  await page.evaluate(axeSource); // through the DevTools protocol: the page's CSP stays on
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  });
}

/** axeBothSchemes: axeViolations in the light and the dark scheme, each prefixed with its scheme; the page is left light. */
export async function axeBothSchemes(page) {
  const found = [];
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const v of await axeViolations(page)) found.push(`${scheme}: ${v}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/**
 * navLink answers the main navigation's link to the page name, opening
 * "More" first when the link is under it (a phone's bottom bar); label and
 * more are the navigation's and the button's names in the page's language.
 */
export async function navLink(page, name, { label = 'Main', more = 'More' } = {}) {
  const nav = page.getByRole('navigation', { name: label });
  const link = nav.getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) {
    await nav.getByRole('button', { name: more, exact: true }).click();
    await link.waitFor();
  }
  return link;
}

/** sessionOf reads the session a page keeps in IndexedDB (carhub-auth/session), null when none. */
export function sessionOf(page) {
  return page.evaluate(() => new Promise((ok, fail) => {
    const open = indexedDB.open('carhub-auth');
    open.onerror = () => fail(open.error);
    open.onsuccess = () => {
      try {
        const get = open.result.transaction('session').objectStore('session').get('session');
        get.onsuccess = () => ok(get.result ?? null);
        get.onerror = () => fail(get.error);
      } catch (err) {
        fail(err);
      }
    };
  }));
}

/**
 * callApi sends a JSON request to the stack s's front door (init as fetch
 * takes it) and answers its status and body, parsed (null when empty).
 */
export async function callApi(s, path, init = {}) {
  const res = await fetch(s.base + path, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/**
 * metricOwner opens the first page of the stack s, records its uncaught
 * errors in pageErrors and accepts its dialogs, sets the owner's
 * preferences (metric units, EUR, locale, the time zone zone) and makes a
 * first vehicle, name of fuelType, the default; it answers { page, vehicle }.
 */
export async function metricOwner(s, { locale, zone, fuelType, pageErrors, name = 'Golf' }) {
  const page = s.context.pages()[0] ?? (await s.context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => void d.accept());
  const prefs = await callApi(s, '/api/preferences', {
    method: 'PUT',
    body: JSON.stringify({
      distance_unit: 'km', volume_unit: 'l', consumption_unit: 'l_per_100km', electric_consumption_unit: 'kwh_per_100km',
      gas_consumption_unit: 'kg_per_100km', locale, currency: 'EUR', time_zone: zone,
    }),
  });
  if (prefs.status !== 200) throw new Error(`preferences: ${prefs.status} ${JSON.stringify(prefs.body)}`);
  const v = await callApi(s, '/api/vehicles', { method: 'POST', body: JSON.stringify({ name, fuel_type: fuelType, default_vehicle: true }) });
  if (v.status !== 200 && v.status !== 201) throw new Error(`vehicle: ${v.status} ${JSON.stringify(v.body)}`);
  return { page, vehicle: v.body };
}

/**
 * fillWhen types the local date and time "YYYY-MM-DDTHH:MM" into a date
 * field (src/components/date-field.tsx; dateInput: its date input, which its
 * label names): the date year first and the time on a 24-hour clock, which the
 * field reads in every locale.
 */
export async function fillWhen(dateInput, local) {
  const [date, time] = local.split('T');
  await dateInput.fill(date);
  const id = await dateInput.getAttribute('id');
  await dateInput.page().locator(`[id="${id}-time"]`).fill(time);
}

/** eventually retries check (which throws until it holds) every `every` ms for up to ms. */
export async function eventually(check, ms = 15_000, every = 100) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, every));
    }
  }
}

// The ports handed out, by every test file's process: npm run e2e runs two
// files at once, each in its own process with its own stack. A port is
// claimed by creating a file named after it here (exclusively), and the
// claims of this process are removed when it exits.
const portClaims = join(tmpdir(), 'carhub-e2e-ports');
mkdirSync(portClaims, { recursive: true });
const handedOut = new Set();
process.on('exit', () => {
  for (const port of handedOut) rmSync(join(portClaims, String(port)), { force: true });
});

/** claim answers whether port was still free to hand out (no process of this run claimed it before). */
function claim(port) {
  if (handedOut.has(port)) return false;
  try {
    writeFileSync(join(portClaims, String(port)), String(process.pid), { flag: 'wx' });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    // A claim left by a process that ended without removing it is stale.
    const owner = Number(readFileSync(join(portClaims, String(port)), 'utf8'));
    if (alive(owner)) return false;
    writeFileSync(join(portClaims, String(port)), String(process.pid));
  }
  handedOut.add(port);
  return true;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * freePort returns a port on 127.0.0.1 that was free a moment ago, and never
 * one handed out before, by this process or by another test file's running
 * beside it: the kernel picks each at random, so two calls in a row can name
 * the same port, and two services would then race for it.
 */
export async function freePort() {
  for (;;) {
    const port = await new Promise((ok, fail) => {
      const s = netServer();
      s.once('error', fail);
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address();
        s.close(() => ok(port));
      });
    });
    if (claim(port)) return port;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitHttp(url, proc, name, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (proc && proc.exitCode !== null) throw new Error(`${name} exited (${proc.exitCode}):\n${proc.logs()}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`${name} did not answer ${url} within ${ms} ms:\n${proc?.logs() ?? ''}`);
}

function run(name, cmd, args, env) {
  const p = spawn(cmd, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  const keep = (d) => {
    logs += d;
    // A service built with -race (make test builds them so) reports a
    // data race on its stderr and goes on: s.stop fails the file then.
    if (!p.raced && logs.slice(-(String(d).length + 32)).includes('WARNING: DATA RACE')) p.raced = true;
    if (logs.length > 200_000) logs = logs.slice(-100_000);
  };
  p.stdout.on('data', keep);
  p.stderr.on('data', keep);
  p.logs = () => logs;
  p.name = name;
  return p;
}

function stop(p) {
  if (!p || p.exitCode !== null) return Promise.resolve();
  return new Promise((ok) => {
    const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
    p.once('exit', () => {
      clearTimeout(t);
      ok();
    });
    p.kill('SIGTERM');
  });
}

/** fakeChat: an OpenAI-compatible streaming chat endpoint; hold() keeps the next stream open after its first piece (and can then cut it off). */
export function fakeChat() {
  const requests = [];
  let gate = null;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const parsed = JSON.parse(body);
      requests.push(parsed);
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      const frame = (content, finish = null) =>
        res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta: content === null ? {} : { role: 'assistant', content }, finish_reason: finish }] })}\n\n`);
      frame('Change the engine oil ');
      const g = gate;
      gate = null;
      if (g) await g.promise;
      if (g?.fail) {
        // Cut off without a finish reason: docqa ends its answer with an error event.
        res.end();
        return;
      }
      frame('every 15000 km [1].');
      frame(null, 'stop');
      res.end('data: [DONE]\n\n');
    });
  });
  return {
    requests,
    /** hold keeps the next stream open after its first piece until release(); with fail, release ends it without a finish reason. */
    hold({ fail = false } = {}) {
      let release;
      const promise = new Promise((r) => (release = r));
      gate = { promise, fail };
      return release;
    },
    listen: () => new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server.address().port))),
    close: () => new Promise((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
}

/**
 * startStack starts the services, Caddy and Chromium. With auth ({username,
 * password, loginsPerMinute = 20}) accounts are on (AUTH_MODE=local) and that user is the first
 * administrator; s.login() then answers a token for API calls of the test. With oidc (and auth)
 * single sign-on is on, through a provider that signs in s.oidcUser ({ sub, preferred_username }).
 * chatModel false starts docqa as installed by default, without a chat model. fuelEnv: more of
 * fuel-service's environment (the notifications' SMTP_URL, NOTIFY_FROM, WEBHOOK_ALLOW_PRIVATE).
 */
export async function startStack({ auth, oidc = false, locale = 'en-IE', timezoneId = 'Europe/Berlin', chatModel = true, fuelEnv: moreFuelEnv = {} } = {}) {
  for (const f of ['fuel-service', 'docqa-service', 'caddy']) {
    if (!existsSync(join(bin, f))) throw new Error(`${join(bin, f)} is missing: run make build first`);
  }
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} is missing: run make build (or npm run build) first`);
  if (!existsSync(chromiumPath)) throw new Error(`Chromium is missing at ${chromiumPath}: apt-get install chromium (.ci/run does), or set CHROMIUM`);

  const dir = mkdtempSync(join(tmpdir(), 'carhub-e2e-'));
  // Caddy serves a copy of the build, so a test can publish a "new version".
  const webRoot = join(dir, 'web');
  cpSync(dist, webRoot, { recursive: true });
  const chat = fakeChat();
  const chatPort = await chat.listen();
  const [fuelPort, docqaPort, webPort, metricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  // Accounts: one secret for the three (fuel signs the identity docqa trusts, Caddy's route picks forward_auth).
  const authEnv = auth
    ? { AUTH_MODE: 'local', AUTH_IDENTITY_SECRET: randomBytes(48).toString('base64') }
    : { AUTH_MODE: 'off', AUTH_IDENTITY_SECRET: '' };
  const fuelEnv = {
    FUEL_ADDR: `127.0.0.1:${fuelPort}`, DATABASE_URL: '', FUEL_SQLITE_PATH: join(dir, 'fuel.db'), LOG_LEVEL: 'warn',
    ...authEnv, AUTH_ADMIN_USERNAME: auth?.username ?? '', AUTH_ADMIN_PASSWORD: auth?.password ?? '',
    // Room for a test's own logins before the one that tests throttling.
    AUTH_LOGINS_PER_MINUTE: String(auth?.loginsPerMinute ?? 20),
    ...moreFuelEnv,
  };
  const s = { dir, chat, base: `http://127.0.0.1:${webPort}`, procs: {} };
  if (oidc) {
    s.provider = new OAuth2Server();
    await s.provider.issuer.keys.generate('RS256');
    await s.provider.start(0, '127.0.0.1');
    s.oidcUser = { sub: 'ann-at-provider', preferred_username: 'ann' };
    // Who signs in: the ID token (and the access token) of every sign-in are s.oidcUser's.
    s.provider.service.on('beforeTokenSigning', (token) => Object.assign(token.payload, s.oidcUser));
    Object.assign(fuelEnv, {
      AUTH_OIDC_ISSUER: s.provider.issuer.url,
      AUTH_OIDC_CLIENT_ID: 'carhub-e2e',
      AUTH_OIDC_CLIENT_SECRET: randomBytes(24).toString('hex'),
      AUTH_OIDC_REDIRECT_URL: `${s.base}/api/auth/oidc/callback`,
      AUTH_OIDC_ALLOW_ANY: 'true',
    });
  }

  s.startFuel = async () => {
    s.procs.fuel = run('fuel-service', join(bin, 'fuel-service'), [], fuelEnv);
    await waitHttp(`http://127.0.0.1:${fuelPort}/health`, s.procs.fuel, 'fuel-service');
  };
  s.stopFuel = () => stop(s.procs.fuel);
  await s.startFuel();

  s.procs.docqa = run('docqa-service', join(bin, 'docqa-service'), [], {
    DOCQA_ADDR: `127.0.0.1:${docqaPort}`,
    VECTOR_STORE: 'embedded',
    MILVUS_ADDRESS: '',
    DOCQA_STORE_PATH: join(dir, 'vectors'),
    DOCQA_TEMP_DIR: join(dir, 'uploads'),
    DOCQA_DATA_DIR: join(dir, 'data'),
    DOCQA_FILES_DIR: join(dir, 'files'),
    DOCQA_PAGE_CACHE_DIR: join(dir, 'pages'),
    // The compiled PDF engine is cached where `make run` keeps it: later runs start at once.
    DOCQA_PDF_CACHE_DIR: process.env.DOCQA_PDF_CACHE_DIR ?? join(repo, 'var', 'pdfium-cache'),
    EMBEDDING_BASE_URL: '',
    EMBEDDING_API_KEY: '',
    // chatModel false: the default install, no chat model (docqa quotes passages).
    CHAT_BASE_URL: chatModel ? `http://127.0.0.1:${chatPort}/v1` : '',
    CHAT_API_KEY: chatModel ? 'e2e' : '',
    CHAT_MODEL: chatModel ? 'fake' : '',
    LOG_LEVEL: 'warn',
    ...authEnv,
  });
  await waitHttp(`http://127.0.0.1:${docqaPort}/health`, s.procs.docqa, 'docqa-service', 180_000);

  s.procs.caddy = run('caddy', join(bin, 'caddy'), ['run', '--config', 'Caddyfile', '--adapter', 'caddyfile'], {
    LISTEN_ADDRESS: `http://127.0.0.1:${webPort}`,
    FUEL_UPSTREAM: `127.0.0.1:${fuelPort}`,
    DOCQA_UPSTREAM: `127.0.0.1:${docqaPort}`,
    WEB_ROOT: webRoot,
    AUTH_MODE: authEnv.AUTH_MODE,
    // Each stack its own: two test runs on one machine must not share Caddy's metrics listener.
    METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
  });
  await waitHttp(`${s.base}/health`, s.procs.caddy, 'caddy');

  // A persistent context on a fresh profile: an incognito context is never installable.
  // The browser's locale decides the owner's first units: en-IE reads km, litres and L/100 km in
  // English with a decimal point, what the tests of the web client issue were written for (en-GB,
  // their locale before, now starts in miles and mpg UK).
  let profiles = 0;
  s.newProfile = async (opts = {}) => {
    const context = await chromium.launchPersistentContext(join(dir, `chromium-profile-${profiles++}`), {
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 390, height: 844 },
      serviceWorkers: 'allow',
      locale,
      timezoneId,
      ...opts,
    });
    context.setDefaultTimeout(15_000);
    return context;
  };
  s.context = await s.newProfile();

  /** waitApi waits until the gateway answers path with 2xx (after a service restart). */
  s.waitApi = (path, ms = 30_000) => waitHttp(s.base + path, null, 'gateway', ms);

  /** publishUpdate changes the served service worker, as a new deployment does. */
  s.publishUpdate = () => appendFileSync(join(webRoot, 'sw.js'), `\n// e2e update ${Date.now()}\n`);

  /** login signs in through the gateway's API (not the page) and answers the token. */
  s.login = async (username = auth?.username, password = auth?.password) => {
    const res = await fetch(s.base + '/api/auth/login', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }),
    });
    if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${await res.text()}`);
    return (await res.json()).token;
  };

  s.logs = () => Object.values(s.procs).map((p) => `--- ${p.name}\n${p.logs()}`).join('\n');

  s.stop = async () => {
    await s.context?.close().catch(() => undefined);
    await Promise.all(Object.values(s.procs).map(stop));
    await chat.close();
    await s.provider?.stop();
    // Named after the test file too: two files run at once.
    const logFile = join(tmpdir(), `carhub-e2e-services-${basename(process.argv[1] ?? 'e2e', '.test.mjs')}${auth ? '-auth' : ''}${oidc ? '-oidc' : ''}.log`);
    writeFileSync(logFile, s.logs());
    console.log(`e2e: the services' logs of this run are in ${logFile}`);
    rmSync(dir, { recursive: true, force: true });
    const raced = Object.values(s.procs).filter((p) => p.raced).map((p) => p.name);
    if (raced.length > 0) throw new Error(`data race reported by ${raced.join(', ')}: see ${logFile}`);
  };
  return s;
}

/** shotsDir: where screenshots to look at go (not compared): $SHOTS_DIR, else a directory under the system's temp. */
export const shotsDir = process.env.SHOTS_DIR ?? join(tmpdir(), 'carhub-e2e-shots');

/**
 * shootEverywhere saves screenshots of what page shows at a phone's size
 * (390x844) and a desktop's (1280x800), light and dark, as
 * shotsDir/<name>-<width>-<scheme>.png, then puts the page back at the
 * phone's size in the light scheme.
 */
export async function shootEverywhere(page, name, { fullPage = true } = {}) {
  mkdirSync(shotsDir, { recursive: true });
  for (const [width, height] of [[390, 844], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(shotsDir, `${name}-${width}-${scheme}.png`), fullPage });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
}

/** watchProgress records each line the Manuals page's upload progress shows, in order, once each in a row; progressSeen reads them. */
export async function watchProgress(page) {
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const text = document.querySelector('.progress p[aria-live]')?.textContent;
      if (text && window.__progress.at(-1) !== text) window.__progress.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

export function progressSeen(page) {
  return page.evaluate(() => window.__progress);
}
