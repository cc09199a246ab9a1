// The line on a reminder's card that says whether its owner will hear of it
// (issue 57): "You'll be notified by push and e-mail when it is due soon.",
// or that notifications are off, with the way to Settings. Read from the
// notification settings once per session, kept for offline
// (offline/notifications.ts); nothing is said while they are unknown (never
// read, or a service without notifications).
import { useEffect, useState } from 'preact/hooks';
import type { ReminderStatus } from '../api/costs';
import { tk } from '../i18n/costs';
import { fmtTimeInput } from '../lib/dates';
import { fmtList, numberLocale } from '../lib/format';
import { reaching, type Channel, type NotificationSettings, type When } from '../lib/notifications';
import { notificationSettings, onSettingsChange } from '../offline/notifications';

/** NotifyPlan: how the owner's reminders reach them. */
export interface NotifyPlan {
  channels: Channel[];
  when: When;
  /** "HH:MM", the digest's. */
  time: string;
  /** The reminders of vehicles shared to view reach the owner too. */
  viewers: boolean;
}

export function planOf(s: NotificationSettings): NotifyPlan {
  return { channels: reaching(s), when: s.when, time: s.digest_time, viewers: s.viewer_reminders };
}

/**
 * notifyText: what a reminder's card says of its notification: null when
 * it is not known; off when no channel reaches the owner, or the vehicle is
 * shared with them to view (viewer) and they did not choose its reminders.
 * A reminder already soon or overdue has been (or is being) notified; one
 * still fine will be.
 */
export function notifyText(plan: NotifyPlan | null, status: ReminderStatus, viewer = false): { text: string; off: boolean } | null {
  if (!plan) return null;
  if (plan.channels.length === 0) return { text: tk('rem.notifyOff'), off: true };
  if (viewer && !plan.viewers) return { text: tk('rem.notifyViewerOff'), off: true };
  const channels = fmtList(plan.channels.map((c) => tk(`rem.notify.${c}`)));
  const due = status !== 'ok';
  if (plan.when === 'digest') {
    const time = fmtTimeInput(plan.time, numberLocale());
    return { text: tk(due ? 'rem.notifyNowDigest' : 'rem.notifyAheadDigest', { channels, time }), off: false };
  }
  return { text: tk(due ? 'rem.notifyNow' : 'rem.notifyAhead', { channels }), off: false };
}

/** useNotifyPlan: the owner's plan (null until known), again after a change in Settings. */
export function useNotifyPlan(): NotifyPlan | null {
  const [plan, setPlan] = useState<NotifyPlan | null>(null);
  useEffect(() => {
    let live = true;
    const update = () => void notificationSettings().then((s) => {
      if (live) setPlan(s ? planOf(s.data) : null);
    });
    update();
    const off = onSettingsChange(update);
    return () => {
      live = false;
      off();
    };
  }, []);
  return plan;
}

/** NotifyLine: the card's line; "off" links to Settings → Notifications. */
export function NotifyLine({ plan, status, viewer }: { plan: NotifyPlan | null; status: ReminderStatus; viewer: boolean }) {
  const said = notifyText(plan, status, viewer);
  if (!said) return null;
  return (
    <p class="hint notify-line">
      {said.text}
      {said.off && <>{' '}<a href="/settings#notifications">{tk('rem.notifyTurnOn')}</a></>}
    </p>
  );
}
