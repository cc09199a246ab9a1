import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { load, type Loaded } from './offline/snapshots';
import { paths, type Energy, type MonthStatistics } from './api/fuel';

export interface Resource<T> {
  data: T | undefined;
  asOf: string | null;
  error: Error | null;
  loading: boolean;
  reload: () => void;
}

/**
 * useResource loads path (a snapshot when offline); null path loads nothing.
 * It loads it again, keeping what it shows meanwhile, whenever the app comes
 * back into view or the browser back online: what another device changed in
 * between shows without a reload of the page.
 */
export function useResource<T>(path: string | null): Resource<T> {
  const [state, setState] = useState<{ loaded?: Loaded<T>; error: Error | null; loading: boolean; path: string | null }>({ error: null, loading: path !== null, path });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) {
      setState({ error: null, loading: false, path });
      return;
    }
    let live = true;
    setState((s) => ({ ...s, loading: true, path }));
    load<T>(path).then(
      (loaded) => live && setState({ loaded, error: null, loading: false, path }),
      (error: Error) => live && setState({ error, loading: false, path }),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    if (path === null) return;
    const visible = () => {
      if (document.visibilityState === 'visible') reload();
    };
    window.addEventListener('online', reload);
    document.addEventListener('visibilitychange', visible);
    return () => {
      window.removeEventListener('online', reload);
      document.removeEventListener('visibilitychange', visible);
    };
  }, [path, reload]);
  const current = state.path === path;
  return {
    data: current ? state.loaded?.data : undefined,
    asOf: current ? (state.loaded?.asOf ?? null) : null,
    error: current ? state.error : null,
    loading: state.loading || !current,
    reload,
  };
}

/** useOnline follows navigator.onLine. */
export function useOnline(): boolean {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    window.addEventListener('online', on);
    window.addEventListener('offline', off);
    return () => {
      window.removeEventListener('online', on);
      window.removeEventListener('offline', off);
    };
  }, []);
  return online;
}

export interface Action {
  busy: boolean;
  /** What went wrong with the last run (the service's message), or a check of the page's own. */
  error: string | null;
  /** What the last successful run did. */
  status: string | null;
  setError: (message: string | null) => void;
  /**
   * run clears the messages, runs f with busy set, and reports done(its
   * answer) or its error; true when it succeeded.
   */
  run: <T>(f: () => Promise<T>, done: (answer: T) => string) => Promise<boolean>;
}

/**
 * useAction: an online-only action of a form or a button, with its busy flag
 * and its one message; after(), when given, runs after every run (to read
 * again what the action changed).
 */
export function useAction(after?: () => void): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const run = useCallback(async <T,>(f: () => Promise<T>, done: (answer: T) => string) => {
    setError(null);
    setStatus(null);
    setBusy(true);
    try {
      setStatus(done(await f()));
      return true;
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return false;
    } finally {
      setBusy(false);
      after?.();
    }
  }, [after]);
  return { busy, error, status, setError, run };
}

/**
 * useServerData reads load() while online (nothing is kept for offline use),
 * again when key changes and on reload(); error is why the last read failed.
 */
export function useServerData<T>(load: () => Promise<T>, online: boolean, key: unknown = null): { data: T | null; error: string | null; reload: () => void } {
  const [state, setState] = useState<{ data: T | null; error: string | null }>({ data: null, error: null });
  const [tick, setTick] = useState(0);
  const current = useRef(load);
  current.current = load;
  useEffect(() => {
    if (!online) return;
    let live = true;
    current.current().then(
      (data) => live && setState({ data, error: null }),
      (err: Error) => live && setState((s) => ({ ...s, error: err.message })),
    );
    return () => {
      live = false;
    };
  }, [tick, online, key]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

export interface Monthly {
  /** The months of each energy, in the order asked. */
  data: MonthStatistics[][] | undefined;
  asOf: string | null;
  error: Error | null;
}

/**
 * useMonthly reads the monthly series of each energy of the vehicle (a
 * vehicle that takes two, a plug-in hybrid, has two): this month's cost is
 * their sum. Read again whenever the statistics are (they are read again
 * when the app comes back into view or online), so the two agree.
 */
export function useMonthly(vehicle: number | null, energies: Energy[], zone: string, statistics: unknown): Monthly {
  const list = vehicle === null ? [] : energies.map((e) => paths.monthly(vehicle, e, zone));
  const key = list.join(' ');
  const [state, setState] = useState<Monthly & { key: string }>({ key: '', data: undefined, asOf: null, error: null });
  useEffect(() => {
    if (key === '') return;
    let live = true;
    Promise.all(list.map((p) => load<MonthStatistics[]>(p))).then(
      (all) => live && setState({ key, data: all.map((a) => a.data), asOf: all.find((a) => a.asOf !== null)?.asOf ?? null, error: null }),
      (error: Error) => live && setState((s) => ({ ...s, key, error })),
    );
    return () => {
      live = false;
    };
  }, [key, statistics]);
  return state.key === key && key !== '' ? state : { data: undefined, asOf: null, error: null };
}
