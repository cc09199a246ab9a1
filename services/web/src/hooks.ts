import { useCallback, useEffect, useState } from 'preact/hooks';
import { load, type Loaded } from './offline/snapshots';

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
