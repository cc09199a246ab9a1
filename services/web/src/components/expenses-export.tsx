// The vehicle's expenses as a CSV file, from the Costs page: the links the
// refuels' export has on Statistics, for GET /api/vehicles/{id}/expenses.csv.
import { useState } from 'preact/hooks';
import { costPaths } from '../api/costs';
import { download } from '../api/http';
import { prefs as activePrefs } from '../lib/preferences';
import { tk } from '../i18n/costs';
import { ErrorText } from './messages';

/** withToken: accounts are on, so the file is fetched with the bearer token a plain link cannot send. */
export function ExpensesExport({ vehicleId, withToken }: { vehicleId: number; withToken: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const links = [
    // Times in the owner's zone, guessed or saved (the service knows only a saved one).
    { path: costPaths.expensesCsv(vehicleId, activePrefs().time_zone), label: tk('costs.export') },
    { path: costPaths.expensesCsv(vehicleId, activePrefs().time_zone, true), label: tk('costs.exportSpreadsheet') },
  ];
  return (
    <div class="expenses-export">
      <ul class="links">
        {links.map(({ path, label }) => (
          <li key={path}>
            <a href={path} download onClick={(e) => {
              if (!withToken) return;
              e.preventDefault();
              setError(null);
              download(path, `expenses-${vehicleId}.csv`).catch((err: Error) => setError(tk('costs.exportError', { message: err.message })));
            }}>{label}</a>
          </li>
        ))}
      </ul>
      <ErrorText error={error} />
    </div>
  );
}
