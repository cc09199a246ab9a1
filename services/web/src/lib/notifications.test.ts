import { describe, expect, it } from 'vitest';
import {
  base64UrlBytes, checkSettings, formOf, isAppleMobile, linkedReminder, pushSupport, reaching, vapidKey,
  type BrowserFacts, type NotificationSettings, type SettingsForm,
} from './notifications';

const saved: NotificationSettings = {
  email: 'ann@example.org',
  webhook_url: 'https://ntfy.sh/golf-reminders',
  webhook_format: 'ntfy',
  webhook_token_set: true,
  channels: { push: true, email: true, webhook: false },
  when: 'digest',
  digest_time: '17:10',
  viewer_reminders: false,
  available: { push: true, email: true, webhook: true },
  updated_at: '2026-03-01T08:00:01.5Z',
};

const form = (over: Partial<SettingsForm> = {}): SettingsForm => ({ ...formOf(saved, 'de-DE'), ...over });

describe('the settings form', () => {
  it('shows the saved settings, the digest time as the format writes times, no token', () => {
    expect(formOf(saved, 'de-DE')).toEqual({
      email: 'ann@example.org', webhookUrl: 'https://ntfy.sh/golf-reminders', webhookFormat: 'ntfy',
      webhookToken: '', clearToken: false, channels: { push: true, email: true, webhook: false },
      when: 'digest', digestTime: '17:10', viewerReminders: false,
    });
    expect(formOf(saved, 'en-US').digestTime).toBe('5:10 PM');
    // Never saved: the service answers null for the addresses.
    expect(formOf({ ...saved, email: null, webhook_url: null }, 'de-DE')).toMatchObject({ email: '', webhookUrl: '' });
    expect(formOf({ ...saved, digest_time: '' }, 'en-GB').digestTime).toBe('08:00');
  });

  it('sends what is shown, trimmed, the time as HH:MM, and a token only when one is typed or removed', () => {
    expect(checkSettings(form({ email: ' ann@example.org ', digestTime: '7.30' }), 'de-DE')).toEqual({
      problems: [],
      input: {
        email: 'ann@example.org', webhook_url: 'https://ntfy.sh/golf-reminders', webhook_format: 'ntfy',
        channels: { push: true, email: true, webhook: false }, when: 'digest', digest_time: '07:30', viewer_reminders: false,
      },
    });
    expect(checkSettings(form({ webhookToken: ' tk_123 ' }), 'de-DE').input?.webhook_token).toBe('tk_123');
    expect(checkSettings(form({ clearToken: true }), 'de-DE').input?.webhook_token).toBe('');
    // A new token typed wins over "remove".
    expect(checkSettings(form({ clearToken: true, webhookToken: 'new' }), 'de-DE').input?.webhook_token).toBe('new');
    expect(checkSettings(form({ digestTime: '5:10 PM' }), 'en-US').input?.digest_time).toBe('17:10');
  });

  it('as due, an unreadable digest time is not refused: the default is kept for a later digest', () => {
    const r = checkSettings(form({ when: 'due', digestTime: 'soon' }), 'de-DE');
    expect(r.problems).toEqual([]);
    expect(r.input?.digest_time).toBe('08:00');
  });

  it('names every bad field at once', () => {
    const r = checkSettings(form({
      email: 'ann at example', webhookUrl: 'ntfy.sh/topic', channels: { push: false, email: true, webhook: true }, digestTime: '25:00',
    }), 'de-DE');
    expect(r.input).toBeNull();
    expect(r.problems).toEqual([
      { field: 'email', problem: 'email' },
      { field: 'webhook_url', problem: 'url' },
      { field: 'digest_time', problem: 'time' },
    ]);
  });

  it('a channel turned on needs its address; one turned off may keep or lose it', () => {
    expect(checkSettings(form({ email: ' ', webhookUrl: '', channels: { push: false, email: true, webhook: true } }), 'de-DE').problems).toEqual([
      { field: 'email', problem: 'needed' },
      { field: 'webhook_url', problem: 'needed' },
    ]);
    expect(checkSettings(form({ email: '', webhookUrl: '', channels: { push: true, email: false, webhook: false } }), 'de-DE').problems).toEqual([]);
  });

  it('takes only http and https webhook addresses with a host', () => {
    const bad = (u: string) => checkSettings(form({ webhookUrl: u }), 'de-DE').problems;
    expect(bad('https://gotify.example.org')).toEqual([]);
    expect(bad('http://192.168.1.5:8080/message')).toEqual([]); // private addresses: the service decides (WEBHOOK_ALLOW_PRIVATE)
    for (const u of ['ftp://example.org', 'javascript:alert(1)', 'https://', 'example.org/hook', 'mailto:ann@example.org']) {
      expect(bad(u), u).toEqual([{ field: 'webhook_url', problem: 'url' }]);
    }
    expect(bad(`https://example.org/${'a'.repeat(2048)}`)).toEqual([{ field: 'webhook_url', problem: 'tooLong' }]);
  });

  it('a 12-hour clock needs AM or PM for an ambiguous digest time', () => {
    expect(checkSettings(form({ digestTime: '7:30' }), 'en-US').problems).toEqual([{ field: 'digest_time', problem: 'time' }]);
    expect(checkSettings(form({ digestTime: '7:30 am' }), 'en-US').input?.digest_time).toBe('07:30');
    expect(checkSettings(form({ digestTime: '19:30' }), 'en-US').input?.digest_time).toBe('19:30');
  });
});

describe('reaching: the channels a reminder reaches', () => {
  it('needs the channel on, the server able to send on it, and somewhere to go', () => {
    expect(reaching(saved)).toEqual(['push', 'email']);
    expect(reaching({ ...saved, available: { push: false, email: true, webhook: true } })).toEqual(['email']);
    expect(reaching({ ...saved, available: { push: true, email: false, webhook: true } })).toEqual(['push']);
    expect(reaching({ ...saved, email: '  ' })).toEqual(['push']);
    expect(reaching({ ...saved, email: null, channels: { push: false, email: true, webhook: false } })).toEqual([]);
    expect(reaching({ ...saved, channels: { push: false, email: false, webhook: true } })).toEqual(['webhook']);
    expect(reaching({ ...saved, webhook_url: null, channels: { push: false, email: false, webhook: true } })).toEqual([]);
  });
});

describe('the VAPID key', () => {
  // A P-256 public key as services answer it (base64url, uncompressed: 0x04, X, Y).
  const key = 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U';

  it('reads base64url into its bytes', () => {
    const b = vapidKey(key);
    expect(b?.length).toBe(65);
    expect(b?.[0]).toBe(4);
    expect(Array.from(base64UrlBytes('-_8') ?? [])).toEqual([0xfb, 0xff]);
    expect(Array.from(base64UrlBytes('AQID') ?? [])).toEqual([1, 2, 3]);
    expect(Array.from(base64UrlBytes('AQI=') ?? [])).toEqual([1, 2]);
    expect(Array.from(base64UrlBytes('') ?? [9])).toEqual([]);
  });

  it('refuses what is not base64url, or not an uncompressed P-256 key', () => {
    expect(base64UrlBytes('a+b/')).toBeNull(); // base64, not base64url
    expect(base64UrlBytes('AQIDB')).toBeNull(); // 5 characters cannot be whole bytes
    expect(base64UrlBytes('AQ I')).toBeNull();
    expect(vapidKey('AQID')).toBeNull();
    expect(vapidKey('A' + key.slice(1))).toBeNull(); // 65 bytes, not starting 0x04
  });
});

describe('pushSupport', () => {
  const chrome: BrowserFacts = {
    hasPush: true, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36',
    maxTouchPoints: 0, standalone: false, permission: 'default',
  };
  const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1';
  const ipad = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Safari/605.1.15';

  it('asks an iPhone or iPad to install the app first, and only then', () => {
    expect(pushSupport({ ...chrome, userAgent: iphone, hasPush: false })).toBe('install');
    expect(pushSupport({ ...chrome, userAgent: ipad, maxTouchPoints: 5, hasPush: false })).toBe('install');
    expect(pushSupport({ ...chrome, userAgent: iphone, standalone: true })).toBe('ready');
    // A Mac without a touch screen is a Mac: Safari there takes push in a tab.
    expect(pushSupport({ ...chrome, userAgent: ipad, maxTouchPoints: 0 })).toBe('ready');
    expect(isAppleMobile(iphone, 5)).toBe(true);
  });

  it('says a refused permission and a browser without push', () => {
    expect(pushSupport(chrome)).toBe('ready');
    expect(pushSupport({ ...chrome, permission: 'granted' })).toBe('ready');
    expect(pushSupport({ ...chrome, permission: 'denied' })).toBe('denied');
    expect(pushSupport({ ...chrome, hasPush: false, permission: null })).toBe('unsupported');
  });
});

describe('linkedReminder: where a notification\'s link leads', () => {
  it('reads the vehicle and the reminder of the link, nothing else', () => {
    expect(linkedReminder('?vehicle=2&reminder=7')).toEqual({ vehicle: 2, reminder: 7 });
    expect(linkedReminder('?reminder=7')).toEqual({ vehicle: null, reminder: 7 });
    expect(linkedReminder('')).toEqual({ vehicle: null, reminder: null });
    expect(linkedReminder('?vehicle=0&reminder=-1')).toEqual({ vehicle: null, reminder: null });
    expect(linkedReminder('?vehicle=2x&reminder=1e3')).toEqual({ vehicle: null, reminder: null });
  });
});
