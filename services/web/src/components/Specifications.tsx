// The specifications card of a vehicle with manuals: what docqa reads from
// each of its manuals (oil, tyre pressures, fuel, coolant, AdBlue, wheel
// bolts, battery), each value with the page it came from, which opens in the
// page view. Asked on request, one POST per manual, kept for the session and
// offline (offline/specifications.ts). Tyre pressures show in the owner's
// unit with what the manual printed beside them (lib/specs.ts); everything
// else as printed.
import { useEffect, useState } from 'preact/hooks';
import type { DocumentInfo, Specifications as Answer } from '../api/docqa';
import type { Loaded } from '../offline/snapshots';
import { known, specifications } from '../offline/specifications';
import { pageViewSearch, parsePageView, type PageRef } from '../lib/pageview';
import { pressureUnitOf } from '../lib/specs';
import { units as activeUnits } from '../lib/preferences';
import { specLabel, specValue, ts } from '../i18n/specs';
import { AsOf, ErrorText } from './messages';
import { lazyComponent } from './lazy';

const PageView = lazyComponent(() => import('./PageView').then((m) => m.PageView));

interface Props {
  vehicleId: number;
  /** The vehicle's manuals the user's docqa holds (lib/manuals.ts linkedManuals), in its order. */
  manuals: DocumentInfo[];
  /** With accounts the page view's "Open PDF" fetches with the token. */
  withToken: boolean;
}

type Read = { loaded: Loaded<Answer> } | { error: string };

const nameOf = (d: DocumentInfo) => d.title.trim() || d.fileName;

export function Specifications({ vehicleId, manuals, withToken }: Props) {
  const hid = `specs-${vehicleId}`;
  const [open, setOpen] = useState(false);
  const [read, setRead] = useState<Record<string, Read>>({});
  const [page, setPage] = useState<PageRef | null>(null);
  const md5s = manuals.map((d) => d.fileMd5).join(' ');

  // Asked this session already: shown at once, as the owner left it.
  useEffect(() => {
    let live = true;
    void Promise.all(manuals.map((d) => known(d.fileMd5))).then((all) => {
      if (live && manuals.length > 0 && all.every((a) => a !== undefined)) setOpen(true);
    });
    return () => {
      live = false;
    };
  }, [md5s]);

  useEffect(() => {
    if (!open) return;
    let live = true;
    for (const d of manuals) {
      if (read[d.fileMd5]) continue;
      specifications(d.fileMd5).then(
        (loaded) => live && setRead((r) => ({ ...r, [d.fileMd5]: { loaded } })),
        (e: Error) => live && setRead((r) => ({ ...r, [d.fileMd5]: { error: ts('specs.failed', { name: nameOf(d), message: e.message }) } })),
      );
    }
    return () => {
      live = false;
    };
  }, [open, md5s]);

  // The page view is a history entry of its own, as on Ask: the phone's back button closes it.
  useEffect(() => {
    const follow = () => {
      if (!parsePageView(location.search)) setPage(null);
    };
    window.addEventListener('popstate', follow);
    return () => window.removeEventListener('popstate', follow);
  }, []);
  const openPage = (ref: PageRef) => {
    history.pushState({ pageView: true }, '', location.pathname + pageViewSearch(ref));
    setPage(ref);
  };
  const closePage = () => {
    if ((history.state as { pageView?: boolean } | null)?.pageView) history.back();
    else {
      history.replaceState(null, '', location.pathname);
      setPage(null);
    }
  };

  const owner = pressureUnitOf(activeUnits());
  return (
    <div class="plan sharing">
      <h3 id={hid}>{ts('specs.heading')}</h3>
      <div class="buttons">
        <button type="button" class="secondary" aria-expanded={open} aria-controls={`${hid}-body`} onClick={() => setOpen(!open)}>
          {open ? ts('specs.hide') : ts('specs.show')}
        </button>
      </div>
      {open && (
        <div id={`${hid}-body`} class="plan">
          {manuals.map((d) => {
            const r = read[d.fileMd5];
            const answer = r && 'loaded' in r ? r.loaded.data : null;
            const name = nameOf(d);
            return (
              <div key={d.fileMd5} class="plan">
                {manuals.length > 1 ? <h4>{ts('specs.from', { name })}</h4> : <p class="hint">{ts('specs.from', { name })}</p>}
                {!r && <p role="status">{ts('specs.reading', { name })}</p>}
                {r && 'error' in r && <ErrorText error={r.error} />}
                {r && 'loaded' in r && <AsOf asOf={r.loaded.asOf} />}
                {answer && answer.items.length > 0 && <p class="notice">{answer.mode === 'model' ? ts('specs.modeModel') : ts('specs.modeRules')}</p>}
                {answer && answer.items.length === 0 && <p>{ts('specs.none', { name })}</p>}
                {answer && answer.items.length > 0 && (
                  <ul class="plan-items" aria-label={ts('specs.items', { name })}>
                    {answer.items.map((item, i) => {
                      const id = `${hid}-${d.fileMd5}-${i}`;
                      const label = item.pageLabel ?? String(item.page);
                      return (
                        <li key={item.key}>
                          <div id={id} class="card-label">{specLabel(item.key)}</div>
                          <div>{specValue(item, owner)}</div>
                          <div class="plan-quote">
                            <button type="button" class="link" aria-describedby={id}
                              onClick={() => openPage({ md5: d.fileMd5, page: item.page, ...(item.pageLabel ? { label: item.pageLabel } : {}), name: d.fileName, highlights: [] })}>
                              {ts('specs.page', { page: label })}
                            </button>
                          </div>
                        </li>
                      );
                    })}
                  </ul>
                )}
              </div>
            );
          })}
        </div>
      )}
      {page && <PageView key={`${page.md5}/${page.page}`} view={page} withToken={withToken} onClose={closePage} />}
    </div>
  );
}
