import { useEffect, useRef, useState } from 'preact/hooks';
import { onLinkClick, usePath } from './router';
import { useResource } from './hooks';
import { paths, type Vehicle } from './api/fuel';
import { onUpdateReady, applyUpdate } from './sw-register';
import { AddRefuel } from './pages/AddRefuel';
import { History } from './pages/History';
import { Statistics } from './pages/Statistics';
import { Vehicles } from './pages/Vehicles';
import { Manuals } from './pages/Manuals';
import { Ask } from './pages/Ask';
import { Settings } from './pages/Settings';
import { chooseVehicle } from './components/common';
import type { VehicleContext } from './pages/context';
import type { User } from './api/session';
import { t, type MessageKey } from './i18n';
import { activate, PREFERENCE_FIELDS, prefs as activePrefs, type Preferences } from './lib/preferences';
import { loadPreferences, queuedPreferences } from './offline/preferences';
import { outbox } from './offline/sync';

const PAGES: { path: string; name: MessageKey }[] = [
  { path: '/', name: 'nav.add' },
  { path: '/history', name: 'nav.history' },
  { path: '/statistics', name: 'nav.statistics' },
  { path: '/vehicles', name: 'nav.vehicles' },
  { path: '/manuals', name: 'nav.manuals' },
  { path: '/ask', name: 'nav.ask' },
  { path: '/settings', name: 'nav.settings' },
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
    const reload = () => void loadPreferences().then((p) => live && apply(p), () => undefined);
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

  useEffect(() => onUpdateReady(setUpdate), []);
  useEffect(() => {
    document.title = page ? t('app.title', { page: t(page.name) }) : t('app.notFoundTitle');
    // Move focus to the new page's content after a navigation (not on first load).
    if (first.current) first.current = false;
    else heading.current?.querySelector('h1')?.focus();
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
    case '/': content = <AddRefuel {...ctx} />; break;
    case '/history': content = <History {...ctx} />; break;
    case '/statistics': content = <Statistics {...ctx} />; break;
    case '/vehicles': content = <Vehicles {...ctx} />; break;
    case '/manuals': content = <Manuals accounts={accounts} />; break;
    case '/ask': content = <Ask accounts={accounts} />; break;
    case '/settings': content = <Settings preferences={preferences} onChange={setPreferences} user={user} oidc={oidc} />; break;
    default: content = (<><h1 tabIndex={-1}>{t('app.notFoundHeading')}</h1><p>{t('app.notFoundText')}</p></>);
  }

  return (
    <div class="app" onClick={onLinkClick}>
      <a class="skip" href="#main">{t('app.skip')}</a>
      <header class="top">
        <span class="brand" aria-hidden="true">CarHub</span>
        <nav aria-label={t('app.navLabel')}>
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a href={p.path} aria-current={p.path === path ? 'page' : undefined}>{t(p.name)}</a>
              </li>
            ))}
          </ul>
        </nav>
        {accounts && (
          <div class="account">
            <span>{t('app.signedInAs')}<strong>{user?.username ?? '…'}</strong></span>
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
    </div>
  );
}
