import { useEffect, useRef, useState } from 'preact/hooks';
import { authApi, signInWithSso } from '../api/auth';
import { ApiError, NetworkError } from '../api/http';
import { sessions, type AuthConfig } from '../api/session';
import { fmtTime } from '../lib/format';
import { t, tn } from '../i18n';

interface Props {
  config: AuthConfig | null;
  /** Why the screen is shown (the session ended, a single sign-on failed), if not a first sign-in. */
  notice: string | null;
  /** Writes made on this device that wait for a sign-in. */
  waiting: number;
}

/** loginError says what went wrong, and for a 429 when to try again. */
export function loginError(err: unknown, now = new Date()): string {
  if (err instanceof ApiError) {
    if (err.status === 401) return t('login.wrong');
    if (err.status === 429) {
      if (err.retryAfter === undefined) return t('login.tooMany');
      const at = new Date(now.getTime() + err.retryAfter * 1000);
      const secs = err.retryAfter;
      const wait = secs < 90 ? tn('login.seconds', secs) : t('login.minutes', { n: Math.ceil(secs / 60) });
      return t('login.tryAgainIn', { wait, time: fmtTime(at) });
    }
    return err.message;
  }
  if (err instanceof NetworkError) return t('login.offline');
  return err instanceof Error ? err.message : String(err);
}

export function Login({ config, notice, waiting }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [ssoError, setSsoError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    document.title = t('login.title');
    heading.current?.focus();
  }, []);

  async function submit(e: Event) {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await sessions.signIn(await authApi.login(username.trim(), password));
    } catch (err) {
      setError(loginError(err));
      setPassword('');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="app">
      <a class="skip" href="#main">{t('app.skip')}</a>
      <header class="top">
        <span class="brand" aria-hidden="true">CarHub</span>
      </header>
      <main id="main">
        <h1 id="login-title" tabIndex={-1} ref={heading}>{t('login.heading')}</h1>
        {notice && <p class="notice" role="status">{notice}</p>}
        {waiting > 0 && (
          <p class="notice">{tn('login.waits', waiting)}</p>
        )}
        <form class="form" aria-labelledby="login-title" onSubmit={(e) => void submit(e)}>
          <div class="field">
            <label for="login-username">{t('login.username')}</label>
            <input id="login-username" name="username" autocomplete="username" autocapitalize="none" spellcheck={false} required
              value={username} onInput={(e) => setUsername(e.currentTarget.value)} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? 'login-error' : undefined} />
          </div>
          <div class="field">
            <label for="login-password">{t('login.password')}</label>
            <input id="login-password" name="password" type="password" autocomplete="current-password" required
              value={password} onInput={(e) => setPassword(e.currentTarget.value)} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? 'login-error' : undefined} />
          </div>
          {error && <p class="error" role="alert" id="login-error">{error}</p>}
          <div class="buttons">
            <button type="submit" disabled={busy}>{busy ? t('login.signingIn') : t('login.submit')}</button>
          </div>
        </form>
        {config?.oidc && (
          <p>
            {/* A button, not a link: it keeps this tab's one-time value before it leaves (acceptSsoFragment checks it on return). */}
            <button type="button" class="secondary" onClick={() => {
              if (!signInWithSso()) setSsoError(t('login.ssoNoStorage'));
            }}>{t('login.sso')}</button>
          </p>
        )}
        {ssoError && <p class="error" role="alert">{ssoError}</p>}
      </main>
    </div>
  );
}
