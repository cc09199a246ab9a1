// The maintenance plan docqa proposes from a manual, shown with each item's
// page; the owner ticks items and they become the vehicle's reminders in one
// batch, through the outbox (sent now when online, queued when not). An item
// that cannot apply to the vehicle (spark plugs on a diesel) says so and
// starts unticked; the owner's own ticks are kept per vehicle and manual.
// Each item says where it is first due, counted from what is known (the
// owner's "last done", a matching expense, else the car's start at 0 km:
// lib/maintenance.ts firstDue), never from today, and its reminder is
// created with that last done.
import { useEffect, useState } from 'preact/hooks';
import { docqa, type DocumentInfo, type MaintenanceSchedule } from '../api/docqa';
import { canWriteRefuels, paths, type Statistics, type Vehicle } from '../api/fuel';
import { costPaths, costs, type Expense, type Reminder } from '../api/costs';
import { Dec, jsonWithDecimals } from '../lib/decimal';
import { sessions } from '../api/session';
import { outbox, sync } from '../offline/sync';
import { useResource } from '../hooks';
import {
  applies, dayIn, distancePerDay, firstDue, initialTicks, keepTicks, keptTicks, plannedAs, reminderOf,
  type CarFacts, type Done, type FirstDue, type MaintenanceItem,
} from '../lib/maintenance';
import { distanceLabel, fmtDistance, fuelTypeName } from '../lib/labels';
import { browserTimeZone, prefs, units as activeUnits } from '../lib/preferences';
import { fmtDate, fmtMonth, fromLocalInput } from '../lib/format';
import { numberExample, readNumber } from '../lib/numbers';
import { distanceToKm } from '../lib/units';
import { writeLike } from '../lib/dates';
import { uuid } from '../lib/uuid';
import { tp, tpn } from '../i18n/plan';
import { ErrorText, Status } from './messages';
import { DateField, UNREAD } from './date-field';
import { lazyComponent } from './lazy';
import type { PageRef } from '../lib/pageview';

const PageView = lazyComponent(() => import('./PageView').then((m) => m.PageView));

interface Props {
  doc: DocumentInfo;
  /** The vehicles whose reminders the plan may become: those the user may write that list the manual. */
  vehicles: Vehicle[];
  /** With accounts a page is fetched with the token. */
  withToken: boolean;
  onClose: () => void;
}

/** intervalText: "every 15 000 km or 12 months" in the owner's units. */
function intervalText(item: MaintenanceItem, km: number | null): string {
  const parts = [
    ...(km !== null ? [tp('plan.everyKm', { distance: fmtDistance(km, activeUnits()) })] : []),
    ...(item.every_months !== null ? [tpn('plan.everyMonths', item.every_months)] : []),
  ];
  return parts.join(tp('plan.or'));
}

/** The owner's "last done" of an item as typed: the reading in the owner's unit and the day (DateField's value). */
interface LastTyped {
  open: boolean;
  km: string;
  date: string;
}

/** readLast: the typed last done as km and an instant, and which of its fields cannot be read. */
function readLast(typed: LastTyped | undefined): { done: Done | null; badKm: boolean; badDate: boolean } {
  if (!typed) return { done: null, badKm: false, badDate: false };
  // A reading: a group separator is never a decimal point ("15.000" in de-DE is fifteen thousand).
  const km = typed.km.trim() === '' ? null : readNumber(typed.km, 'reading');
  const time = typed.date === '' || typed.date === UNREAD ? null : fromLocalInput(`${typed.date}T12:00`);
  return {
    done: { time, odometer: km === null ? null : distanceToKm(km, activeUnits()) },
    badKm: typed.km.trim() !== '' && km === null,
    badDate: typed.date !== '' && time === null,
  };
}

/** dueText: where an item is first due, in sentences: "Due at 120 000 km (in 104 240 km, about 2031)." and/or "Due in March 2031." */
function dueText(d: FirstDue): string {
  const u = activeUnits();
  const out: string[] = [];
  if (d.km) {
    const at = fmtDistance(d.km.due, u);
    if (d.km.left <= 0) out.push(tp('plan.dueKmPassed', { at, over: fmtDistance(-d.km.left, u) }));
    else if (d.km.year !== null) out.push(tp('plan.dueKmYear', { at, left: fmtDistance(d.km.left, u), year: String(d.km.year) }));
    else out.push(tp('plan.dueKm', { at, left: fmtDistance(d.km.left, u) }));
  }
  if (d.date) out.push(tp(d.date.passed ? 'plan.dueMonthPassed' : 'plan.dueMonth', { month: fmtMonth(d.date.due.slice(0, 7), 'long') }));
  return out.join(' ');
}

/** baseText: what the due point counts from, honestly: the owner's last done, an expense, the car's start. */
function baseText(d: FirstDue, reminder: { every_km: number | null; every_months: number | null }, start: { time: string; firstRecord: boolean }): string {
  const u = activeUnits();
  const day = tp(start.firstRecord ? 'plan.firstRecord' : 'plan.added', { date: fmtDate(start.time) });
  const pair = (a: string, b: string) => tp('plan.pair', { a, b });
  switch (d.base.from) {
    case 'start':
      return tp('plan.fromStart', { start: pair(fmtDistance(0, u), day) });
    case 'expense': {
      const e = d.base.expense;
      const when = e.odometer === null ? fmtDate(e.time) : pair(fmtDate(e.time), fmtDistance(e.odometer, u));
      return tp('plan.fromExpense', { title: e.title, when });
    }
    case 'own': {
      const done = [
        ...(d.base.odometer ? [fmtDistance(d.lastDone.odometer, u)] : []),
        ...(d.base.time && d.lastDone.time !== null ? [fmtDate(d.lastDone.time)] : []),
      ].reduce((a, b) => pair(a, b));
      // The parts the owner left empty that the item counts by come from the car's start.
      const rest = [
        ...(!d.base.odometer && reminder.every_km !== null ? [fmtDistance(0, u)] : []),
        ...(!d.base.time && reminder.every_months !== null ? [day] : []),
      ];
      return rest.length === 0 ? tp('plan.fromOwn', { done }) : tp('plan.fromOwnAndStart', { done, start: rest.reduce((a, b) => pair(a, b)) });
    }
  }
}

export function MaintenancePlan({ doc, vehicles, withToken, onClose }: Props) {
  const name = doc.title.trim() || doc.fileName;
  const hid = `plan-${doc.fileMd5}`;
  const writable = vehicles.filter(canWriteRefuels);
  const [vid, setVid] = useState<number | null>(writable[0]?.id ?? null);
  const vehicle = writable.find((v) => v.id === vid);
  const [plan, setPlan] = useState<MaintenanceSchedule | null>(null);
  const [error, setError] = useState<string | null>(null);
  const existing = useResource<Reminder[]>(vid !== null ? costPaths.reminders(vid) : null);
  const [ticked, setTicked] = useState<Set<number> | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string[]>([]);
  const [page, setPage] = useState<PageRef | null>(null);
  const [taken, setTaken] = useState<string | null>(null);
  // What the due points count from: the vehicle's expenses (a matching one is the job done) and its first and last records.
  const expenses = useResource<Expense[]>(vid !== null ? costPaths.expenses(vid) : null);
  const stats = useResource<Statistics>(vid !== null ? paths.statistics(vid) : null);
  const [typed, setTyped] = useState<Record<number, LastTyped>>({});
  const [lastError, setLastError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    docqa.maintenanceSchedule(doc.fileMd5).then(
      (p) => live && setPlan(p),
      (e: Error) => live && setError(tp('plan.failed', { message: e.message })),
    );
    return () => {
      live = false;
    };
  }, [doc.fileMd5]);

  const proposed = plan && vehicle ? plan.items.map((item) => ({ item, reminder: reminderOf(item, vehicle.id, doc.fileName) })) : [];
  const known = existing.data ?? [];
  // Ticked when the plan opens (once the vehicle's reminders are known): lib/maintenance.ts initialTicks.
  useEffect(() => {
    if (plan && existing.data && vehicle) setTicked(initialTicks(proposed, existing.data, vehicle.fuel_type, keptTicks(vehicle.id, doc.fileMd5)));
  }, [plan, existing.data, vid]);
  const chosen = ticked ?? new Set<number>();

  // The car's start: its first record (a refuel or an expense), else the day it was added here; at 0 km.
  const firstTimes = [stats.data?.first_refuel_time, ...(expenses.data ?? []).map((e) => e.time)].filter((x): x is string => typeof x === 'string');
  const firstTime = firstTimes.reduce<string | null>((a, x) => (a === null || Date.parse(x) < Date.parse(a) ? x : a), null);
  const start = { time: firstTime ?? vehicle?.created_at ?? new Date().toISOString(), firstRecord: firstTime !== null };
  const zone = prefs().time_zone ?? browserTimeZone();
  const s = stats.data;
  const car: CarFacts = {
    start: start.time,
    odometer: vehicle?.current_odometer ?? 0,
    expenses: expenses.data ?? [],
    // The average over the refuels: their distance between the first and the last.
    perDay: s?.first_refuel_time && s.last_refuel_time
      ? distancePerDay([{ time: s.first_refuel_time, odometer: 0 }, { time: s.last_refuel_time, odometer: s.total_distance }])
      : null,
    today: dayIn(new Date(), zone),
    zone,
  };
  // Shown once what they count from is known (or could not be read: then without it).
  const factsKnown = !expenses.loading && !stats.loading;
  const setLast = (i: number, change: Partial<LastTyped>) => {
    setLastError(null);
    setTyped((all) => ({ ...all, [i]: { open: false, km: '', date: '', ...all[i], ...change } }));
  };

  /** tick records the owner's choice for item i, kept for the next time the plan opens. */
  function tick(i: number, on: boolean) {
    const next = new Set(chosen);
    if (on) next.add(i);
    else next.delete(i);
    setTicked(next);
    const title = proposed[i]?.reminder.title;
    if (vehicle && title !== undefined) keepTicks(vehicle.id, doc.fileMd5, { ...keptTicks(vehicle.id, doc.fileMd5), [title]: on });
  }

  async function add() {
    if (!vehicle) return;
    setLastError(null);
    // A last done that cannot be read is said, not left out.
    const bad = [...chosen].find((i) => { const r = readLast(typed[i]); return r.badKm || r.badDate; });
    if (bad !== undefined) {
      setLastError(tp('plan.errLastFix', { title: proposed[bad]?.reminder.title ?? '' }));
      const r = readLast(typed[bad]);
      document.getElementById(`${hid}-${bad}-${r.badKm ? 'last-km' : 'last-date'}`)?.focus();
      return;
    }
    setBusy(true);
    setResult([]);
    try {
      const owner = (await sessions.current())?.user?.id;
      const keys = new Map<string, string>();
      for (const [i, { reminder }] of proposed.entries()) {
        if (!chosen.has(i)) continue;
        const key = uuid();
        keys.set(key, reminder.title);
        // Counted from what is known, never from today (fuel counts a reminder without last_done from its creation).
        const { lastDone } = firstDue(reminder, readLast(typed[i]).done, car);
        const body = jsonWithDecimals({ ...reminder, last_done: { time: lastDone.time, odometer: new Dec(lastDone.odometer) } });
        await outbox.add({ key, kind: 'reminder', method: 'POST', path: '/api/reminders', body, owner });
      }
      const r = await sync();
      const items = await outbox.items();
      const lines: string[] = [];
      const sent = [...keys.keys()].filter((k) => r.sent.includes(k)).length;
      if (sent > 0) lines.push(tpn('plan.added', sent, { vehicle: vehicle.name }));
      for (const k of keys.keys()) {
        if (!r.rejected.includes(k)) continue;
        // Refused now: said here, where the owner can see why, and not left to wait.
        lines.push(tp('plan.refused', { title: keys.get(k) ?? '', message: items.find((i) => i.key === k)?.message ?? '' }));
        await outbox.discard(k);
      }
      const waiting = [...keys.keys()].filter((k) => !r.sent.includes(k) && !r.rejected.includes(k)).length;
      if (waiting > 0) lines.push(tpn('plan.queued', waiting));
      setResult(lines);
      setTicked(new Set());
      setTyped({});
      existing.reload();
      expenses.reload();
    } finally {
      setBusy(false);
    }
  }

  /** take puts the manual's interval for item into the owner's reminder of its job. */
  async function take(mine: Reminder, item: MaintenanceItem, km: number | null) {
    setTaken(null);
    try {
      await costs.updateReminder(mine.id, { every_km: km === null ? null : new Dec(String(km)), every_months: item.every_months });
      setTaken(tp('plan.intervalTaken', { title: mine.title, interval: intervalText(item, km) }));
      existing.reload();
    } catch (e) {
      setTaken(tp('plan.intervalNotTaken', { message: (e as Error).message }));
    }
  }

  return (
    <section class="plan" aria-labelledby={hid}>
      <h3 id={hid}>{tp('plan.heading', { name })}</h3>
      <ErrorText error={error ?? existing.error} />
      {/* Shown once its ticks are known (they depend on the vehicle's reminders): never unticked first, then ticked. */}
      {(!plan || (proposed.length > 0 && ticked === null && !existing.error)) && !error && <p role="status">{tp('plan.reading')}</p>}
      {plan && <p class="notice">{plan.mode === 'model' ? tp('plan.modeModel') : tp('plan.modeRules')}</p>}
      {plan && plan.items.length === 0 && <p>{tp('plan.none')}</p>}
      {plan && plan.items.length > 0 && writable.length > 1 && (
        <div class="field">
          <label for={`${hid}-vehicle`}>{tp('plan.vehicle')}</label>
          <select id={`${hid}-vehicle`} value={vid ?? ''} onChange={(e) => { setTicked(null); setTyped({}); setVid(Number(e.currentTarget.value)); }}>
            {writable.map((v) => <option key={v.id} value={v.id}>{v.name}</option>)}
          </select>
        </div>
      )}
      {proposed.length > 0 && (ticked !== null || existing.error) && (
        <ul class="plan-items" aria-label={tp('plan.items')}>
          {proposed.map(({ item, reminder }, i) => {
            // One reminder per job: the owner's of this job, if any (lib/maintenance.ts plannedAs).
            const mine = plannedAs(reminder, known, item.conditions);
            const sameInterval = mine !== null && (mine.every_km ?? null) === reminder.every_km && (mine.every_months ?? null) === item.every_months;
            const fits = !vehicle || applies(reminder.title, vehicle.fuel_type);
            const label = item.pageLabel ?? String(item.page);
            const id = `${hid}-${i}`;
            const last = typed[i];
            const read = readLast(last);
            // Due points of the items to add; a planned one is the owner's reminder's, an inapplicable one has none.
            const due = !mine && fits && vehicle && factsKnown ? firstDue(reminder, read.done, car) : null;
            return (
              <li key={i} class="plan-item">
                <div class="check">
                  <input id={`${hid}-${i}`} type="checkbox" checked={chosen.has(i)} disabled={ticked === null}
                    aria-describedby={due ? `${id}-what ${id}-due` : `${id}-what`}
                    onChange={(e) => tick(i, e.currentTarget.checked)} />
                  <label for={`${hid}-${i}`}>{reminder.title}</label>
                </div>
                <p id={`${hid}-${i}-what`} class="hint">
                  {intervalText(item, reminder.every_km)}
                  {mine && <> · <strong>{tp('plan.planned', { title: mine.title })}</strong></>}
                  {!fits && vehicle && <> · <strong>{tp('plan.notApplicable', { fuel: fuelTypeName(vehicle.fuel_type) })}</strong></>}
                </p>
                {due && (
                  <>
                    <p id={`${id}-due`} class="hint">
                      <strong>{dueText(due)}</strong> {baseText(due, reminder, start)}
                    </p>
                    <p>
                      <button type="button" class="link" aria-expanded={last?.open ?? false} aria-controls={`${id}-last`}
                        onClick={() => setLast(i, { open: !(last?.open ?? false) })}>
                        {tp('plan.lastDone')}
                      </button>
                    </p>
                    {last?.open && (
                      <div class="form" id={`${id}-last`}>
                        <fieldset>
                          <legend>{tp('plan.lastDoneOf', { title: reminder.title })}</legend>
                          <div class="hint" id={`${id}-last-hint`}>{tp('plan.lastHint')}</div>
                          <div class="pair">
                            <div class="field">
                              <label for={`${id}-last-km`}>{tp('plan.lastKm')}</label>
                              <div class="with-unit">
                                <input id={`${id}-last-km`} inputMode="decimal" autoComplete="off" value={last.km}
                                  aria-invalid={read.badKm || undefined}
                                  aria-describedby={`${id}-last-km-unit ${read.badKm ? `${id}-last-km-error ` : ''}${id}-last-hint`}
                                  onInput={(e) => setLast(i, { km: e.currentTarget.value })} />
                                <span id={`${id}-last-km-unit`} class="unit">{distanceLabel(activeUnits())}</span>
                              </div>
                              {read.badKm && (
                                <p id={`${id}-last-km-error`} class="error">
                                  {tp('plan.errLastKm', { unit: distanceLabel(activeUnits()), example: numberExample('reading', undefined, last.km) })}
                                </p>
                              )}
                            </div>
                            <div class="field">
                              <label for={`${id}-last-date`}>{tp('plan.lastDate')}</label>
                              <DateField id={`${id}-last-date`} value={last.date} onChange={(v) => setLast(i, { date: v })}
                                control={{
                                  'aria-invalid': read.badDate || undefined,
                                  'aria-describedby': `${read.badDate ? `${id}-last-date-error ` : ''}${id}-last-hint`,
                                }} />
                              {read.badDate && <p id={`${id}-last-date-error`} class="error">{tp('plan.errLastDate', writeLike())}</p>}
                            </div>
                          </div>
                        </fieldset>
                      </div>
                    )}
                  </>
                )}
                {mine && !sameInterval && (
                  <button type="button" class="secondary"
                    onClick={() => void take(mine, item, reminder.every_km)}>
                    {tp('plan.takeInterval', { interval: intervalText(item, reminder.every_km) })}
                  </button>
                )}
                <p class="plan-quote">
                  <button type="button" class="link"
                    onClick={() => setPage({ md5: doc.fileMd5, page: item.page, ...(item.pageLabel ? { label: item.pageLabel } : {}), name: doc.fileName, highlights: [] })}>
                    {tp('plan.pageLabel', { page: label })}
                  </button>
                  {' '}<q>{item.quote}</q>
                </p>
              </li>
            );
          })}
        </ul>
      )}
      <ErrorText error={lastError} />
      {taken && <Status>{taken}</Status>}
      {result.length > 0 && <Status>{result.join(' ')}</Status>}
      {result.length > 0 && <p><a href="/costs#reminders">{tp('plan.seeReminders')}</a></p>}
      <div class="buttons">
        {vehicle && proposed.length > 0 && (
          <button type="button" disabled={busy || chosen.size === 0 || !factsKnown} onClick={() => void add()}>
            {tpn('plan.add', chosen.size, { vehicle: vehicle.name })}
          </button>
        )}
        <button type="button" class="secondary" onClick={onClose}>{tp('plan.close')}</button>
      </div>
      {page && <PageView key={`${page.md5}/${page.page}`} view={page} withToken={withToken} onClose={() => setPage(null)} />}
    </section>
  );
}
