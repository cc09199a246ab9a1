// A small client-side router: paths are real URLs (Caddy and the service
// worker answer index.html for them), links are intercepted.
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  if (path === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const fn of listeners) fn();
}

/** useLocation: read(location), again after each navigation. */
function useLocation(read: () => string): string {
  const [value, setValue] = useState(read);
  useEffect(() => {
    const update = () => setValue(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return value;
}

export const usePath = (): string => useLocation(() => location.pathname);

/** useSearch: the query ("?vehicle=2&reminder=7"), which a navigation within one page changes. */
export const useSearch = (): string => useLocation(() => location.search);

/** onLinkClick turns a plain left click on an in-app link into navigate(). */
export function onLinkClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element).closest('a');
  if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
  if (a.pathname.startsWith('/api/') || a.pathname === '/health') return;
  e.preventDefault();
  // The fragment travels too: a page may show its part ("/settings#notifications").
  navigate(a.pathname + a.search + a.hash);
}
