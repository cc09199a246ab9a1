// The signed-in user's account on Settings (accounts on only): a change of
// password, the sign-ins and access tokens for everyone, and the household's
// accounts for administrators.
// These need the server: nothing here is queued offline.
import { useState } from 'preact/hooks';
import { authApi, signInWithSso, type TokenInfo } from '../api/auth';
import { ApiError } from '../api/http';
import type { User } from '../api/session';
import { Badge, ErrorText, Status } from '../components/messages';
import { ErrorSummary, FieldMessage, fromService, useFormErrors } from '../components/form-errors';
import { useAction, useOnline, useServerData } from '../hooks';
import { t } from '../i18n';
import { fmtDateTime } from '../lib/format';

/** oidc: single sign-on is on (an account without a password signs in again with it). */
export function Account({ user, oidc }: { user: User; oidc: boolean }) {
  const online = useOnline();
  // A new password ends the other sign-ins (and the tokens, if asked): the list is read again.
  const [passwordChanges, setPasswordChanges] = useState(0);
  // Absent in a session stored before the field: such an account had a password.
  const hasPassword = user.has_password !== false;
  return (
    <>
      <h2>{t('account.heading')}</h2>
      {!online && <p class="hint">{t('account.needsConnection')}</p>}
      {hasPassword
        ? <PasswordForm online={online} onChanged={() => setPasswordChanges((n) => n + 1)} />
        : <p class="hint">{t('account.noPassword')}</p>}
      <Tokens online={online} reload={passwordChanges} hasPassword={hasPassword} oidc={oidc} />
      {user.is_admin && <Users self={user} online={online} />}
    </>
  );
}

function PasswordForm({ online, onChanged }: { online: boolean; onChanged: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  // On unless unticked: a token that got out with the old password stops working with it.
  const [revokeTokens, setRevokeTokens] = useState(true);
  const { busy, error, status, setError, run } = useAction();
  // The repetition is checked here; the rest by the service, whose errors name the fields.
  const [differ, setDiffer] = useState(false);
  const form = useFormErrors(differ ? [{ id: 'password-repeat', message: t('account.differ') }] : fromService(error, {
    current_password: { id: 'password-current', label: t('account.current') },
    new_password: { id: 'password-new', label: t('account.new') },
  }));

  async function submit(e: Event) {
    e.preventDefault();
    setDiffer(next !== repeat);
    if (next !== repeat) {
      setError(null);
      return form.reveal();
    }
    const done = revokeTokens ? t('account.changedRevoked') : t('account.changed');
    if (await run(() => authApi.changePassword(current, next, revokeTokens), () => done)) {
      setCurrent('');
      setNext('');
      setRepeat('');
      setRevokeTokens(true);
      onChanged();
    } else {
      form.reveal();
    }
  }

  return (
    <form class="form" noValidate aria-labelledby="password-legend" onSubmit={(e) => void submit(e)}>
      <ErrorSummary form={form} />
      <fieldset>
        <legend id="password-legend">{t('account.password')}</legend>
        <div class="field">
          <label for="password-current">{t('account.current')}</label>
          <input id="password-current" type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent(e.currentTarget.value)}
            {...form.control('password-current')} />
          <FieldMessage form={form} id="password-current" />
        </div>
        <div class="field">
          <label for="password-new">{t('account.new')}</label>
          <input id="password-new" type="password" autocomplete="new-password" required value={next} onInput={(e) => setNext(e.currentTarget.value)}
            {...form.control('password-new')} />
          <FieldMessage form={form} id="password-new" />
        </div>
        <div class="field">
          <label for="password-repeat">{t('account.repeat')}</label>
          <input id="password-repeat" type="password" autocomplete="new-password" required value={repeat} onInput={(e) => setRepeat(e.currentTarget.value)}
            {...form.control('password-repeat')} />
          <FieldMessage form={form} id="password-repeat" />
        </div>
        <div class="check">
          <input id="password-revoke-tokens" type="checkbox" checked={revokeTokens} onChange={(e) => setRevokeTokens(e.currentTarget.checked)}
            aria-describedby="password-revoke-tokens-hint" />
          <label for="password-revoke-tokens">{t('account.revokeTokens')}</label>
        </div>
        <p id="password-revoke-tokens-hint" class="hint">{t('account.revokeTokensHint')}</p>
      </fieldset>
      {status && <Status>{status}</Status>}
      <div class="buttons">
        <button type="submit" disabled={busy || !online}>{t('account.change')}</button>
      </div>
    </form>
  );
}

function Users({ self, online }: { self: User; online: boolean }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const list = useServerData(authApi.users, online);
  const users = list.data;
  // Each change is followed by the list as the service has it.
  const { busy, error, status, run: act } = useAction(list.reload);
  // The last action was the form's (its errors show in it) or a deletion's (above the list).
  const [byForm, setByForm] = useState(false);
  const form = useFormErrors(byForm ? fromService(error, {
    username: { id: 'user-name', label: t('login.username') },
    password: { id: 'user-password', label: t('login.password') },
  }) : []);

  async function add(e: Event) {
    e.preventDefault();
    setByForm(true);
    const name = username.trim();
    if (await act(() => authApi.createUser(name, password, admin), () => t('users.added', { name }))) {
      setUsername('');
      setPassword('');
      setAdmin(false);
    } else {
      form.reveal();
    }
  }

  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">{t('users.heading')}</h2>
      <p class="hint">{t('users.hint')}</p>
      <ErrorText error={(byForm ? null : error) ?? list.error} />
      {status && <Status>{status}</Status>}
      <ul class="records" aria-label={t('users.list')}>
        {users?.map((u) => (
          <li key={u.id} class="record" aria-labelledby={`user-${u.id}`}>
            <h3 id={`user-${u.id}`}>
              {u.username}
              {u.is_admin && <Badge>{t('users.admin')}</Badge>}
              {u.id === self.id && <Badge>{t('users.you')}</Badge>}
            </h3>
            {u.id !== self.id && (
              <div class="buttons">
                <button type="button" class="danger" disabled={busy || !online}
                  onClick={() => {
                    setByForm(false);
                    if (window.confirm(t('users.deleteConfirm', { name: u.username }))) void act(() => authApi.deleteUser(u.id), () => t('users.deleted', { name: u.username }));
                  }}>{t('common.delete')}</button>
              </div>
            )}
          </li>
        ))}
      </ul>
      <form class="form" noValidate aria-labelledby="user-add-legend" onSubmit={(e) => void add(e)}>
        <ErrorSummary form={form} />
        <fieldset>
          <legend id="user-add-legend">{t('users.add')}</legend>
          <div class="field">
            <label for="user-name">{t('login.username')}</label>
            <input id="user-name" autocomplete="off" autocapitalize="none" spellcheck={false} required maxLength={64}
              value={username} {...form.control('user-name')} onInput={(e) => setUsername(e.currentTarget.value)} />
            <FieldMessage form={form} id="user-name" />
          </div>
          <div class="field">
            <label for="user-password">{t('login.password')}</label>
            <input id="user-password" type="password" autocomplete="new-password" required value={password} {...form.control('user-password')} onInput={(e) => setPassword(e.currentTarget.value)} />
            <FieldMessage form={form} id="user-password" />
          </div>
          <div class="check">
            <input id="user-admin" type="checkbox" checked={admin} onChange={(e) => setAdmin(e.currentTarget.checked)} />
            <label for="user-admin">{t('users.makeAdmin')}</label>
          </div>
        </fieldset>
        <div class="buttons">
          <button type="submit" disabled={busy || !online}>{t('users.addButton')}</button>
        </div>
      </form>
    </section>
  );
}

/** Lifetimes offered for a new access token, in days (null: until revoked). */
const TOKEN_DAYS = [30, 90, 365, null] as const;

interface TokensProps {
  online: boolean;
  reload: number;
  /** The account has a password, which a new token asks for. */
  hasPassword: boolean;
  oidc: boolean;
}

/**
 * Tokens: where the user is signed in and the access tokens their scripts
 * hold; a new token's secret is shown once, and any but this device's
 * session can be revoked. A new token asks for the current password (or,
 * for an account without one, a recent sign-in): it outlives the session
 * that makes it, so a session left open on a device must not be enough.
 */
function Tokens({ online, reload, hasPassword, oidc }: TokensProps) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'read' | 'write'>('read');
  const [days, setDays] = useState<string>('90');
  const [password, setPassword] = useState('');
  // The service wants a recent sign-in of an account without a password (its 403 says so).
  const [signInAgain, setSignInAgain] = useState(false);
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const list = useServerData(authApi.tokens, online, reload);
  const tokens = list.data;
  const { busy, error, status, setError, run: act } = useAction(list.reload);
  // The form's own errors show in it (its summary, beside the fields); a revocation's above the list.
  const [byForm, setByForm] = useState(false);
  const form = useFormErrors(byForm ? fromService(error, {
    name: { id: 'token-name', label: t('tokens.name') },
    current_password: { id: 'token-password', label: t('account.current') },
  }) : []);

  async function create(e: Event) {
    e.preventDefault();
    setSecret(null);
    setSignInAgain(false);
    setByForm(true);
    const made = () => authApi.createToken(name.trim(), scope, days === 'never' ? null : Number(days), hasPassword ? password : null).catch((err: unknown) => {
      if (!hasPassword && err instanceof ApiError && err.status === 403) setSignInAgain(true);
      throw err;
    });
    const ok = await act(made, (answer) => {
      setSecret({ name: answer.name, token: answer.token });
      return t('tokens.created', { name: answer.name });
    });
    if (ok) {
      setName('');
      setPassword('');
    } else {
      form.reveal();
    }
  }

  const label = (tk: TokenInfo) => (tk.kind === 'session' ? (tk.name === 'oidc' ? t('tokens.sessionSso') : t('tokens.session')) : tk.name);
  function revoke(tk: TokenInfo) {
    setSignInAgain(false);
    setByForm(false);
    void act(() => authApi.revokeToken(tk.id), () => t('tokens.revoked', { name: label(tk) }));
  }

  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">{t('tokens.heading')}</h2>
      <p class="hint">{t('tokens.hint')}</p>
      <ErrorText error={(byForm ? null : error) ?? list.error} />
      {status && <Status>{status}</Status>}
      {secret && (
        <div class="field">
          <label for="token-secret">{t('tokens.secret', { name: secret.name })}</label>
          <input id="token-secret" readOnly value={secret.token} spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
        </div>
      )}
      <ul class="records" aria-label={t('tokens.list')}>
        {tokens?.map((tk) => (
          <li key={tk.id} class="record" aria-labelledby={`token-${tk.id}`}>
            <h3 id={`token-${tk.id}`}>
              {label(tk)}
              {tk.current && <Badge>{t('tokens.thisDevice')}</Badge>}
            </h3>
            <dl>
              {tk.kind === 'token' && <div><dt>{t('tokens.scope')}</dt><dd>{tk.scope === 'read' ? t('tokens.read') : t('tokens.write')}</dd></div>}
              <div><dt>{t('tokens.createdAt')}</dt><dd>{fmtDateTime(tk.created_at)}</dd></div>
              <div><dt>{t('tokens.lastUsed')}</dt><dd>{fmtDateTime(tk.last_used_at)}</dd></div>
              <div><dt>{t('tokens.expires')}</dt><dd>{tk.expires_at ? fmtDateTime(tk.expires_at) : t('tokens.never')}</dd></div>
            </dl>
            {!tk.current && (
              <div class="buttons">
                <button type="button" class="danger" disabled={busy || !online}
                  aria-label={t('tokens.revokeLabel', { name: label(tk), when: fmtDateTime(tk.created_at) })}
                  onClick={() => revoke(tk)}>{t('tokens.revoke')}</button>
              </div>
            )}
          </li>
        ))}
      </ul>
      <form class="form" noValidate aria-labelledby="token-add-legend" onSubmit={(e) => void create(e)}>
        <ErrorSummary form={form} />
        <fieldset>
          <legend id="token-add-legend">{t('tokens.add')}</legend>
          <div class="field">
            <label for="token-name">{t('tokens.name')}</label>
            <input id="token-name" autocomplete="off" required maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)}
              {...form.control('token-name')} />
            <FieldMessage form={form} id="token-name" />
          </div>
          <div class="field">
            <label for="token-scope">{t('tokens.scope')}</label>
            <select id="token-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value as 'read' | 'write')}>
              <option value="read">{t('tokens.read')}</option>
              <option value="write">{t('tokens.write')}</option>
            </select>
          </div>
          <div class="field">
            <label for="token-days">{t('tokens.lifetime')}</label>
            <select id="token-days" value={days} onChange={(e) => setDays(e.currentTarget.value)}>
              {TOKEN_DAYS.map((d) => (
                <option key={String(d)} value={d === null ? 'never' : String(d)}>{d === null ? t('tokens.untilRevoked') : t('tokens.days', { n: d })}</option>
              ))}
            </select>
          </div>
          {hasPassword && (
            <div class="field">
              <label for="token-password">{t('account.current')}</label>
              <input id="token-password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)}
                {...form.control('token-password', 'token-password-hint')} />
              <p id="token-password-hint" class="hint">{t('tokens.passwordHint')}</p>
              <FieldMessage form={form} id="token-password" />
            </div>
          )}
        </fieldset>
        <div class="buttons">
          <button type="submit" disabled={busy || !online}>{t('tokens.create')}</button>
          {signInAgain && oidc && (
            <button type="button" class="secondary" onClick={() => {
              if (!signInWithSso()) setError(t('login.ssoNoStorage'));
            }}>{t('tokens.signInAgain')}</button>
          )}
        </div>
      </form>
    </section>
  );
}
