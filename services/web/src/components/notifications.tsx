// Settings → Notifications (issue 57): push on this device, the channels
// (push, e-mail, a webhook in the generic, ntfy or Gotify format), as due or
// in a daily digest, "Send a test" with each channel's result, and what was
// sent lately. A chunk of its own with its catalogue (i18n/notifications.ts),
// loaded by Settings: the first screen's budget. Everything here needs the
// server; the settings read last show offline, marked as of their time.
import { useEffect, useRef, useState } from 'preact/hooks';
import { notificationsApi, notificationPaths, type SentNotification, type TestResult } from '../api/notifications';
import { useOnline } from '../hooks';
import { tnf } from '../i18n/notifications';
import { fmtDateTime, numberLocale } from '../lib/format';
import { timeExample } from '../lib/dates';
import {
  CHANNELS, checkSettings, formOf, WEBHOOK_FORMATS,
  type Channel, type NotificationSettings, type SettingsForm, type SettingsProblem, type WebhookFormat,
} from '../lib/notifications';
import { load } from '../offline/snapshots';
import { keepSettings, onSettingsChange, pushHere, PushRefused, support, turnOff, turnOn } from '../offline/notifications';
import { AsOf, ErrorText, Status } from './messages';
import { ErrorSummary, FieldMessage, fromService, useFormErrors, type FieldError } from './form-errors';

const IDS = {
  email: 'notify-email',
  webhook_url: 'notify-webhook-url',
  webhook_format: 'notify-webhook-format',
  webhook_token: 'notify-webhook-token',
  digest_time: 'notify-digest-time',
} as const;

const LABELS: Record<keyof typeof IDS, () => string> = {
  email: () => tnf('notify.email'),
  webhook_url: () => tnf('notify.webhookUrl'),
  webhook_format: () => tnf('notify.format'),
  webhook_token: () => tnf('notify.token.generic'),
  digest_time: () => tnf('notify.digestTime'),
};

/** The service's field names (its 400 names every bad one: "webhook_url: …; digest_time: …"), each at its control. */
function serviceFields() {
  return {
    ...Object.fromEntries((Object.keys(IDS) as (keyof typeof IDS)[]).map((k) => [k, { id: IDS[k], label: LABELS[k]() }])),
    'channels.email': { id: 'notify-ch-email', label: tnf('notify.ch.email') },
    'channels.webhook': { id: 'notify-ch-webhook', label: tnf('notify.ch.webhook') },
    channels: { id: 'notify-ch-push', label: tnf('notify.channels') },
    when: { id: 'notify-when-due', label: tnf('notify.when') },
    viewer_reminders: { id: 'notify-viewer', label: tnf('notify.viewer') },
  };
}

/** messageOf: a problem the form found, in words. */
function messageOf(p: SettingsProblem): FieldError {
  const id = IDS[p.field];
  switch (p.problem) {
    case 'needed': return { id, message: tnf(p.field === 'email' ? 'notify.errNeededEmail' : 'notify.errNeededUrl') };
    case 'email': return { id, message: tnf('notify.errEmail') };
    case 'url': return { id, message: tnf('notify.errUrl') };
    case 'time': return { id, message: tnf('notify.errTime', { example: timeExample(numberLocale()) }) };
    case 'tooLong': return { id, message: tnf('notify.errTooLong', { label: LABELS[p.field]() }) };
  }
}

const channelName = (c: Channel) => tnf(`notify.name.${c}`);

/** accounts: accounts are on (vehicles can be shared, so the viewers' choice is offered). */
export function Notifications({ timeZone, accounts }: { timeZone: string; accounts: boolean }) {
  const online = useOnline();
  const [saved, setSaved] = useState<NotificationSettings | null>(null);
  const [asOf, setAsOf] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [here, setHere] = useState(false);
  const [sentTick, setSentTick] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let live = true;
    load<NotificationSettings>(notificationPaths.settings).then((r) => {
      if (!live) return;
      setSaved(r.data);
      setAsOf(r.asOf);
      // The reminders' line says what was just read, not what the session read first.
      if (r.asOf === null) void keepSettings(r.data);
    }, (err: Error) => live && setLoadError(err.message));
    const device = () => void pushHere().then((on) => live && setHere(on));
    device();
    const off = onSettingsChange(device);
    return () => {
      live = false;
      off();
    };
  }, [online]);
  // Arrived from a reminder's "turn them on" link: this section, not the top of Settings.
  useEffect(() => {
    if (saved && location.hash === '#notifications') {
      heading.current?.focus({ preventScroll: true });
      heading.current?.scrollIntoView({ block: 'start' });
    }
  }, [saved !== null]);

  const stored = (s: NotificationSettings) => {
    setSaved(s);
    setAsOf(null);
    void keepSettings(s);
  };

  return (
    <section id="notifications" class="notifications" aria-labelledby="notify-h">
      <h2 id="notify-h" ref={heading} tabIndex={-1}>{tnf('notify.heading')}</h2>
      <p class="hint">{tnf('notify.intro')}</p>
      {!online && <p class="hint">{tnf('notify.needsConnection')}</p>}
      {loadError && !saved && <ErrorText error={tnf('notify.loadFailed', { message: loadError })} />}
      {!saved && !loadError && <p class="hint" role="status">{tnf('notify.loading')}</p>}
      {saved && (
        <>
          <AsOf asOf={asOf} />
          <DevicePush online={online} here={here} saved={saved} onSaved={stored} />
          <SettingsEditor key={asOf ?? 'fresh'} saved={saved} online={online} timeZone={timeZone} accounts={accounts} onSaved={stored} />
          <TestSend online={online} saved={saved} onSent={() => setSentTick((n) => n + 1)} />
          <Recent online={online} tick={sentTick} />
        </>
      )}
    </section>
  );
}

/** DevicePush: push on this device, on or off; why it cannot be, when it cannot. */
function DevicePush({ online, here, saved, onSaved }: {
  online: boolean; here: boolean; saved: NotificationSettings; onSaved: (s: NotificationSettings) => void;
}) {
  const [busy, setBusy] = useState<'on' | 'off' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<'denied' | 'dismissed' | null>(null);
  const can = support();
  const denied = can === 'denied' || said === 'denied';

  async function on() {
    setBusy('on');
    setError(null);
    setSaid(null);
    try {
      const r = await turnOn();
      if (r !== 'on') return setSaid(r);
      // Push on a device is wanted: the channel goes on with it (a patch: the rest stays as saved).
      if (!saved.channels.push) onSaved(await notificationsApi.save({ channels: { push: true } }));
    } catch (err) {
      const message = err instanceof PushRefused ? tnf(err.reason === 'noKey' ? 'notify.noKey' : 'notify.noWorker') : (err as Error).message;
      setError(tnf('notify.pushFailed', { message }));
    } finally {
      setBusy(null);
    }
  }

  async function off() {
    setBusy('off');
    setError(null);
    try {
      await turnOff();
    } catch (err) {
      setError(tnf('notify.offFailed', { message: (err as Error).message }));
    } finally {
      setBusy(null);
    }
  }

  return (
    <div class="device-push" role="group" aria-labelledby="notify-device-h">
      <h3 id="notify-device-h">{tnf('notify.device')}</h3>
      {!saved.available.push && <p class="hint">{tnf('notify.noPushServer')}</p>}
      {saved.available.push && can === 'install' && <p class="notice">{tnf('notify.install')}</p>}
      {saved.available.push && can === 'unsupported' && <p class="hint">{tnf('notify.unsupported')}</p>}
      {saved.available.push && (can === 'ready' || can === 'denied') && (
        <>
          {/* Says each change of the buttons below too (a status: read out when it changes). */}
          <p role="status">{here ? tnf('notify.deviceOn') : tnf('notify.deviceOff')}</p>
          {denied && !here && <p class="notice" id="notify-denied">{tnf('notify.denied')}</p>}
          {said === 'dismissed' && <p class="notice">{tnf('notify.dismissed')}</p>}
          <div class="buttons">
            {here
              ? <button type="button" class="secondary" disabled={busy !== null || !online} onClick={() => void off()}>{tnf('notify.turnOff')}</button>
              : <button type="button" disabled={busy !== null || !online || denied} aria-describedby={denied ? 'notify-denied' : 'notify-ask'} onClick={() => void on()}>{tnf('notify.turnOn')}</button>}
          </div>
          {!here && !denied && <p class="hint" id="notify-ask">{tnf('notify.askHint')}</p>}
        </>
      )}
      {busy === 'on' && <p class="hint">{tnf('notify.turningOn')}</p>}
      <ErrorText error={error} />
    </div>
  );
}

/** SettingsEditor: the channels, their addresses and when; saved with one PUT. */
function SettingsEditor({ saved, online, timeZone, accounts, onSaved }: {
  saved: NotificationSettings; online: boolean; timeZone: string; accounts: boolean; onSaved: (s: NotificationSettings) => void;
}) {
  const locale = numberLocale();
  const [form, setForm] = useState<SettingsForm>(() => formOf(saved, locale));
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const check = () => checkSettings(form, locale).problems.map(messageOf);
  const errorsOf = useFormErrors(errors, check);
  const set = <K extends keyof SettingsForm>(k: K, v: SettingsForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const setChannel = (c: Channel, on: boolean) => setForm((f) => ({ ...f, channels: { ...f.channels, [c]: on } }));
  // Push turned on from the device's button: the box follows (nothing else of the form changes).
  useEffect(() => setChannel('push', saved.channels.push), [saved.channels.push]);

  async function submit(e: Event) {
    e.preventDefault();
    setStatus(null);
    const { problems, input } = checkSettings(form, locale);
    if (!input) {
      setErrors(problems.map(messageOf));
      return errorsOf.reveal();
    }
    setErrors([]);
    setBusy(true);
    try {
      const s = await notificationsApi.save(input);
      onSaved(s);
      setForm(formOf(s, locale));
      setStatus(tnf('notify.saved'));
    } catch (err) {
      setErrors(fromService((err as Error).message, serviceFields(), (message) => tnf('notify.notSaved', { message })));
      errorsOf.reveal();
    } finally {
      setBusy(false);
    }
  }

  const format = form.webhookFormat;
  // The service drops a kept token when the address changes without one (it is never sent where it was not given).
  const tokenDropped = saved.webhook_token_set && !form.clearToken && form.webhookToken.trim() === ''
    && form.webhookUrl.trim() !== (saved.webhook_url ?? '');
  return (
    <form class="form" noValidate aria-labelledby="notify-channels-legend" onSubmit={(e) => void submit(e)}>
      <ErrorSummary form={errorsOf} />
      <fieldset>
        <legend id="notify-channels-legend">{tnf('notify.channels')}</legend>
        {CHANNELS.map((c) => (
          <div key={c} class="channel">
            <div class="check">
              {/* A channel the server cannot send on cannot be turned on (one on already can be turned off). */}
              <input id={`notify-ch-${c}`} type="checkbox" checked={form.channels[c]} disabled={!saved.available[c] && !form.channels[c]}
                {...errorsOf.control(`notify-ch-${c}`, !saved.available[c] && `notify-ch-${c}-off`)} onChange={(e) => setChannel(c, e.currentTarget.checked)} />
              <label for={`notify-ch-${c}`}>{tnf(`notify.ch.${c}`)}</label>
            </div>
            {!saved.available[c] && <p class="hint" id={`notify-ch-${c}-off`}>{tnf(c === 'email' ? 'notify.emailOff' : 'notify.channelOff')}</p>}
            <FieldMessage form={errorsOf} id={`notify-ch-${c}`} />
            {form.channels[c] && c === 'email' && (
              <div class="channel-detail">
                <div class="field">
                  <label for={IDS.email}>{tnf('notify.email')}</label>
                  <input id={IDS.email} type="email" autoComplete="email" inputMode="email" maxLength={254} value={form.email}
                    {...errorsOf.control(IDS.email)} onInput={(e) => set('email', e.currentTarget.value)} />
                  <FieldMessage form={errorsOf} id={IDS.email} />
                </div>
              </div>
            )}
            {form.channels[c] && c === 'webhook' && (
              <div class="channel-detail">
                <div class="field">
                  <label for={IDS.webhook_format}>{tnf('notify.format')}</label>
                  <select id={IDS.webhook_format} value={format} {...errorsOf.control(IDS.webhook_format)}
                    onChange={(e) => set('webhookFormat', e.currentTarget.value as WebhookFormat)}>
                    {WEBHOOK_FORMATS.map((f) => <option key={f} value={f}>{tnf(`notify.format.${f}`)}</option>)}
                  </select>
                  <FieldMessage form={errorsOf} id={IDS.webhook_format} />
                </div>
                <div class="field">
                  <label for={IDS.webhook_url}>{tnf('notify.webhookUrl')}</label>
                  <input id={IDS.webhook_url} type="url" inputMode="url" autoComplete="off" spellcheck={false} maxLength={2048} value={form.webhookUrl}
                    {...errorsOf.control(IDS.webhook_url, 'notify-url-hint')} onInput={(e) => set('webhookUrl', e.currentTarget.value)} />
                  <p class="hint" id="notify-url-hint">{tnf(`notify.urlHint.${format}`)}</p>
                  <FieldMessage form={errorsOf} id={IDS.webhook_url} />
                </div>
                <div class="field">
                  <label for={IDS.webhook_token}>{tnf(`notify.token.${format}`)}</label>
                  <input id={IDS.webhook_token} type="password" autoComplete="off" spellcheck={false} maxLength={512} value={form.webhookToken}
                    disabled={form.clearToken}
                    {...errorsOf.control(IDS.webhook_token, 'notify-token-hint')} onInput={(e) => set('webhookToken', e.currentTarget.value)} />
                  <p class="hint" id="notify-token-hint">
                    {tokenDropped ? tnf('notify.tokenDropped') : saved.webhook_token_set ? tnf('notify.tokenSet') : tnf('notify.tokenHint')}
                  </p>
                  <FieldMessage form={errorsOf} id={IDS.webhook_token} />
                </div>
                {saved.webhook_token_set && !tokenDropped && (
                  <div class="check">
                    <input id="notify-token-clear" type="checkbox" checked={form.clearToken} onChange={(e) => set('clearToken', e.currentTarget.checked)} />
                    <label for="notify-token-clear">{tnf('notify.tokenClear')}</label>
                  </div>
                )}
              </div>
            )}
          </div>
        ))}
      </fieldset>
      <fieldset>
        <legend>{tnf('notify.when')}</legend>
        {(['due', 'digest'] as const).map((w) => (
          <div class="check" key={w}>
            <input id={`notify-when-${w}`} type="radio" name="notify-when" value={w} checked={form.when === w}
              {...errorsOf.control(`notify-when-${w}`)} onChange={() => set('when', w)} />
            <label for={`notify-when-${w}`}>{tnf(`notify.when.${w}`)}</label>
          </div>
        ))}
        {form.when === 'digest' && (
          <div class="field digest-time">
            <label for={IDS.digest_time}>{tnf('notify.digestTime')}</label>
            <input id={IDS.digest_time} autoComplete="off" value={form.digestTime}
              {...errorsOf.control(IDS.digest_time, 'notify-digest-hint')} onInput={(e) => set('digestTime', e.currentTarget.value)} />
            <p class="hint" id="notify-digest-hint">{tnf('notify.digestHint', { zone: timeZone, example: timeExample(locale) })}</p>
            <FieldMessage form={errorsOf} id={IDS.digest_time} />
          </div>
        )}
      </fieldset>
      {accounts && (
        <fieldset>
          <legend>{tnf('notify.which')}</legend>
          <div class="check">
            <input id="notify-viewer" type="checkbox" checked={form.viewerReminders} aria-describedby="notify-viewer-hint"
              {...errorsOf.control('notify-viewer', 'notify-viewer-hint')} onChange={(e) => set('viewerReminders', e.currentTarget.checked)} />
            <label for="notify-viewer">{tnf('notify.viewer')}</label>
          </div>
          <p class="hint" id="notify-viewer-hint">{tnf('notify.viewerHint')}</p>
        </fieldset>
      )}
      {status && <Status>{status}</Status>}
      <div class="buttons">
        <button type="submit" disabled={busy || !online}>{tnf('notify.save')}</button>
      </div>
    </form>
  );
}

/** resultText: one channel's outcome of a test, in words. */
function resultText(r: TestResult): string {
  const channel = channelName(r.channel);
  if (r.status === 'sent') return tnf('notify.testSent', { channel });
  return r.error ? tnf('notify.testFailed', { channel, message: r.error }) : tnf('notify.testFailedPlain', { channel });
}

/** TestSend: "Send a test" on every channel on, as saved, and each one's result. */
function TestSend({ online, saved, onSent }: { online: boolean; saved: NotificationSettings; onSent: () => void }) {
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<TestResult[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const none = CHANNELS.every((c) => !saved.channels[c]);

  async function send() {
    setBusy(true);
    setResults(null);
    setError(null);
    try {
      setResults(await notificationsApi.test());
      onSent();
    } catch (err) {
      setError(tnf('notify.testError', { message: (err as Error).message }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="notify-test">
      <div class="buttons">
        <button type="button" class="secondary" disabled={busy || !online || none} aria-describedby="notify-test-hint" onClick={() => void send()}>{tnf('notify.test')}</button>
      </div>
      <p class="hint" id="notify-test-hint">{none ? tnf('notify.testNone') : tnf('notify.testHint')}</p>
      <div role="status">
        {busy && <p class="hint">{tnf('notify.testing')}</p>}
        {results && results.length === 0 && <p class="hint">{tnf('notify.testNone')}</p>}
        {results && results.length > 0 && (
          <>
            <p>{tnf('notify.testResults')}</p>
            <ul class="test-results">
              {results.map((r) => <li key={r.channel} class={r.status === 'sent' ? 'status' : 'error'}>{resultText(r)}</li>)}
            </ul>
          </>
        )}
      </div>
      <ErrorText error={error} />
    </div>
  );
}

const STATUS_WORD = { sent: 'notify.sent', failed: 'notify.failed', pending: 'notify.pending' } as const;
const STATUS_BADGE = { sent: 'ok', failed: 'overdue', pending: 'soon' } as const;

/** Recent: the last messages sent, newest first, each with its channel and whether it went. */
function Recent({ online, tick }: { online: boolean; tick: number }) {
  const [list, setList] = useState<SentNotification[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!online) return;
    let live = true;
    notificationsApi.sent().then((l) => live && setList(l), (err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [online, tick]);
  const shown = (list ?? []).slice(0, 20);
  return (
    <div class="notify-recent">
      <h3 id="notify-recent-h">{tnf('notify.recent')}</h3>
      {!online && !list && <p class="hint">{tnf('notify.recentOffline')}</p>}
      <ErrorText error={error} />
      {list && shown.length === 0 && <p class="hint">{tnf('notify.recentNone')}</p>}
      {shown.length > 0 && (
        <ul class="records sent-list" aria-labelledby="notify-recent-h">
          {shown.map((n) => (
            <li key={n.id} class={n.status === 'failed' ? 'record attention' : 'record'}>
              <p class="sent-what">{n.vehicle ? tnf('notify.recentVehicle', { title: n.title, vehicle: n.vehicle }) : n.title}</p>
              <p class="expense-meta">
                <span class={`status-badge ${STATUS_BADGE[n.status]}`}>{tnf(STATUS_WORD[n.status])}</span>
                {' '}{tnf('notify.recentMeta', { channel: channelName(n.channel), time: fmtDateTime(n.time) })}
              </p>
              {n.error && <p class="hint">{n.attempts > 1 ? tnf('notify.recentAttempts', { n: n.attempts, error: n.error }) : n.error}</p>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
