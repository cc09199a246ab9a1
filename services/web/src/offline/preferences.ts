// The owner's preferences, offline first: the last answer of
// GET /api/preferences (a snapshot when there is no connection) with the
// changes still queued in the outbox laid over it, so a change made offline
// is in force at once, also after a reload. A change is a PUT (a patch)
// queued like a refuel. The fields not chosen yet are filled from the
// browser (its locale, languages and zone) and are in force on this device
// only: they are never saved by themselves, so the first browser to open
// the app does not choose miles for every other one. They are saved with
// the owner's next save of Settings (guessedFields tells which they are).
import { load } from './snapshots';
import { outbox, sync } from './sync';
import type { OutboxItem } from './outbox';
import { sessions } from '../api/session';
import { uuid } from '../lib/uuid';
import {
  browserLanguages, browserLocale, browserTimeZone, complete, defaultsFor,
  type PreferenceField, type Preferences, type PreferencesPatch, type StoredPreferences,
} from '../lib/preferences';
import { browserLanguage, languageOf, type Language } from '../i18n';

export const PREFERENCES_PATH = '/api/preferences';

function mine(item: OutboxItem, user: number | undefined): boolean {
  return item.owner === undefined || user === undefined || item.owner === user;
}

/** queuedPreferences: this user's queued changes of preferences, oldest first. */
export async function queuedPreferences(): Promise<OutboxItem[]> {
  const user = (await sessions.current())?.user?.id;
  return (await outbox.items()).filter((i) => i.kind === 'preferences' && mine(i, user));
}

/** overlay lays the pending patches over stored, in order. */
export function overlay(stored: Partial<StoredPreferences>, items: OutboxItem[]): Partial<StoredPreferences> {
  let out = { ...stored };
  for (const i of items) {
    if (i.state !== 'pending') continue;
    try {
      out = { ...out, ...(JSON.parse(i.body) as PreferencesPatch) };
    } catch {
      // A body this client wrote is JSON; nothing to lay over otherwise.
    }
  }
  return out;
}

export type SaveOutcome = { kind: 'saved' } | { kind: 'queued' } | { kind: 'refused'; message: string };

/** savePreferences queues the patch and sends it at once if it can. */
export async function savePreferences(patch: PreferencesPatch): Promise<SaveOutcome> {
  const key = uuid();
  await outbox.add({
    key,
    kind: 'preferences',
    method: 'PUT',
    path: PREFERENCES_PATH,
    body: JSON.stringify(patch),
    owner: (await sessions.current())?.user?.id,
  });
  const r = await sync();
  if (r.rejected.includes(key)) {
    // Refused while the owner is on the page: said there, not kept.
    const item = (await outbox.items()).find((i) => i.key === key);
    await outbox.discard(key);
    return { kind: 'refused', message: item?.message ?? '' };
  }
  if (r.sent.includes(key)) {
    // Keep the snapshot current, for the next offline start.
    await load<StoredPreferences>(PREFERENCES_PATH).catch(() => undefined);
    return { kind: 'saved' };
  }
  return { kind: 'queued' };
}

export interface PreferencesDeps {
  /** GET /api/preferences (or its snapshot); throws when there is neither. */
  fetch: () => Promise<Partial<StoredPreferences>>;
  queued: () => Promise<OutboxItem[]>;
  locale: string;
  timeZone: string;
  language: Language;
}

const appDeps = (): PreferencesDeps => ({
  fetch: async () => (await load<StoredPreferences>(PREFERENCES_PATH)).data ?? {},
  queued: queuedPreferences,
  locale: browserLocale(),
  timeZone: browserTimeZone(),
  language: browserLanguage(browserLanguages()),
});

let guessed: PreferenceField[] = [];

/** guessedFields: the preferences in force that this device guessed (not chosen on the server, nor queued): Settings saves them with the owner's save. */
export function guessedFields(): PreferenceField[] {
  return guessed;
}

/**
 * loadPreferences: the preferences in force for the signed-in user (or the
 * only one): the stored ones with the queued changes laid over, and the
 * browser's guesses for the rest, which nothing here saves.
 */
export async function loadPreferences(deps: PreferencesDeps = appDeps()): Promise<Preferences> {
  let stored: Partial<StoredPreferences> = {};
  try {
    stored = await deps.fetch();
  } catch {
    // No answer and no snapshot (or no such route): the browser's defaults.
  }
  const chosen = overlay(stored, await deps.queued());
  // Before the language was a preference of its own, the locale chose it (zh-* Chinese): an owner who
  // chose a locale keeps its language until choosing one; the browser's counts only without either.
  const language = typeof chosen.locale === 'string' && chosen.locale !== '' ? languageOf(chosen.locale) : deps.language;
  const { prefs, missing } = complete(chosen, defaultsFor(deps.locale, deps.timeZone, language));
  guessed = Object.keys(missing) as PreferenceField[];
  return prefs;
}
