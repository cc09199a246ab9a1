// The owner's notification settings as fuel-service answers them
// (GET/PUT /api/notifications/settings, proto-docs/fuel-service.openapi.yaml)
// and the pure rules around them: the form's check and what it sends, the
// channels a reminder reaches, the VAPID key's bytes and whether this browser
// can take push at all. No I/O here: offline/push.ts subscribes, and
// components/notifications.tsx draws the form.
import { parseTimeInput, fmtTimeInput } from './dates';

export type Channel = 'push' | 'email' | 'webhook';
export const CHANNELS: Channel[] = ['push', 'email', 'webhook'];
export type WebhookFormat = 'generic' | 'ntfy' | 'gotify';
export const WEBHOOK_FORMATS: WebhookFormat[] = ['generic', 'ntfy', 'gotify'];
export type When = 'due' | 'digest';

/** NotificationSettings: what the service answers (the token itself never comes back). */
export interface NotificationSettings {
  email: string | null;
  webhook_url: string | null;
  webhook_format: WebhookFormat;
  /** A webhook token is kept on the server. */
  webhook_token_set: boolean;
  channels: Record<Channel, boolean>;
  when: When;
  /** "HH:MM" in the owner's time zone (the preferences' time_zone). */
  digest_time: string;
  /** Also the reminders of vehicles shared with the owner to view (an owner's and an editor's always). */
  viewer_reminders: boolean;
  /** The channels this server can send on (e-mail needs its SMTP_URL, push its keys). */
  available: Record<Channel, boolean>;
  updated_at: string | null;
}

/**
 * SettingsInput: what a save sends, a patch: an absent member stays as it
 * is. webhook_token only when the owner typed one, or "" to remove it (the
 * service drops a kept token when the URL changes without one).
 */
export interface SettingsInput {
  email?: string;
  webhook_url?: string;
  webhook_format?: WebhookFormat;
  webhook_token?: string;
  channels?: Partial<Record<Channel, boolean>>;
  when?: When;
  digest_time?: string;
  viewer_reminders?: boolean;
}

/** SettingsForm: the form's fields as typed. */
export interface SettingsForm {
  email: string;
  webhookUrl: string;
  webhookFormat: WebhookFormat;
  /** A new token; "" keeps the saved one. */
  webhookToken: string;
  /** Remove the saved token. */
  clearToken: boolean;
  channels: Record<Channel, boolean>;
  when: When;
  /** The digest's time as the owner writes times (lib/dates.ts). */
  digestTime: string;
  viewerReminders: boolean;
}

export type SettingsField = 'email' | 'webhook_url' | 'webhook_token' | 'digest_time';

/** What is wrong with a field: its kind, for the form to say in words. */
export interface SettingsProblem {
  field: SettingsField;
  problem: 'needed' | 'email' | 'url' | 'time' | 'tooLong';
}

export const DEFAULT_DIGEST_TIME = '08:00';

/** formOf: the form for the saved settings, its time written as locale writes one. */
export function formOf(s: NotificationSettings, locale: string): SettingsForm {
  return {
    email: s.email ?? '',
    webhookUrl: s.webhook_url ?? '',
    webhookFormat: s.webhook_format,
    webhookToken: '',
    clearToken: false,
    channels: { ...s.channels },
    when: s.when,
    digestTime: fmtTimeInput(s.digest_time || DEFAULT_DIGEST_TIME, locale),
    viewerReminders: s.viewer_reminders,
  };
}

// One @, something either side, no spaces: the service checks the rest (it parses the address).
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function webUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * checkSettings: what the form refuses before sending, and the input it
 * sends when nothing is wrong. A channel turned on needs its address; an
 * address is checked when given, on or off (it is saved either way). The
 * digest's time is read only for a digest.
 */
export function checkSettings(f: SettingsForm, locale: string): { problems: SettingsProblem[]; input: SettingsInput | null } {
  const problems: SettingsProblem[] = [];
  const email = f.email.trim();
  const url = f.webhookUrl.trim();
  if (email === '' && f.channels.email) problems.push({ field: 'email', problem: 'needed' });
  else if (email !== '' && !EMAIL.test(email)) problems.push({ field: 'email', problem: 'email' });
  else if (email.length > 254) problems.push({ field: 'email', problem: 'tooLong' });
  if (url === '' && f.channels.webhook) problems.push({ field: 'webhook_url', problem: 'needed' });
  else if (url !== '' && !webUrl(url)) problems.push({ field: 'webhook_url', problem: 'url' });
  else if (url.length > 2048) problems.push({ field: 'webhook_url', problem: 'tooLong' });
  if (f.webhookToken.length > 512) problems.push({ field: 'webhook_token', problem: 'tooLong' });
  const time = f.when === 'digest' ? parseTimeInput(f.digestTime, locale) : null;
  if (f.when === 'digest' && time === null) problems.push({ field: 'digest_time', problem: 'time' });
  if (problems.length > 0) return { problems, input: null };
  const input: SettingsInput = {
    email,
    webhook_url: url,
    webhook_format: f.webhookFormat,
    channels: { ...f.channels },
    when: f.when,
    // As due, the time is kept as it was typed when it reads, else the default: a later digest starts from it.
    digest_time: time ?? parseTimeInput(f.digestTime, locale) ?? DEFAULT_DIGEST_TIME,
    viewer_reminders: f.viewerReminders,
  };
  const token = f.webhookToken.trim();
  if (token !== '') input.webhook_token = token;
  else if (f.clearToken) input.webhook_token = '';
  return { problems, input };
}

/**
 * reaching: the channels a reminder reaches with these settings: those
 * turned on that the server can send on and that have somewhere to go
 * (e-mail an address, a webhook its URL; push the devices where it is on,
 * which the service does not count: turning it on on a device turns the
 * channel on, components/notifications.tsx).
 */
export function reaching(s: NotificationSettings): Channel[] {
  return CHANNELS.filter((c) => {
    if (!s.channels[c] || !s.available[c]) return false;
    if (c === 'email') return (s.email ?? '').trim() !== '';
    if (c === 'webhook') return (s.webhook_url ?? '').trim() !== '';
    return true;
  });
}

/**
 * base64UrlBytes: the bytes of a base64url text (the VAPID public key:
 * pushManager.subscribe takes its 65 bytes, not the text); null when the
 * text is not base64url.
 */
export function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> | null {
  const s = text.trim();
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) return null;
  const b64 = s.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** vapidKey: the bytes of an uncompressed P-256 public key (65 bytes, 0x04 first); null otherwise. */
export function vapidKey(text: string): Uint8Array<ArrayBuffer> | null {
  const b = base64UrlBytes(text);
  return b && b.length === 65 && b[0] === 4 ? b : null;
}

/** What this browser can do about push: take it, or why not. */
export type PushSupport = 'ready' | 'install' | 'unsupported' | 'denied';

export interface BrowserFacts {
  /** navigator.serviceWorker, window.PushManager and window.Notification exist. */
  hasPush: boolean;
  userAgent: string;
  /** navigator.maxTouchPoints: an iPad says it is a Mac, with a touch screen. */
  maxTouchPoints: number;
  /** Opened from the Home Screen or as an installed app (display-mode: standalone). */
  standalone: boolean;
  permission: NotificationPermission | null;
}

/** isAppleMobile: an iPhone, iPod or iPad (an iPad since iOS 13 says "Macintosh" but has a touch screen). */
export function isAppleMobile(userAgent: string, maxTouchPoints: number): boolean {
  return /\b(iPhone|iPad|iPod)\b/.test(userAgent) || (/\bMacintosh\b/.test(userAgent) && maxTouchPoints > 1);
}

/**
 * pushSupport: on an iPhone or iPad push reaches a web app only once it is
 * on the Home Screen (iOS 16.4+), and Safari in a tab has no PushManager: it
 * is told to add it first rather than that it cannot. A permission refused
 * before is said as such: asking again shows nothing.
 */
export function pushSupport(b: BrowserFacts): PushSupport {
  if (isAppleMobile(b.userAgent, b.maxTouchPoints) && !b.standalone) return 'install';
  if (!b.hasPush) return 'unsupported';
  if (b.permission === 'denied') return 'denied';
  return 'ready';
}

/**
 * linkedReminder: the reminder a notification links to
 * ("/costs?vehicle=2&reminder=7", fuel-service's ReminderURL), from the
 * page's query; null for what is absent or not an id.
 */
export function linkedReminder(search: string): { vehicle: number | null; reminder: number | null } {
  const q = new URLSearchParams(search);
  const id = (name: string) => {
    const v = q.get(name);
    return v !== null && /^[1-9]\d{0,15}$/.test(v) ? Number(v) : null;
  };
  return { vehicle: id('vehicle'), reminder: id('reminder') };
}
