// The owner's notification settings as the reminders' line reads them, and
// push on this device, turned on and off.
//
// The settings are read once per session and user (the Costs page's cards
// do not each ask), kept with the snapshots (offline/snapshots.ts: the same
// IndexedDB store, each user's apart, forgotten on sign-out) so the line
// shows offline too; a save in Settings puts its answer here (keepSettings).
import { ApiError, request } from '../api/http';
import { notificationsApi, notificationPaths, type NotificationSettings } from '../api/notifications';
import { sessions } from '../api/session';
import { load, type Loaded } from './snapshots';
import { pushSupport, vapidKey, type BrowserFacts, type PushSupport } from '../lib/notifications';

const read = new Map<string, Promise<Loaded<NotificationSettings> | null>>();
const listeners = new Set<() => void>();

/**
 * notificationSettings: the settings, read once per session and user (a
 * snapshot when offline); null when the service has no notifications (an
 * older one: 404) or nothing can be had.
 */
export async function notificationSettings(): Promise<Loaded<NotificationSettings> | null> {
  const user = await userKey();
  let p = read.get(user);
  if (!p) {
    p = load<NotificationSettings>(notificationPaths.settings).catch(() => {
      read.delete(user); // tried again next time
      return null;
    });
    read.set(user, p);
  }
  return p;
}

/** keepSettings: a saved answer is what the reminders' line says from now on. */
export async function keepSettings(s: NotificationSettings): Promise<void> {
  read.set(await userKey(), Promise.resolve({ data: s, asOf: null }));
  for (const fn of listeners) fn();
}

/** onSettingsChange: fn runs after each keepSettings or change of this device's push; answers the unsubscribe. */
export function onSettingsChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// This device's push. The browser keeps one subscription per site; the
// service knows it by the id its POST answered, kept in localStorage per
// user, so "turn off" can DELETE it. Signing out unsubscribes the browser
// (Root.tsx): the push service then answers the server 410 for it.

/** userKey: whose push it is ("" with accounts off). */
async function userKey(): Promise<string> {
  return String((await sessions.current())?.user?.id ?? '');
}

interface Kept {
  id: number;
  endpoint: string;
}

const keptKey = (user: string) => `carhub-push:${user}`;

function kept(user: string): Kept | null {
  try {
    const v = JSON.parse(localStorage.getItem(keptKey(user)) ?? 'null') as Partial<Kept> | null;
    return v && typeof v.id === 'number' && typeof v.endpoint === 'string' ? { id: v.id, endpoint: v.endpoint } : null;
  } catch {
    return null;
  }
}

function keep(user: string, k: Kept | null): void {
  try {
    if (k) localStorage.setItem(keptKey(user), JSON.stringify(k));
    else localStorage.removeItem(keptKey(user));
  } catch {
    // Storage denied: push stays on at the service; "turn off" then finds no id to delete.
  }
  for (const fn of listeners) fn();
}

/** registration: the app's service worker, once it runs (it registers at start: sw-register.ts). */
async function registration(): Promise<ServiceWorkerRegistration | null> {
  if (!('serviceWorker' in navigator)) return null;
  return (await navigator.serviceWorker.getRegistration()) ?? null;
}

/** pushHere: push is on for this device and this user (the browser's subscription is the one the service was given). */
export async function pushHere(): Promise<boolean> {
  const k = kept(await userKey());
  if (!k) return false;
  const sub = await (await registration())?.pushManager.getSubscription().catch(() => null);
  return sub?.endpoint === k.endpoint;
}

/** unsubscribe: DELETE the service's subscription id; one it no longer has (404) is gone there too. */
async function unsubscribe(id: number): Promise<void> {
  try {
    await request<void>('DELETE', notificationPaths.subscription(id));
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
}

/**
 * turnOff: push off on this device at once (the browser's subscription
 * ends, so nothing more can arrive), then at the service; an error of the
 * service's (offline) is thrown after, the device being off already.
 */
export async function turnOff(): Promise<void> {
  const user = await userKey();
  const k = kept(user);
  const sub = await (await registration())?.pushManager.getSubscription().catch(() => null);
  await sub?.unsubscribe().catch(() => false);
  keep(user, null);
  if (k) await unsubscribe(k.id);
}

/** browserFacts: what pushSupport needs to know of this browser. */
export function browserFacts(): BrowserFacts {
  const standalone = window.matchMedia?.('(display-mode: standalone)').matches === true
    || (navigator as Navigator & { standalone?: boolean }).standalone === true;
  return {
    hasPush: 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window,
    userAgent: navigator.userAgent,
    maxTouchPoints: navigator.maxTouchPoints ?? 0,
    standalone,
    permission: 'Notification' in window ? Notification.permission : null,
  };
}

export function support(): PushSupport {
  return pushSupport(browserFacts());
}

function sameBytes(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a) return true; // a browser that does not say: taken as the same key
  const x = new Uint8Array(a);
  return x.length === b.length && x.every((v, i) => v === b[i]);
}

/** Thrown when push cannot be turned on for a reason the owner is told in words (the section's catalogue). */
export class PushRefused extends Error {
  constructor(readonly reason: 'noKey' | 'noWorker') {
    super(reason);
    this.name = 'PushRefused';
  }
}

/**
 * turnOn: asks the browser's permission (only here, on the owner's tap),
 * subscribes with the service's VAPID key and gives the subscription to the
 * service. 'denied' and 'dismissed': the permission was refused, or the
 * question closed without an answer.
 */
export async function turnOn(): Promise<'on' | 'denied' | 'dismissed'> {
  const permission = await Notification.requestPermission();
  if (permission === 'denied') return 'denied';
  if (permission !== 'granted') return 'dismissed';
  const key = vapidKey(await notificationsApi.vapidKey());
  if (!key) throw new PushRefused('noKey');
  const reg = await Promise.race([
    navigator.serviceWorker.ready,
    new Promise<null>((ok) => setTimeout(() => ok(null), 10_000)),
  ]);
  if (!reg) throw new PushRefused('noWorker');
  let sub = await reg.pushManager.getSubscription();
  // Subscribed with another key (the service's keys were replaced): that one can never be sent to.
  if (sub && !sameBytes(sub.options?.applicationServerKey, key)) {
    await sub.unsubscribe().catch(() => false);
    sub = null;
  }
  sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  const json = sub.toJSON();
  const id = await notificationsApi.subscribe({ endpoint: sub.endpoint, keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' } });
  const user = await userKey();
  const before = kept(user);
  if (before && before.id !== id) await unsubscribe(before.id).catch(() => undefined);
  keep(user, { id, endpoint: sub.endpoint });
  return 'on';
}

