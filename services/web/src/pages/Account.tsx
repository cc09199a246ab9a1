// The signed-in user's account on Settings (accounts on only): a change of
// password for everyone, and the household's accounts for administrators.
// These need the server: nothing here is queued offline.
import { useEffect, useState } from 'preact/hooks';
import { authApi } from '../api/auth';
import type { User } from '../api/session';
import { ErrorText, Status } from '../components/common';
import { useAction, useOnline } from '../hooks';
import { t } from '../i18n';

export function Account({ user }: { user: User }) {
  const online = useOnline();
  return (
    <>
      <h2>{t('account.heading')}</h2>
      {!online && <p class="hint">{t('account.needsConnection')}</p>}
      <PasswordForm online={online} />
      {user.is_admin && <Users self={user} online={online} />}
    </>
  );
}

function PasswordForm({ online }: { online: boolean }) {
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
  const [users, setUsers] = useState<User[] | null>(null);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const { busy, error, status, setError, run } = useAction();
  const [tick, setTick] = useState(0);

  useEffect(() => {
    if (!online) return;
    let live = true;
    authApi.users().then(
      (us) => live && setUsers(us),
      (err: Error) => live && setError(err.message),
    );
    return () => {
      live = false;
    };
  }, [tick, online]);

  // Each change is followed by the list as the service has it.
  async function act(f: () => Promise<unknown>, done: () => string): Promise<boolean> {
    const ok = await run(f, done);
    setTick((n) => n + 1);
    return ok;
  }

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
      <ErrorText error={error} />
      {status && <Status>{status}</Status>}
      <ul class="records" aria-label={t('users.list')}>
        {users?.map((u) => (
          <li key={u.id} class="record" aria-labelledby={`user-${u.id}`}>
            <h3 id={`user-${u.id}`}>
              {u.username}
              {u.is_admin && <>{' '}<span class="badge">{t('users.admin')}</span></>}
              {u.id === self.id && <>{' '}<span class="badge">{t('users.you')}</span></>}
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
