// Typed client of fuel-service's notifications (proto-docs/fuel-service.openapi.yaml,
// /api/notifications/...): the owner's settings, this device's push
// subscription, a test, and what was sent (the newest 100). Only Settings → Notifications and
// the reminders' line about them import it, so it loads with their chunks.
import { request } from './http';
import type { Channel, NotificationSettings, SettingsInput } from '../lib/notifications';

export type { Channel, NotificationSettings, SettingsInput } from '../lib/notifications';

export const notificationPaths = {
  settings: '/api/notifications/settings',
  vapidKey: '/api/notifications/vapid-public-key',
  subscriptions: '/api/notifications/push-subscriptions',
  subscription: (id: number) => `/api/notifications/push-subscriptions/${id}`,
  test: '/api/notifications/test',
  sent: '/api/notifications',
};

/** The browser's PushSubscription as JSON (PushSubscription.toJSON()). */
export interface PushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** TestResult: one channel's outcome of a test. */
export interface TestResult {
  channel: Channel;
  status: 'sent' | 'failed';
  /** Why it was not sent (never a secret: the service names the host and its answer). */
  error: string | null;
}

/** SentNotification: one message on one channel, a reminder's or a day's digest. */
export interface SentNotification {
  id: number;
  kind: 'reminder' | 'digest';
  /** null for a digest, or once the reminder is deleted. */
  reminder_id: number | null;
  reminder_status: 'soon' | 'overdue' | null;
  /** The reminder's title, or the digest's, as it was. */
  title: string;
  /** The vehicle's name as it was; null for a digest. */
  vehicle: string | null;
  channel: Channel;
  /** pending while it is being sent or retried. */
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  error: string | null;
  created_at: string;
  /** When it was sent or given up (while pending, when it was claimed). */
  time: string;
}

export const notificationsApi = {
  settings: () => request<NotificationSettings>('GET', notificationPaths.settings),
  save: (s: SettingsInput) => request<NotificationSettings>('PUT', notificationPaths.settings, { body: JSON.stringify(s) }),
  vapidKey: () => request<{ key: string }>('GET', notificationPaths.vapidKey).then((r) => r.key),
  subscribe: (s: PushSubscriptionInput) => request<{ id: number }>('POST', notificationPaths.subscriptions, { body: JSON.stringify(s) }).then((r) => r.id),
  test: () => request<{ results: TestResult[] }>('POST', notificationPaths.test).then((r) => r.results),
  sent: () => request<SentNotification[]>('GET', notificationPaths.sent),
};
