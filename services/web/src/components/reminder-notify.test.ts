import { afterEach, describe, expect, it, vi } from 'vitest';
import { notifyText, planOf } from './reminder-notify';
import { setLanguage } from '../i18n';
import { setFormat } from '../lib/format';
import type { NotificationSettings } from '../lib/notifications';

// The device's push and the IndexedDB snapshots are the browser's; the text is not.
vi.mock('../offline/notifications', () => ({}));

const settings: NotificationSettings = {
  email: 'ann@example.org', webhook_url: null, webhook_format: 'generic', webhook_token_set: false,
  channels: { push: true, email: true, webhook: true }, when: 'due', digest_time: '07:30', viewer_reminders: false,
  available: { push: true, email: true, webhook: true }, updated_at: null,
};

afterEach(() => {
  setLanguage('en');
  setFormat('en-US', 'USD');
});

describe('what a reminder card says of its notification', () => {
  it('names the channels that reach the owner, ahead of the due point or once it is due', () => {
    setLanguage('en');
    setFormat('en-GB', 'GBP');
    const plan = planOf(settings);
    expect(notifyText(plan, 'ok')).toEqual({ text: 'You’ll be notified by push and e-mail when it is due soon.', off: false });
    expect(notifyText(plan, 'overdue')?.text).toBe('You’re notified once by push and e-mail.');
    expect(notifyText(planOf({ ...settings, webhook_url: 'https://ntfy.sh/x' }), 'soon')?.text)
      .toBe('You’re notified once by push, e-mail and webhook.');
  });

  it('says the digest and its time as the owner writes times', () => {
    setLanguage('en');
    setFormat('en-US', 'USD');
    const digest = planOf({ ...settings, when: 'digest', digest_time: '17:10', channels: { push: false, email: true, webhook: false } });
    expect(notifyText(digest, 'ok')?.text).toBe('You’ll be notified by e-mail in the daily digest at 5:10 PM once it is due soon.');
    setLanguage('de');
    setFormat('de-DE', 'EUR');
    expect(notifyText(digest, 'overdue')?.text).toBe('Sie steht in Ihrer täglichen Übersicht um 17:10, per E-Mail.');
  });

  it('says when nothing reaches the owner, and nothing while it is not known', () => {
    setLanguage('en');
    const off = planOf({ ...settings, channels: { push: false, email: true, webhook: false }, available: { push: true, email: false, webhook: true } });
    expect(notifyText(off, 'soon')).toEqual({ text: 'You won’t be notified: notifications are off.', off: true });
    expect(notifyText(null, 'soon')).toBeNull();
  });

  it('a vehicle shared to view reaches its viewer only by their choice', () => {
    setLanguage('en');
    expect(notifyText(planOf(settings), 'ok', true)).toEqual({ text: 'You won’t be notified: this vehicle is shared with you to view.', off: true });
    expect(notifyText(planOf({ ...settings, viewer_reminders: true }), 'ok', true)?.text).toBe('You’ll be notified by push and e-mail when it is due soon.');
    // An editor (not a viewer) is notified as the owner is.
    expect(notifyText(planOf(settings), 'ok', false)?.off).toBe(false);
  });

  it('in German and Chinese', () => {
    setLanguage('de');
    setFormat('de-DE', 'EUR');
    expect(notifyText(planOf(settings), 'ok')?.text).toBe('Sie werden per Push und E-Mail benachrichtigt, sobald sie bald fällig ist.');
    setLanguage('zh');
    setFormat('zh-CN', 'CNY');
    expect(notifyText(planOf(settings), 'ok')?.text).toBe('即将到期时会通过推送和电子邮件通知你。');
  });
});
