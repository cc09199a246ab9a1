import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n';

// Pages a person opens now and then (Statistics, Vehicles, Manuals,
// Settings) and the page view load as chunks of their own, so the first
// screen's script stays within its budget (scripts/size.mjs). The service
// worker precaches every chunk, so they open offline too, and preloadPages
// fetches them once the first screen is up, so a tap on them rarely waits.

let focusWanted = false;

/**
 * focusHeadingWhenShown: the app moved to a page whose code is still loading;
 * its heading takes the focus once it shows (what App does for the others).
 */
export function focusHeadingWhenShown(): void {
  focusWanted = true;
}

const loaders: (() => Promise<unknown>)[] = [];

/**
 * lazyComponent: component C of a module loaded on first use (once; a failed load is tried again
 * next time). quiet: a part of a page (the start page's reminders) shows nothing while it loads
 * or when it cannot, instead of the page's "Loading…".
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>, { quiet = false } = {}): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const fetch = () => (pending ??= load().then((c) => (loaded = c), (err: unknown) => {
    pending = null;
    throw err;
  }));
  loaders.push(fetch);
  return function Lazy(props: P) {
    const [C, setC] = useState<ComponentType<P> | null>(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (C) return;
      let live = true;
      fetch().then((c) => live && setC(() => c), () => live && setFailed(true));
      return () => {
        live = false;
      };
    }, []);
    useEffect(() => {
      if (!C || !focusWanted) return;
      focusWanted = false;
      document.querySelector<HTMLElement>('main h1')?.focus();
    }, [C]);
    if (C) return <C {...props} />;
    if (quiet) return null;
    return failed ? <p class="error" role="alert">{t('app.pageLoadFailed')}</p> : <p role="status" class="hint">{t('app.pageLoading')}</p>;
  };
}

/** preloadPages fetches every lazy component's code when the browser is idle. */
export function preloadPages(): void {
  const go = () => loaders.forEach((l) => void l().catch(() => undefined));
  if ('requestIdleCallback' in window) requestIdleCallback(go, { timeout: 3000 });
  else setTimeout(go, 1000);
}
