// The start page's reminders: those due soon or overdue (overdue first and
// marked), each as a phrase ("Oil change due in 800 km, about 3 weeks"),
// and the way to all reminders and costs. A chunk of its own with the
// strings of costs, loaded by Home (the first screen's budget).
import { costPaths, type Reminder } from '../api/costs';
import { useResource } from '../hooks';
import { byUrgency } from '../lib/costs';
import { tk } from '../i18n/costs';
import { DueState } from '../components/reminder-status';

export function DueReminders({ vehicleId }: { vehicleId: number }) {
  const list = useResource<Reminder[]>(costPaths.reminders(vehicleId));
  const all = list.data ?? [];
  const due = byUrgency(all.filter((r) => r.status !== 'ok'), Date.now());
  return (
    <section class="dash dash-reminders" aria-labelledby="dash-rem">
      <h2 id="dash-rem">{tk('rem.homeHeading')}</h2>
      {due.length > 0 ? (
        <ul class="due-list">
          {due.map((r) => <li key={r.id} class={`due ${r.status}`}><DueState r={r} titled /></li>)}
        </ul>
      ) : list.data ? <p class="hint">{all.length > 0 ? tk('rem.nothingDue') : tk('rem.noneYet')}</p> : null}
      <a href="/costs#reminders">{tk('rem.all')}</a>
    </section>
  );
}
