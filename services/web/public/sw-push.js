// Push in the service worker, imported by the worker Workbox generates
// (vite.config.ts, workbox.importScripts): a plain script in public/, so the
// generated worker, its precache and its routes stay exactly as they were.
//
// A push from fuel-service carries {title, body, url} (issue 57: the
// reminder, its vehicle, the link to it). It is shown at once with the app's
// icon; a tap focuses a window of the app already open and takes it to the
// link inside the app (the page's router: a form being filled in is not
// reloaded away), else opens one there. Only a link of this origin is
// followed: anything else opens the reminders.
const REMINDERS = '/costs';

/** sameOriginPath: url as a path of this origin ("/costs?vehicle=2"), else the reminders. */
function sameOriginPath(url) {
  try {
    const u = new URL(url, self.location.origin);
    // "//host/…" as a path would name another host to the page's history.
    return u.origin === self.location.origin && !u.pathname.startsWith('//') ? u.pathname + u.search + u.hash : REMINDERS;
  } catch {
    return REMINDERS;
  }
}

/** messageOf: the push's payload; a payload that is not the JSON expected still shows, as its text. */
function messageOf(data) {
  if (!data) return {};
  try {
    const m = data.json();
    return m && typeof m === 'object' ? m : { body: String(m) };
  } catch {
    return { body: data.text() };
  }
}

self.addEventListener('push', (event) => {
  const m = messageOf(event.data);
  const title = typeof m.title === 'string' && m.title.trim() !== '' ? m.title : 'CarHub';
  const path = sameOriginPath(typeof m.url === 'string' ? m.url : REMINDERS);
  event.waitUntil(self.registration.showNotification(title, {
    body: typeof m.body === 'string' ? m.body : '',
    icon: '/icon-192.png',
    data: { url: path },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const path = sameOriginPath(event.notification.data?.url ?? REMINDERS);
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const open = windows.find((c) => new URL(c.url).origin === self.location.origin);
    if (!open) {
      await self.clients.openWindow(path);
      return;
    }
    // The app's router moves there (src/sw-register.ts); focus may be refused outside a real tap.
    open.postMessage({ type: 'carhub-open', url: path });
    await open.focus().catch(() => undefined);
  })());
});
