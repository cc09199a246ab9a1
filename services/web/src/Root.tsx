// The gate in front of the app: with accounts (AUTH_MODE=local) and no valid
// session it shows the login screen; otherwise the app, as with accounts off.
// The answer of /api/auth/config is kept for an offline start; a single
// sign-on ends at /login#token=…&expires_at=…&client_state=… (or #error=…),
// read here once and taken only when this tab started it (acceptSsoFragment).
import { useEffect, useState } from 'preact/hooks';
import { App } from './App';
import { acceptSsoFragment, authApi } from './api/auth';
import { sessions, type AuthConfig, type Session, type SessionEvent } from './api/session';
import { Login } from './pages/Login';
import { outbox } from './offline/sync';
import { clearSnapshots } from './offline/snapshots';
import { navigate } from './router';
import { isRefuel } from './offline/outbox';
import { t, tn } from './i18n';

type Gate =
  | { kind: 'starting' }
  | { kind: 'login'; notice: string | null }
  | { kind: 'app'; session: Session | undefined; notice: string | null };

/** CONFIG_WAIT: how long a first start (nothing cached) waits for /api/auth/config before going on as with accounts off. */
const CONFIG_WAIT = 10_000;

/** takeFragment answers the fragment of /login (null: none) and clears it at once: a token must not stay in the address bar or the history. */
function takeFragment(): string | null {
  if (location.pathname !== '/login' || location.hash === '') return null;
  const hash = location.hash;
  history.replaceState(null, '', '/login');
  return hash;
}

/** takeSsoFragment takes a single sign-on's token when this tab started it, and answers what to tell the person. */
function takeSsoFragment(hash: string, oidc: boolean): Promise<string | null> {
  return acceptSsoFragment(hash, {
    // Read when used: sessionStorage itself can throw (storage blocked), which counts as nothing started.
    storage: { getItem: (k) => sessionStorage.getItem(k), removeItem: (k) => sessionStorage.removeItem(k) },
    oidc,
    sessions,
    confirm: (message) => window.confirm(message),
    whose: (token) => authApi.meOf(token),
    end: (token) => authApi.logoutOf(token),
  });
}

async function loadConfig(onFresh: (c: AuthConfig) => void): Promise<AuthConfig | null> {
  const fresh = authApi.config(AbortSignal.timeout(CONFIG_WAIT)).then(
    (c) => {
      void sessions.saveConfig(c);
      return c;
    },
    () => null,
  );
  const cached = await sessions.cachedConfig();
  if (!cached) return fresh;
  void fresh.then((c) => c && onFresh(c));
  return cached;
}

/** pendingOf counts the writes on this device that wait for a sign-in of this user (or of anyone, for writes made with accounts off). */
async function pendingOf(userId: number | undefined): Promise<number> {
  return (await outbox.items()).filter((i) => isRefuel(i)).filter((i) => i.owner === undefined || userId === undefined || i.owner === userId).length;
}

/** PAGE_IMAGE_CACHE: the service worker's cache of page images (vite.config.ts). */
const PAGE_IMAGE_CACHE = 'carhub-pages';

export function Root() {
  const [config, setConfig] = useState<AuthConfig | null>(null);
  const [gate, setGate] = useState<Gate>({ kind: 'starting' });
  const [waiting, setWaiting] = useState(0);

  async function decide(c: AuthConfig | null, notice: string | null) {
    const session = await sessions.current();
    if (c?.mode === 'local' && !session) {
      setWaiting(await pendingOf(undefined));
      setGate({ kind: 'login', notice });
      return;
    }
    if (session && !session.user && c?.mode === 'local') {
      // After a single sign-on: who is this?
      void authApi.me().then((u) => sessions.setUser(session.token, u)).then(async () => {
        const known = await sessions.current();
        setGate((g) => ({ kind: 'app', session: known, notice: g.kind === 'app' ? g.notice : null }));
      }, () => undefined);
    }
    if (location.pathname === '/login') navigate('/', true);
    setGate({ kind: 'app', session, notice });
  }

  useEffect(() => {
    let live = true;
    let cfg: AuthConfig | null = null;
    const off = sessions.subscribe((e: SessionEvent) => {
      if (!live) return;
      if (e === 'refused') {
        // A 401: the server has accounts on, whatever was cached.
        cfg = { mode: 'local', oidc: cfg?.oidc ?? false };
        setConfig(cfg);
        void decide(cfg, t('app.sessionEnded'));
      } else {
        void decide(cfg, null);
      }
    });
    void (async () => {
      const fragment = takeFragment();
      cfg = await loadConfig((fresh) => {
        if (!live) return;
        const changed = fresh.mode !== cfg?.mode;
        cfg = fresh;
        setConfig(fresh);
        if (changed) void decide(fresh, null);
      });
      if (!live) return;
      setConfig(cfg);
      // Single sign-on off (or not known to be on): no token of a link is taken.
      const notice = fragment === null ? null : await takeSsoFragment(fragment, cfg?.oidc === true);
      if (!live) return;
      await decide(cfg, notice);
    })();
    return () => {
      live = false;
      off();
    };
  }, []);

  async function signOut() {
    const session = await sessions.current();
    const n = await pendingOf(session?.user?.id);
    const who = session?.user?.username ?? t('app.you');
    if (n > 0 && !window.confirm(tn('app.signOutConfirm', n, { who }))) {
      return;
    }
    // Push to this device ends with the session: the next person on it gets none of these reminders. The
    // push service then answers the server 410 for it, which deletes it there (offline/notifications.ts).
    const worker = await navigator.serviceWorker?.getRegistration().catch(() => undefined);
    await (await worker?.pushManager?.getSubscription().catch(() => null))?.unsubscribe().catch(() => false);
    // Without an answer the token stays valid on the server until it expires; it is forgotten here all the same.
    await authApi.logout().catch(() => undefined);
    await clearSnapshots();
    // The page images kept for offline use (vite.config.ts, runtimeCaching) are the signed-out user's.
    await globalThis.caches?.delete(PAGE_IMAGE_CACHE).catch(() => false);
    await sessions.signOut();
  }

  if (gate.kind === 'starting') return null;
  if (gate.kind === 'login') return <Login config={config} notice={gate.notice} waiting={waiting} />;
  const accounts = config?.mode === 'local';
  return (
    <App user={accounts ? (gate.session?.user ?? null) : null} accounts={accounts} oidc={config?.oidc === true} onSignOut={() => void signOut()}
      notice={gate.notice} onDismissNotice={() => setGate((g) => (g.kind === 'app' ? { ...g, notice: null } : g))} />
  );
}
