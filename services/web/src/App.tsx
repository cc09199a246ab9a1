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
import { chooseVehicle } from './components/common';
import type { User } from './api/session';

const PAGES = [
  { path: '/', name: 'Add refuel' },
  { path: '/history', name: 'History' },
  { path: '/statistics', name: 'Statistics' },
  { path: '/vehicles', name: 'Vehicles' },
  { path: '/manuals', name: 'Manuals' },
  { path: '/ask', name: 'Ask' },
] as const;

export interface VehicleContext {
  vehicles: Vehicle[] | undefined;
  vehiclesAsOf: string | null;
  vehiclesError: Error | null;
  reloadVehicles: () => void;
  chosen: number | null;
  choose: (id: number) => void;
  /** The signed-in user (null with accounts off). */
  user: User | null;
}

interface AppProps {
  /** The signed-in user; null with accounts off (or before a single sign-on's user is known). */
  user: User | null;
  /** true with AUTH_MODE=local: the navigation shows who is signed in and "Sign out". */
  accounts: boolean;
  onSignOut: () => void;
}

export function App({ user, accounts, onSignOut }: AppProps) {
  const path = usePath();
  const page = PAGES.find((p) => p.path === path);
  const vehicles = useResource<Vehicle[]>(paths.vehicles);
  const [picked, setPicked] = useState<number | null>(null);
  const [update, setUpdate] = useState(false);
  const heading = useRef<HTMLDivElement>(null);
  const first = useRef(true);

  useEffect(() => onUpdateReady(setUpdate), []);
  useEffect(() => {
    document.title = page ? `${page.name} · CarHub` : 'Not found · CarHub';
    // Move focus to the new page's content after a navigation (not on first load).
    if (first.current) first.current = false;
    else heading.current?.querySelector('h1')?.focus();
  }, [path]);

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
    default: content = (<><h1 tabIndex={-1}>Page not found</h1><p>There is nothing at this address.</p></>);
  }

  return (
    <div class="app" onClick={onLinkClick}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand" aria-hidden="true">CarHub</span>
        <nav aria-label="Main">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a href={p.path} aria-current={p.path === path ? 'page' : undefined}>{p.name}</a>
              </li>
            ))}
          </ul>
        </nav>
        {accounts && (
          <div class="account">
            <span>Signed in as <strong>{user?.username ?? '…'}</strong></span>
            <button type="button" class="secondary" onClick={onSignOut}>Sign out</button>
          </div>
        )}
      </header>
      {update && (
        <div class="update" role="alert">
          <span>A new version of CarHub is ready.</span>
          <button type="button" onClick={applyUpdate}>Reload now</button>
          <button type="button" class="secondary" onClick={() => setUpdate(false)}>Later</button>
        </div>
      )}
      <main id="main" ref={heading}>{content}</main>
    </div>
  );
}
