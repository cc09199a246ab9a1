import { useState } from 'preact/hooks';
import { docqa, upload, type DocumentInfo, type UploadProgress } from '../api/docqa';
import { useOnline, useResource } from '../hooks';
import { fmtBytes, fmtDate } from '../lib/format';
import { AsOf, DocumentLink, ErrorText, Status } from '../components/common';

const STAGES: Record<UploadProgress['stage'], string> = {
  sending: 'Sending',
  received: 'Received',
  queued: 'Waiting for its turn',
  parsing: 'Reading the pages',
  splitting: 'Splitting into passages',
  embedding: 'Indexing the passages',
  storing: 'Storing',
};

/** accounts: AUTH_MODE=local, where opening a file needs the bearer token. */
export function Manuals({ accounts }: { accounts: boolean }) {
  const docs = useResource<DocumentInfo[]>('/api/documents');
  const online = useOnline();
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function onFile(input: HTMLInputElement) {
    const file = input.files?.[0];
    if (!file) return;
    setError(null);
    setMessage(null);
    setProgress({ stage: 'sending', percent: 0, current: 0, total: file.size, message: '' });
    try {
      const d = await upload(file, setProgress);
      setMessage(d.duplicate ? `${d.fileName} was already stored (${d.pages} pages).` : `Stored ${d.fileName}: ${d.pages} pages, ${d.chunks} passages.`);
      docs.reload();
    } catch (e) {
      setError(`Upload of ${file.name} failed: ${(e as Error).message}`);
    } finally {
      setProgress(null);
      input.value = '';
    }
  }

  async function remove(d: DocumentInfo) {
    if (!window.confirm(`Delete ${d.fileName}? Questions will no longer find its pages.`)) return;
    setError(null);
    try {
      await docqa.remove(d.fileMd5);
      setMessage(`${d.fileName} deleted.`);
      docs.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  const progressText = progress
    ? progress.stage === 'sending'
      ? `Sending: ${fmtBytes(progress.current)} of ${fmtBytes(progress.total)}`
      : `${STAGES[progress.stage] ?? progress.stage}${progress.message ? ': ' + progress.message : ''}`
    : '';

  return (
    <>
      <h1 tabIndex={-1}>Manuals</h1>
      <p>Upload your car's manual as a PDF, then ask it questions on the Ask page.</p>
      {!online && <p class="notice" role="status">Uploading needs a connection: you are offline.</p>}
      <div class="field">
        <label for="pdf">Upload a PDF</label>
        <input id="pdf" type="file" accept="application/pdf,.pdf" disabled={!online || progress !== null}
          onChange={(e) => void onFile(e.currentTarget)} />
      </div>
      {progress && (
        <div class="progress">
          <progress aria-label="Upload progress" max={100} value={progress.percent} aria-valuetext={progressText} />
          <p aria-live="polite">{progressText}</p>
        </div>
      )}
      {message && <Status>{message}</Status>}
      <ErrorText error={error ?? docs.error} />
      <h2>Your manuals</h2>
      <AsOf asOf={docs.asOf} />
      {docs.data && docs.data.length === 0 && <p>No manual uploaded yet.</p>}
      <ul class="records" aria-label="Manuals">
        {docs.data?.map((d) => (
          <li key={d.fileMd5} class="record" aria-labelledby={`doc-${d.fileMd5}`}>
            <h3 id={`doc-${d.fileMd5}`}>{d.fileName}</h3>
            <p>{d.pages} pages · {fmtBytes(d.size)} · added {fmtDate(d.createdAt)}{d.truncated ? ' · only the first 10 000 passages are indexed' : ''}</p>
            <div class="buttons">
              <DocumentLink class="button secondary" md5={d.fileMd5} page={1} name={d.fileName} withToken={accounts} onError={setError}>Open</DocumentLink>
              <button type="button" class="danger" disabled={!online} onClick={() => void remove(d)}>Delete</button>
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
