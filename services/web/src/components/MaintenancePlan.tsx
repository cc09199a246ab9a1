// The maintenance plan docqa proposes from a manual, shown with each item's
// page; the owner ticks items and they become the vehicle's reminders in one
// batch, through the outbox (sent now when online, queued when not). An item
// that cannot apply to the vehicle (spark plugs on a diesel) says so and
// starts unticked; the owner's own ticks are kept per vehicle and manual.
import { useEffect, useState } from 'preact/hooks';
import { docqa, type DocumentInfo, type MaintenanceSchedule } from '../api/docqa';
import { canWriteRefuels, type Vehicle } from '../api/fuel';
import { costPaths, costs, type Reminder } from '../api/costs';
import { Dec } from '../lib/decimal';
import { sessions } from '../api/session';
import { outbox, sync } from '../offline/sync';
import { useResource } from '../hooks';
import { applies, initialTicks, keepTicks, keptTicks, plannedAs, reminderOf, type MaintenanceItem } from '../lib/maintenance';
import { fmtDistance, fuelTypeName } from '../lib/labels';
import { units as activeUnits } from '../lib/preferences';
import { uuid } from '../lib/uuid';
import { tp, tpn } from '../i18n/plan';
import { ErrorText, Status } from './common';
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

export function MaintenancePlan({ doc, vehicles, withToken, onClose }: Props) {
  const name = doc.title.trim() || doc.fileName;
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
    setBusy(true);
    setResult([]);
    try {
      const owner = (await sessions.current())?.user?.id;
      const keys = new Map<string, string>();
      for (const { reminder } of proposed.filter((_, i) => chosen.has(i))) {
        const key = uuid();
        keys.set(key, reminder.title);
        await outbox.add({ key, kind: 'reminder', method: 'POST', path: '/api/reminders', body: JSON.stringify(reminder), owner });
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
      existing.reload();
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

  const hid = `plan-${doc.fileMd5}`;
  return (
    <section class="plan" aria-labelledby={hid}>
      <h3 id={hid}>{tp('plan.heading', { name })}</h3>
      <ErrorText error={error ?? existing.error} />
      {!plan && !error && <p role="status">{tp('plan.reading')}</p>}
      {plan && <p class="notice">{plan.mode === 'model' ? tp('plan.modeModel') : tp('plan.modeRules')}</p>}
      {plan && plan.items.length === 0 && <p>{tp('plan.none')}</p>}
      {plan && plan.items.length > 0 && writable.length > 1 && (
        <div class="field">
          <label for={`${hid}-vehicle`}>{tp('plan.vehicle')}</label>
          <select id={`${hid}-vehicle`} value={vid ?? ''} onChange={(e) => { setTicked(null); setVid(Number(e.currentTarget.value)); }}>
            {writable.map((v) => <option key={v.id} value={v.id}>{v.name}</option>)}
          </select>
        </div>
      )}
      {proposed.length > 0 && (
        <ul class="plan-items" aria-label={tp('plan.items')}>
          {proposed.map(({ item, reminder }, i) => {
            // One reminder per job: the owner's of this job, if any (lib/maintenance.ts plannedAs).
            const mine = plannedAs(reminder, known, item.conditions);
            const sameInterval = mine !== null && (mine.every_km ?? null) === reminder.every_km && (mine.every_months ?? null) === item.every_months;
            const fits = !vehicle || applies(reminder.title, vehicle.fuel_type);
            const label = item.pageLabel ?? String(item.page);
            return (
              <li key={i} class="plan-item">
                <div class="check">
                  <input id={`${hid}-${i}`} type="checkbox" checked={chosen.has(i)} disabled={ticked === null}
                    aria-describedby={`${hid}-${i}-what`}
                    onChange={(e) => tick(i, e.currentTarget.checked)} />
                  <label for={`${hid}-${i}`}>{reminder.title}</label>
                </div>
                <p id={`${hid}-${i}-what`} class="hint">
                  {intervalText(item, reminder.every_km)}
                  {mine && <> · <strong>{tp('plan.planned', { title: mine.title })}</strong></>}
                  {!fits && vehicle && <> · <strong>{tp('plan.notApplicable', { fuel: fuelTypeName(vehicle.fuel_type) })}</strong></>}
                </p>
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
      {taken && <Status>{taken}</Status>}
      {result.length > 0 && <Status>{result.join(' ')}</Status>}
      {result.length > 0 && <p><a href="/costs#reminders">{tp('plan.seeReminders')}</a></p>}
      <div class="buttons">
        {vehicle && proposed.length > 0 && (
          <button type="button" disabled={busy || chosen.size === 0} onClick={() => void add()}>
            {tpn('plan.add', chosen.size, { vehicle: vehicle.name })}
          </button>
        )}
        <button type="button" class="secondary" onClick={onClose}>{tp('plan.close')}</button>
      </div>
      {page && <PageView key={`${page.md5}/${page.page}`} view={page} withToken={withToken} onClose={() => setPage(null)} />}
    </section>
  );
}
