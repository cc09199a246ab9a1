import { useState } from 'preact/hooks';
import { docqa, upload, type DocumentInfo, type UploadProgress } from '../api/docqa';
import { canWriteRefuels, fuel, owns, type Vehicle } from '../api/fuel';
import { lazyComponent } from '../components/lazy';
import type { VehicleContext } from './context';
import { vehiclesOf, withManual } from '../lib/manuals';
import { useOnline, useResource } from '../hooks';
import { fmtBytes, fmtDate, fmtNumber } from '../lib/format';
import { pagesText, passagesText, skippedText, uploadProgressText } from '../lib/uploadprogress';
import { DocumentLink } from '../components/document-link';
import { AsOf, ErrorText, Status } from '../components/messages';
import { t, tn } from '../i18n';
import { FilePicker } from '../components/file-picker';

const MaintenancePlan = lazyComponent(() => import('../components/MaintenancePlan').then((m) => m.MaintenancePlan));

/**
 * LinkToVehicle asks which of the user's vehicles the manual is for (right
 * after an upload, or asked for on a manual of the list), the current one
 * chosen, those it is a manual of already left out; linking saves the
 * vehicle's links without the ones docqa no longer lists. id: what its
 * controls' ids start with (one such question may show per manual).
 */
function LinkToVehicle({ id, heading: Heading, doc, docs, ctx, onDone, later }: {
  id: string;
  /** Its heading's level: h2 on the page, h4 in a manual of the list. */
  heading: 'h2' | 'h4';
  doc: DocumentInfo; docs: DocumentInfo[] | undefined; ctx: VehicleContext; onDone: (message: string | null) => void;
  /** The label of the button that closes it unanswered ("Not now" after an upload, else "Cancel"). */
  later: string;
}) {
  const mine = unlinkedOwn(doc, ctx.vehicles);
  const [vid, setVid] = useState<number | null>(() => mine.find((v) => v.id === ctx.chosen)?.id ?? mine[0]?.id ?? null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (mine.length === 0) return null;
  const name = doc.title.trim() || doc.fileName;
  async function link() {
    const v = mine.find((x) => x.id === vid);
    if (!v) return;
    setBusy(true);
    setError(null);
    try {
      await fuel.updateVehicle(v.id, { manual_md5s: withManual(v, doc.fileMd5, docs) });
      ctx.reloadVehicles();
      onDone(t('manuals.linked', { name, vehicle: v.name }));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <section class="notice link-vehicle" aria-labelledby={`${id}-h`}>
      <Heading id={`${id}-h`}>{t('manuals.whichVehicle', { name })}</Heading>
      <div class="field">
        <label for={id}>{t('manuals.vehicle')}</label>
        <select id={id} value={vid ?? ''} onChange={(e) => setVid(Number(e.currentTarget.value))}>
          {mine.map((v) => <option key={v.id} value={v.id}>{v.name}</option>)}
        </select>
      </div>
      <ErrorText error={error} />
      <div class="buttons">
        <button type="button" disabled={busy || vid === null} onClick={() => void link()}>{t('manuals.link')}</button>
        <button type="button" class="secondary" disabled={busy} onClick={() => onDone(null)}>{later}</button>
      </div>
    </section>
  );
}

/** unlinkedOwn: the user's own vehicles the document is not a manual of yet (a shared vehicle's links are its owner's). */
function unlinkedOwn(doc: DocumentInfo, vehicles: Vehicle[] | undefined): Vehicle[] {
  return (vehicles ?? []).filter((v) => owns(v) && !(v.manual_md5s ?? []).includes(doc.fileMd5));
}

/** accounts: AUTH_MODE=local, where opening a file needs the bearer token. */
export function Manuals({ accounts, ...ctx }: { accounts: boolean } & VehicleContext) {
  const docs = useResource<DocumentInfo[]>('/api/documents');
  const online = useOnline();
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // What the upload read by OCR and what it left out: said, never dropped silently.
  const [report, setReport] = useState<{ ocr: string | null; skipped: string[] } | null>(null);
  // The manual just uploaded, until it is linked to a vehicle or the user says not now.
  const [uploaded, setUploaded] = useState<DocumentInfo | null>(null);
  // The manual whose maintenance plan is shown.
  const [planFor, setPlanFor] = useState<string | null>(null);
  // The manual of the list whose vehicle is being chosen.
  const [linkFor, setLinkFor] = useState<string | null>(null);

  async function onFile(input: HTMLInputElement) {
    const file = input.files?.[0];
    if (!file) return;
    setError(null);
    setMessage(null);
    setReport(null);
    setUploaded(null);
    setProgress({ stage: 'sending', percent: 0, current: 0, total: file.size, message: '' });
    try {
      const d = await upload(file, setProgress);
      setMessage(d.duplicate ? t('manuals.duplicate', { name: d.fileName, pages: pagesText(d.pages) }) : t('manuals.stored', { name: d.fileName, pages: pagesText(d.pages), passages: passagesText(d.chunks) }));
      const skipped = skippedText(d.skippedPages ?? []);
      if (d.ocrPages || skipped.length > 0) setReport({ ocr: d.ocrPages ? tn('manuals.ocrPages', d.ocrPages, { count: fmtNumber(d.ocrPages, 0) }) : null, skipped });
      // A manual already linked to a vehicle needs no question.
      if (vehiclesOf(d.fileMd5, ctx.vehicles).length === 0) setUploaded(d);
      docs.reload();
    } catch (e) {
      setError(t('manuals.uploadFailed', { name: file.name, message: (e as Error).message }));
    } finally {
      setProgress(null);
      input.value = '';
    }
  }

  async function remove(d: DocumentInfo) {
    if (!window.confirm(t('manuals.deleteConfirm', { name: d.fileName }))) return;
    setError(null);
    try {
      await docqa.remove(d.fileMd5);
      setMessage(t('manuals.deleted', { name: d.fileName }));
      docs.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  const progressText = progress ? uploadProgressText(progress) : '';

  return (
    <>
      <h1 tabIndex={-1}>{t('nav.manuals')}</h1>
      <p>{t('manuals.intro')}</p>
      {!online && <p class="notice" role="status">{t('manuals.offline')}</p>}
      <div class="field">
        <label for="pdf">{t('manuals.upload')}</label>
        <FilePicker id="pdf" accept="application/pdf,.pdf" disabled={!online || progress !== null}
          onChange={(e) => void onFile(e.currentTarget)} />
      </div>
      {progress && (
        <div class="progress">
           <progress aria-label={t('manuals.progress')} max={100} value={progress.percent} aria-valuetext={progressText} />
          <p aria-live="polite">{progressText}</p>
        </div>
      )}
      {message && <Status>{message}</Status>}
      {report && (
        <div class="notice upload-report">
          {report.ocr && <p>{report.ocr}</p>}
          {report.skipped.length > 0 && (
            <>
              <p>{tn('manuals.skippedHeading', report.skipped.length, { count: fmtNumber(report.skipped.length, 0) })}</p>
              <ul>{report.skipped.map((line) => <li key={line}>{line}</li>)}</ul>
            </>
          )}
        </div>
      )}
      {uploaded && (
        <LinkToVehicle id="link-vehicle" heading="h2" later={t('manuals.notNow')} doc={uploaded} docs={docs.data ? [...docs.data, uploaded] : undefined} ctx={ctx}
          onDone={(m) => { setUploaded(null); if (m) setMessage(m); }} />
      )}
      <ErrorText error={error ?? docs.error} />
      <h2>{t('manuals.yours')}</h2>
      <AsOf asOf={docs.asOf} />
      {docs.data && docs.data.length === 0 && <p>{t('manuals.none')}</p>}
      <ul class="records" aria-label={t('manuals.list')}>
        {docs.data?.map((d) => (
          <li key={d.fileMd5} class="record" aria-labelledby={`doc-${d.fileMd5}`}>
            {/* By its title, the file name under it: "Golf Owner's Manual" says more than "golf_om_2019_en.pdf". */}
            <h3 id={`doc-${d.fileMd5}`}>{d.title.trim() || d.fileName}</h3>
            {d.title.trim() !== '' && <p class="hint">{d.fileName}</p>}
            {vehiclesOf(d.fileMd5, ctx.vehicles).length > 0 && (
              <p class="manual-of">{t('manuals.forVehicles', { vehicles: vehiclesOf(d.fileMd5, ctx.vehicles).map((v) => v.name).join(', ') })}</p>
            )}
            <p>{[pagesText(d.pages), fmtBytes(d.size), t('manuals.added', { date: fmtDate(d.createdAt) }), ...(d.truncated ? [t('manuals.truncated')] : [])].join(' · ')}</p>
            <div class="buttons">
              <DocumentLink class="button secondary" md5={d.fileMd5} page={1} name={d.fileName} withToken={accounts} onError={setError}>{t('common.open')}</DocumentLink>
              {vehiclesOf(d.fileMd5, ctx.vehicles).some(canWriteRefuels) && planFor !== d.fileMd5 && (
                <button type="button" class="secondary" disabled={!online} onClick={() => setPlanFor(d.fileMd5)}>{t('manuals.propose')}</button>
              )}
              {linkFor !== d.fileMd5 && uploaded?.fileMd5 !== d.fileMd5 && unlinkedOwn(d, ctx.vehicles).length > 0 && (
                <button type="button" class="secondary" disabled={!online} aria-label={t('manuals.linkLabel', { name: d.title.trim() || d.fileName })}
                  onClick={() => { setMessage(null); setLinkFor(d.fileMd5); }}>{t('manuals.link')}</button>
              )}
              <button type="button" class="danger" disabled={!online} onClick={() => void remove(d)}>{t('common.delete')}</button>
            </div>
            {linkFor === d.fileMd5 && (
              <LinkToVehicle id={`link-${d.fileMd5}`} heading="h4" later={t('common.cancel')} doc={d} docs={docs.data} ctx={ctx}
                onDone={(m) => { setLinkFor(null); if (m) setMessage(m); }} />
            )}
            {planFor === d.fileMd5 && (
              <MaintenancePlan doc={d} vehicles={vehiclesOf(d.fileMd5, ctx.vehicles)} withToken={accounts} onClose={() => setPlanFor(null)} />
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
