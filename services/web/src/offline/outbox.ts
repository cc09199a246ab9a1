// The outbox: writes made while the connection is bad wait here, each with
// the Idempotency-Key it was created with and its body serialized once, so a
// resend is byte for byte the first request and the service stores it once,
// even when the first attempt reached it and only the answer was lost.
//
// States of an item:
//   pending   --send: 2xx-->                       (removed)
//   pending   --send: no answer, 5xx, 408, 429-->  pending (the pass stops; sent on the next trigger)
//   pending   --send: 401 (no valid session)-->    pending (the pass stops; sent after the next sign-in)
//   pending   --another user is signed in-->        pending (skipped: sent only with its owner's token)
//   pending   --send: other 4xx-->                 attention (with the server's message; never resent by itself)
//   attention --retry (the owner asks)-->          pending
//   any       --discard (the owner asks)-->        (removed, with the items waiting for it)
//
// An item may wait for another (parent): a receipt for an expense made
// offline goes to /api/expenses/{parent}/attachments, and {parent} is the id
// the service gave the parent when it was sent. Until then the child is
// skipped (it never blocks the items behind it); discarding the parent
// discards it too.

export type OutboxState = 'pending' | 'attention';

export interface RefuelSummary {
  vehicle_id: number;
  refuel_time: string;
  odometer: string;
  liters: string;
  total_amount: string;
  energy: string;
  unit: string;
  is_full: boolean;
  station_name: string;
  /** The currency paid in, for a refuel paid in another currency than the home one. */
  currency?: string;
}

/** What the Costs page shows of a queued expense. */
export interface ExpenseSummary {
  vehicle_id: number;
  time: string;
  category: string;
  title: string;
  amount: string;
}

/** A file queued for upload (a receipt, a photo): its bytes, kept as an ArrayBuffer (Blobs in IndexedDB fail on some Safaris). */
export interface QueuedFile {
  name: string;
  type: string;
  bytes: ArrayBuffer;
}

/**
 * What an item writes: a new refuel (the default, also of items stored before kinds existed), a
 * change of preferences, a new expense, an attachment of a refuel or an expense, or a new reminder
 * (a maintenance plan's items, queued when offline).
 */
export type OutboxKind = 'refuel' | 'preferences' | 'expense' | 'attachment' | 'reminder';

/** The place in a child's path where its parent's id goes once the parent is stored. */
export const PARENT_ID = '{parent}';

export interface OutboxItem {
  /** The Idempotency-Key, also the item's id. */
  key: string;
  /** undefined: a refuel. */
  kind?: OutboxKind;
  method: 'POST' | 'PUT';
  path: string;
  /** The JSON body, serialized once at creation ('' for an attachment, whose body is file). */
  body: string;
  /** An attachment's file, sent as multipart/form-data. */
  file?: QueuedFile;
  /** The key of the item whose stored record this one belongs to; its path holds PARENT_ID until that one is sent. */
  parent?: string;
  createdAt: string;
  state: OutboxState;
  /** The server's message, for items that need attention. */
  message?: string;
  attempts: number;
  /** What History shows of a queued refuel (refuels only). */
  summary?: RefuelSummary;
  /** What the Costs page shows of a queued expense (expenses only). */
  expense?: ExpenseSummary;
  /** The user who made it (AUTH_MODE=local); undefined with accounts off. */
  owner?: number;
}

/** isRefuel: whether an item is a queued refuel (History lists those, sign-out counts them). */
export function isRefuel(item: OutboxItem): item is OutboxItem & { summary: RefuelSummary } {
  return (item.kind ?? 'refuel') === 'refuel' && item.summary !== undefined;
}

/** isExpense: whether an item is a queued expense. */
export function isExpense(item: OutboxItem): item is OutboxItem & { expense: ExpenseSummary } {
  return item.kind === 'expense' && item.expense !== undefined;
}

/**
 * recordsWaiting: how many records (refuels, expenses, reminders) of the
 * user wait in items to be stored, refused ones included: what the figures
 * read from the service do not count yet. A photo waits with its record;
 * a change of preferences is not a record. user: the signed-in user's id.
 */
export function recordsWaiting(items: OutboxItem[], user: number | undefined): number {
  return items.filter((i) => ['refuel', 'expense', 'reminder'].includes(i.kind ?? 'refuel') && (i.owner === undefined || user === undefined || i.owner === user)).length;
}

/** queuedBytes: the bytes of the files waiting in items (what the bound on queued attachments counts). */
export function queuedBytes(items: OutboxItem[]): number {
  return items.reduce((n, i) => n + (i.file?.bytes.byteLength ?? 0), 0);
}

/** Where the items live (IndexedDB in the app, a Map in tests). */
export interface OutboxStore {
  all(): Promise<OutboxItem[]>;
  put(item: OutboxItem): Promise<void>;
  delete(key: string): Promise<void>;
}

/** The outcome of one attempt to send an item. */
export type SendOutcome =
  | { kind: 'sent'; body: unknown }
  | { kind: 'rejected'; message: string }
  | { kind: 'retry'; message: string }
  /** No valid session (401): nothing can be sent until the owner signs in again. */
  | { kind: 'unauthorized' }
  /** Not sent: it belongs to a user other than the one signed in. */
  | { kind: 'held' };

export type Sender = (item: OutboxItem) => Promise<SendOutcome>;

export interface FlushResult {
  sent: string[];
  rejected: string[];
  /** true when a pass stopped at an item that could not be sent now. */
  blocked: boolean;
  /** true when the pass stopped because the session was refused (401): wait for a sign-in, not a timer. */
  unauthorized: boolean;
}

/** classify maps an HTTP status (0: no answer) to what the outbox does next. */
export function classify(status: number): 'sent' | 'rejected' | 'retry' | 'unauthorized' {
  if (status >= 200 && status < 300) return 'sent';
  if (status === 401) return 'unauthorized';
  if (status === 0 || status === 408 || status === 429 || status >= 500) return 'retry';
  return 'rejected';
}

type Locker = <T>(fn: () => Promise<T>) => Promise<T>;

/** tabLock runs fn under a Web Lock so two open tabs never send the same item at once. */
export const tabLock: Locker = <T,>(fn: () => Promise<T>): Promise<T> => {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  return locks ? (locks.request('carhub-outbox', fn) as Promise<T>) : fn();
};

export class Outbox {
  private running: Promise<FlushResult> | null = null;
  private again = false;
  private readonly listeners = new Set<() => void>();
  /** Keys being sent right now (for display only; not persisted). */
  readonly sending = new Set<string>();
  /** The ids the service gave items sent by this tab (key -> id), so a child added after its parent went is addressed at once. */
  private readonly stored = new Map<string, string>();

  constructor(
    private readonly store: OutboxStore,
    private readonly sender: Sender,
    private readonly lock: Locker = tabLock,
  ) {}

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  async items(): Promise<OutboxItem[]> {
    const all = await this.store.all();
    return all.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.key < b.key ? -1 : 1));
  }

  async add(item: Omit<OutboxItem, 'state' | 'attempts' | 'createdAt'> & { createdAt?: string }): Promise<OutboxItem> {
    const full: OutboxItem = { ...item, createdAt: item.createdAt ?? new Date().toISOString(), state: 'pending', attempts: 0 };
    const id = full.parent !== undefined ? this.stored.get(full.parent) : undefined;
    if (id !== undefined) {
      full.path = full.path.replace(PARENT_ID, id);
      delete full.parent;
    }
    await this.store.put(full);
    this.changed();
    return full;
  }

  /** storedId: the id the service gave the item with key when this tab sent it (undefined: not sent by this tab, or no id answered). */
  storedId(key: string): string | undefined {
    return this.stored.get(key);
  }

  /** discard removes the item and every item waiting for it (a receipt of an expense never stored has nowhere to go). */
  async discard(key: string): Promise<void> {
    const all = await this.store.all();
    const gone = new Set([key]);
    // Children of children, whatever the order they are stored in.
    for (let grew = true; grew;) {
      grew = false;
      for (const i of all) {
        if (i.parent !== undefined && gone.has(i.parent) && !gone.has(i.key)) {
          gone.add(i.key);
          grew = true;
        }
      }
    }
    for (const k of gone) await this.store.delete(k);
    this.changed();
  }

  /** retry puts an item that needs attention back in line (the owner asked). */
  async retry(key: string): Promise<void> {
    const item = (await this.store.all()).find((i) => i.key === key);
    if (!item) return;
    await this.store.put({ ...item, state: 'pending', message: undefined });
    this.changed();
  }

  /**
   * flush sends the pending items, oldest first, one at a time. A call while
   * a pass runs makes that pass look again when it ends, so an item added
   * meanwhile is not left behind. Items needing attention are skipped.
   */
  flush(): Promise<FlushResult> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      const total: FlushResult = { sent: [], rejected: [], blocked: false, unauthorized: false };
      try {
        do {
          this.again = false;
          const r = await this.lock(() => this.pass());
          total.sent.push(...r.sent);
          total.rejected.push(...r.rejected);
          total.blocked = r.blocked;
          total.unauthorized = r.unauthorized;
        } while (this.again && !total.blocked);
      } finally {
        this.running = null;
      }
      return total;
    })();
    return this.running;
  }

  private async pass(): Promise<FlushResult> {
    const result: FlushResult = { sent: [], rejected: [], blocked: false, unauthorized: false };
    const list = await this.items();
    for (let n = 0; n < list.length; n++) {
      const item = list[n]!;
      // A child whose parent is not stored yet waits; it does not hold up the items behind it.
      if (item.state !== 'pending' || item.parent !== undefined) continue;
      this.sending.add(item.key);
      this.changed();
      let outcome: SendOutcome;
      try {
        outcome = await this.sender(item);
      } catch (err) {
        outcome = { kind: 'retry', message: err instanceof Error ? err.message : String(err) };
      } finally {
        this.sending.delete(item.key);
      }
      if (outcome.kind === 'sent') {
        await this.store.delete(item.key);
        result.sent.push(item.key);
        await this.adopt(list, item.key, outcome.body);
      } else if (outcome.kind === 'held') {
        // Left as it is, for its owner's next session.
      } else if (outcome.kind === 'unauthorized') {
        // Kept as it is; the session is gone, so every later item would be refused too.
        result.blocked = true;
        result.unauthorized = true;
        this.changed();
        break;
      } else if (outcome.kind === 'rejected') {
        await this.store.put({ ...item, state: 'attention', message: outcome.message, attempts: item.attempts + 1 });
        result.rejected.push(item.key);
      } else {
        await this.store.put({ ...item, attempts: item.attempts + 1 });
        result.blocked = true;
        this.changed();
        break;
      }
      this.changed();
    }
    return result;
  }

  /**
   * adopt gives the children of the item just sent its stored id (the
   * service's answer), in the store and in the pass's list, so they go in
   * the same pass. An answer without an id (a cut-off body) leaves them
   * waiting, to be discarded by the owner: guessing would attach a receipt
   * to the wrong record.
   */
  private async adopt(list: OutboxItem[], key: string, body: unknown): Promise<void> {
    const given = (body as { id?: unknown } | null)?.id;
    if (typeof given !== 'number' && typeof given !== 'string') return;
    const id = encodeURIComponent(String(given));
    this.stored.set(key, id);
    for (let n = 0; n < list.length; n++) {
      const child = list[n]!;
      if (child.parent !== key) continue;
      const adopted: OutboxItem = { ...child, path: child.path.replace(PARENT_ID, id) };
      delete adopted.parent;
      await this.store.put(adopted);
      list[n] = adopted;
      // One stored before its parent in the list's order is behind this pass: look again.
      this.again = true;
    }
  }
}

/** MemoryStore keeps items in a Map (tests, and browsers without IndexedDB). */
export class MemoryStore implements OutboxStore {
  readonly map = new Map<string, OutboxItem>();
  all() {
    return Promise.resolve([...this.map.values()].map((i) => ({ ...i })));
  }
  put(item: OutboxItem) {
    this.map.set(item.key, { ...item });
    return Promise.resolve();
  }
  delete(key: string) {
    this.map.delete(key);
    return Promise.resolve();
  }
}
