// Registers the service worker. An update never reloads by itself: the app
// shows a prompt and reloads only when the owner says so, so a half-filled
// form is never lost.
import { registerSW } from 'virtual:pwa-register';
import { navigate } from './router';

type Listener = (ready: boolean) => void;
const listeners = new Set<Listener>();
let updateSW: ((reload?: boolean) => Promise<void>) | undefined;

export function startServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  // A tap on a reminder's notification (public/sw-push.js): to its page inside the app, no reload.
  navigator.serviceWorker.addEventListener('message', (e: MessageEvent<{ type?: string; url?: string }>) => {
    if (e.data?.type === 'carhub-open' && typeof e.data.url === 'string' && /^\/(?!\/)/.test(e.data.url)) navigate(e.data.url);
  });
  updateSW = registerSW({
    immediate: true,
    onNeedRefresh() {
      for (const fn of listeners) fn(true);
    },
  });
}

export function onUpdateReady(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function applyUpdate(): void {
  void updateSW?.(true);
}
