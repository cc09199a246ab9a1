import { useEffect, useRef, useState } from 'preact/hooks';
import { onLinkClick, usePath } from './router';
import { useResource } from './hooks';
import { paths, type Vehicle } from './api/fuel';
import { onUpdateReady, applyUpdate } from './sw-register';
import { AddRefuel } from './pages/AddRefuel';
import { Home } from './pages/Home';
import { History } from './pages/History';
import { Ask } from './pages/Ask';
import { focusHeadingWhenShown, lazyComponent, preloadPages } from './components/lazy';
import { chooseVehicle } from './components/vehicle-picker';
import { Icon, type IconName } from './components/icons';
import { StatusArea } from './components/status';
import type { VehicleContext } from './pages/context';
import type { User } from './api/session';
import { t, type MessageKey } from './i18n';
import { activate, PREFERENCE_FIELDS, prefs as activePrefs, prepare, type Preferences } from './lib/preferences';
import { loadPreferences, queuedPreferences } from './offline/preferences';
import { outbox } from './offline/sync';

// The pages under More on a phone load on first use (components/lazy.tsx).
const Statistics = lazyComponent(() => import('./pages/Statistics').then((m) => m.Statistics));
const Vehicles = lazyComponent(() => import('./pages/Vehicles').then((m) => m.Vehicles));
const Manuals = lazyComponent(() => import('./pages/Manuals').then((m) => m.Manuals));
const Settings = lazyComponent(() => import('./pages/Settings').then((m) => m.Settings));
const Costs = lazyComponent(() => import('./pages/Costs').then((m) => m.Costs));

interface Page {
  path: string;
  name: MessageKey;
  icon: IconName;
  /** In the phone's bottom bar; the others are under "More" there (proto-docs/web-decisions.md). A wide screen shows all in one row. */
  bar: boolean;
}

const PAGES: Page[] = [
  { path: '/', name: 'nav.home', icon: 'home', bar: true },
  { path: '/add', name: 'nav.add', icon: 'add', bar: true },
  { path: '/history', name: 'nav.history', icon: 'history', bar: true },
  { path: '/ask', name: 'nav.ask', icon: 'ask', bar: true },
  { path: '/costs', name: 'nav.costs', icon: 'costs', bar: false },
  { path: '/statistics', name: 'nav.statistics', icon: 'statistics', bar: false },
  { path: '/manuals', name: 'nav.manuals', icon: 'manuals', bar: false },
  { path: '/vehicles', name: 'nav.vehicles', icon: 'vehicles', bar: false },
  { path: '/settings', name: 'nav.settings', icon: 'settings', bar: false },
];

function readKept(key: string): Preferences | null {
  try {
    const v = localStorage.getItem(key);
    if (!v) return null;
    const p = JSON.parse(v) as Partial<Preferences>;
    return PREFERENCE_FIELDS.every((f) => typeof p[f] === 'string') ? (p as Preferences) : null;
  } catch {
    return null;
  }
}

/**
 * usePreferences loads the owner's preferences and puts them in force
 * (activate) before the pages render with them; again when a queued change
 * has been sent (the service's answer is then the truth).
 */
function usePreferences(user: User | null): [Preferences, (p: Preferences) => void] {
  // The last preferences in force on this device (per user) are the first render's, so a slow
  // answer does not show the browser's defaults first and then switch units under the owner.
  const kept = `carhub-preferences:${user?.id ?? ''}`;
  const [current, setCurrent] = useState<Preferences>(() => {
    const last = readKept(kept);
    if (last) activate(last);
    return last ?? activePrefs();
  });
  const apply = (p: Preferences) => {
    activate(p);
    setCurrent(p);
    try {
      localStorage.setItem(kept, JSON.stringify(p));
    } catch {
      // Storage full or denied: the next start waits for the answer instead.
    }
  };
  useEffect(() => {
    let live = true;
    let waiting = -1;
    // A language's catalogue is a chunk: loaded before the preferences are put in force, so a screen is never half in one language.
    const reload = () => void loadPreferences().then(async (p) => {
      await prepare(p).catch(() => undefined);
      if (live) apply(p);
    }, () => undefined);
    reload();
    const off = outbox.subscribe(() => void queuedPreferences().then((q) => {
      const n = q.filter((i) => i.state === 'pending').length;
      if (live && waiting > n) reload();
      waiting = n;
    }));
    return () => {
      live = false;
      off();
    };
  }, [user?.id]);
  return [current, apply];
}

/**
 * useStickyHeight keeps --top-h (on the root) equal to the sticky header's
 * height, which the text size and the top safe-area inset change: every
 * field's scroll margin keeps a focused field below it.
 */
function useStickyHeight(top: { current: HTMLElement | null }) {
  useEffect(() => {
    const el = top.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const root = document.documentElement;
    const o = new ResizeObserver(() => root.style.setProperty('--top-h', `${Math.ceil(el.getBoundingClientRect().height)}px`));
    o.observe(el);
    return () => o.disconnect();
  }, []);
}

/**
 * Navigation: on a phone a bar at the bottom with the destinations of the
 * bar and "More", a disclosure that shows the others above the bar (Escape,
 * a click outside, the focus leaving it or a navigation closes it); on a wide screen (styles.css)
 * every destination in one row and no "More".
 */
function Navigation({ path }: { path: string }) {
  const [open, setOpen] = useState(false);
  const nav = useRef<HTMLElement>(null);
  const more = useRef<HTMLButtonElement>(null);
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return;
    const outside = (e: Event) => {
      if (!nav.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('click', outside);
    return () => document.removeEventListener('click', outside);
  }, [open]);
  const link = (p: Page) => (
    <li key={p.path}>
      <a href={p.path} aria-current={p.path === path ? 'page' : undefined}>
        <Icon name={p.icon} />
        <span class="label">{t(p.name)}</span>
      </a>
    </li>
  );
  const inMore = PAGES.some((p) => !p.bar && p.path === path);
  return (
    <nav ref={nav} class={open ? 'tabs open' : 'tabs'} aria-label={t('app.navLabel')}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          setOpen(false);
          more.current?.focus();
        }
      }}
      onFocusOut={(e) => {
        // Tabbing on past its last link closes it: an open sheet would cover the page being tabbed to.
        const next = e.relatedTarget as Node | null;
        if (open && next !== null && !nav.current?.contains(next)) setOpen(false);
      }}>
      <ul class="bar">
        {PAGES.filter((p) => p.bar).map(link)}
        <li class="more-item">
          <button ref={more} type="button" class={inMore ? 'more current' : 'more'} aria-expanded={open} aria-controls="nav-more"
            onClick={() => setOpen(!open)}>
            <Icon name="more" />
            <span class="label">{t('nav.more')}</span>
          </button>
        </li>
      </ul>
      <ul id="nav-more" class="sheet">
        {PAGES.filter((p) => !p.bar).map(link)}
      </ul>
    </nav>
  );
}

interface AppProps {
  /** The signed-in user; null with accounts off (or before a single sign-on's user is known). */
  user: User | null;
  /** true with AUTH_MODE=local: the navigation shows who is signed in and "Sign out". */
  accounts: boolean;
  /** Single sign-on is on. */
  oidc: boolean;
  onSignOut: () => void;
  /** What the person is told on arrival (a sign-in link that was ignored), until dismissed. */
  notice?: string | null;
  onDismissNotice?: () => void;
}

export function App({ user, accounts, oidc, onSignOut, notice, onDismissNotice }: AppProps) {
  const path = usePath();
  const [preferences, setPreferences] = usePreferences(user);
  const page = PAGES.find((p) => p.path === path);
  const vehicles = useResource<Vehicle[]>(paths.vehicles);
  const [picked, setPicked] = useState<number | null>(null);
  const [update, setUpdate] = useState(false);
  const heading = useRef<HTMLDivElement>(null);
  const first = useRef(true);
  const top = useRef<HTMLElement>(null);
  useStickyHeight(top);

  useEffect(() => onUpdateReady(setUpdate), []);
  useEffect(preloadPages, []);
  useEffect(() => {
    document.title = page ? t('app.title', { page: t(page.name) }) : t('app.notFoundTitle');
    // Move focus to the new page's content after a navigation (not on first load).
    if (first.current) first.current = false;
    else {
      const h1 = heading.current?.querySelector('h1');
      if (h1) h1.focus();
      else focusHeadingWhenShown();
    }
  }, [path, preferences.locale]);

  const ctx: VehicleContext = {
    vehicles: vehicles.data,
    vehiclesAsOf: vehicles.asOf,
    vehiclesError: vehicles.error,
    reloadVehicles: vehicles.reload,
    chosen: chooseVehicle(vehicles.data, picked),
    choose: setPicked,
    user,
  };

  let content;
  switch (path) {
    case '/': content = <Home {...ctx} />; break;
    case '/add': content = <AddRefuel {...ctx} />; break;
    case '/history': content = <History {...ctx} />; break;
    case '/costs': content = <Costs {...ctx} />; break;
    case '/statistics': content = <Statistics {...ctx} />; break;
    case '/vehicles': content = <Vehicles {...ctx} />; break;
    case '/manuals': content = <Manuals accounts={accounts} {...ctx} />; break;
    case '/ask': content = <Ask accounts={accounts} {...ctx} />; break;
    case '/settings': content = <Settings preferences={preferences} onChange={setPreferences} user={user} oidc={oidc} />; break;
    default: content = (<><h1 tabIndex={-1}>{t('app.notFoundHeading')}</h1><p>{t('app.notFoundText')}</p></>);
  }

  return (
    <div class="app" onClick={onLinkClick}>
      <a class="skip" href="#main">{t('app.skip')}</a>
      <header class="top" ref={top}>
        <span class="brand" aria-hidden="true">CarHub</span>
        <Navigation path={path} />
        {accounts && (
          <div class="account">
            <span title={user?.username}>{t('app.signedInAs')}<strong>{user?.username ?? '…'}</strong></span>
            <button type="button" class="secondary" onClick={onSignOut}>{t('app.signOut')}</button>
          </div>
        )}
      </header>
      {update && (
        <div class="update" role="alert">
          <span>{t('app.updateReady')}</span>
          <button type="button" onClick={applyUpdate}>{t('app.reloadNow')}</button>
          <button type="button" class="secondary" onClick={() => setUpdate(false)}>{t('app.later')}</button>
        </div>
      )}
      {notice && (
        <div class="update" role="status">
          <span>{notice}</span>
          <button type="button" class="secondary" onClick={onDismissNotice}>{t('app.dismiss')}</button>
        </div>
      )}
      <main id="main" ref={heading}>{content}</main>
      <StatusArea path={path} />
    </div>
  );
}
