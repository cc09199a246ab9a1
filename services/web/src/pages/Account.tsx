// The signed-in user's account on Settings (accounts on only): a change of
// password, the sign-ins and access tokens for everyone, and the household's
// accounts for administrators.
// These need the server: nothing here is queued offline.
import { useState } from 'preact/hooks';
import { authApi, type TokenInfo } from '../api/auth';
import type { User } from '../api/session';
import { Badge, ErrorText, Status } from '../components/common';
import { useAction, useOnline, useServerData } from '../hooks';
import { t } from '../i18n';
import { fmtDateTime } from '../lib/format';

export function Account({ user }: { user: User }) {
  const online = useOnline();
  // A new password ends the other sign-ins: the list is read again.
  const [passwordChanges, setPasswordChanges] = useState(0);
  return (
    <>
      <h2>{t('account.heading')}</h2>
      {!online && <p class="hint">{t('account.needsConnection')}</p>}
      {user.has_password === false
        ? <p class="hint">{t('account.noPassword')}</p>
        : <PasswordForm online={online} onChanged={() => setPasswordChanges((n) => n + 1)} />}
      <Tokens online={online} reload={passwordChanges} />
      {user.is_admin && <Users self={user} online={online} />}
    </>
  );
}

function PasswordForm({ online, onChanged }: { online: boolean; onChanged: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, status, setError, run } = useAction();

  async function submit(e: Event) {
    e.preventDefault();
    if (next !== repeat) return setError(t('account.differ'));
    if (await run(() => authApi.changePassword(current, next), () => t('account.changed'))) {
      setCurrent('');
      setNext('');
      setRepeat('');
      onChanged();
    }
  }

  return (
    <form class="form" aria-labelledby="password-legend" onSubmit={(e) => void submit(e)}>
      <fieldset>
        <legend id="password-legend">{t('account.password')}</legend>
        <div class="field">
          <label for="password-current">{t('account.current')}</label>
          <input id="password-current" type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="password-new">{t('account.new')}</label>
          <input id="password-new" type="password" autocomplete="new-password" required value={next} onInput={(e) => setNext(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="password-repeat">{t('account.repeat')}</label>
          <input id="password-repeat" type="password" autocomplete="new-password" required value={repeat} onInput={(e) => setRepeat(e.currentTarget.value)} />
        </div>
      </fieldset>
      <ErrorText error={error} />
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

  async function add(e: Event) {
    e.preventDefault();
    const name = username.trim();
    if (await act(() => authApi.createUser(name, password, admin), () => t('users.added', { name }))) {
      setUsername('');
      setPassword('');
      setAdmin(false);
    }
  }

  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">{t('users.heading')}</h2>
      <p class="hint">{t('users.hint')}</p>
      <ErrorText error={error ?? list.error} />
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
                    if (window.confirm(t('users.deleteConfirm', { name: u.username }))) void act(() => authApi.deleteUser(u.id), () => t('users.deleted', { name: u.username }));
                  }}>{t('common.delete')}</button>
              </div>
            )}
          </li>
        ))}
      </ul>
      <form class="form" aria-labelledby="user-add-legend" onSubmit={(e) => void add(e)}>
        <fieldset>
          <legend id="user-add-legend">{t('users.add')}</legend>
          <div class="field">
            <label for="user-name">{t('login.username')}</label>
            <input id="user-name" autocomplete="off" autocapitalize="none" spellcheck={false} required maxLength={64}
              value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="user-password">{t('login.password')}</label>
            <input id="user-password" type="password" autocomplete="new-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
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

/**
 * Tokens: where the user is signed in and the access tokens their scripts
 * hold; a new token's secret is shown once, and any but this device's
 * session can be revoked.
 */
function Tokens({ online, reload }: { online: boolean; reload: number }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'read' | 'write'>('read');
  const [days, setDays] = useState<string>('90');
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const list = useServerData(authApi.tokens, online, reload);
  const tokens = list.data;
  const { busy, error, status, run: act } = useAction(list.reload);

  async function create(e: Event) {
    e.preventDefault();
    setSecret(null);
    const ok = await act(() => authApi.createToken(name.trim(), scope, days === 'never' ? null : Number(days)), (made) => {
      setSecret({ name: made.name, token: made.token });
      return t('tokens.created', { name: made.name });
    });
    if (ok) setName('');
  }

  const label = (tk: TokenInfo) => (tk.kind === 'session' ? (tk.name === 'oidc' ? t('tokens.sessionSso') : t('tokens.session')) : tk.name);
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">{t('tokens.heading')}</h2>
      <p class="hint">{t('tokens.hint')}</p>
      <ErrorText error={error ?? list.error} />
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
                  onClick={() => void act(() => authApi.revokeToken(tk.id), () => t('tokens.revoked', { name: label(tk) }))}>{t('tokens.revoke')}</button>
              </div>
            )}
          </li>
        ))}
      </ul>
      <form class="form" aria-labelledby="token-add-legend" onSubmit={(e) => void create(e)}>
        <fieldset>
          <legend id="token-add-legend">{t('tokens.add')}</legend>
          <div class="field">
            <label for="token-name">{t('tokens.name')}</label>
            <input id="token-name" autocomplete="off" required maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} />
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
        </fieldset>
        <div class="buttons">
          <button type="submit" disabled={busy || !online}>{t('tokens.create')}</button>
        </div>
      </form>
    </section>
  );
}
