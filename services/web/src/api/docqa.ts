// Typed client of docqa-service (proto-docs/docqa-service.openapi.yaml).
import type { MaintenanceItem } from '../lib/maintenance';
import { ApiError, NetworkError, request, send, toApiError } from './http';
import { EventStreamReader, readEventStream } from './sse';
import { sessions, tokenOf } from './session';
import { t } from '../i18n';
import type { Highlight } from '../lib/pageview';
import type { SkippedPage } from '../lib/uploadprogress';

export interface DocumentInfo {
  fileName: string;
  title: string;
  fileMd5: string;
  size: number;
  pages: number;
  chunks: number;
  duplicate: boolean;
  truncated: boolean;
  createdAt: string;
  /** Pages read by OCR (scanned pages); in the upload's answer only. */
  ocrPages?: number;
  /** Pages left out and why (OCR past its time, unreadable, blank); in the upload's answer only. */
  skippedPages?: SkippedPage[];
}

export interface Source {
  docId: string;
  fileName: string;
  fileMd5: string;
  page: number;
  chunkIndex: number;
  score: number;
  text: string;
  /** The number printed on the page ("3-12", "iv"), when the PDF has page labels. */
  pageLabel?: string;
  /** The passage's lines on its page as rectangles (0..1 from the top left), when the service could place them. */
  highlights?: Highlight[];
  /** The passage was read by OCR from a scanned page. */
  ocr?: boolean;
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface UploadProgress {
  stage: 'sending' | 'received' | 'queued' | 'parsing' | 'ocr' | 'splitting' | 'embedding' | 'storing';
  percent: number;
  current: number;
  total: number;
  message: string;
}

/** filePath is where docqa serves a document's original PDF. */
export function filePath(md5: string): string {
  return `/api/documents/${encodeURIComponent(md5)}/file`;
}

/** fileUrl opens the original PDF at a page in the browser's viewer. */
export function fileUrl(md5: string, page: number): string {
  return `${filePath(md5)}#page=${page}`;
}

/** pageImagePath: where docqa serves page n of a document as a PNG `width` pixels wide. */
export function pageImagePath(md5: string, page: number, width: number): string {
  return `/api/documents/${encodeURIComponent(md5)}/pages/${page}.png?width=${width}`;
}

/** pagePdfPath: where docqa serves page n of a document as a one-page PDF. */
export function pagePdfPath(md5: string, page: number): string {
  return `/api/documents/${encodeURIComponent(md5)}/pages/${page}.pdf`;
}

/**
 * loadPageImage fetches a page's image with the bearer token (an <img> cannot
 * send one) and returns a blob: URL for it; the caller revokes it. Offline,
 * the service worker answers with the copy of a page viewed before; a page
 * never viewed rejects with NetworkError.
 */
export async function loadPageImage(md5: string, page: number, width: number, signal?: AbortSignal): Promise<string> {
  const res = await send('GET', pageImagePath(md5, page, width), { headers: { Accept: 'image/png' }, signal });
  let bytes: Blob;
  try {
    bytes = await res.blob();
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new NetworkError(t('docqa.fileCutOff'));
  }
  return URL.createObjectURL(bytes);
}

/** BLOB_LIFETIME: how long the blob: URL of an opened file stays valid (ms); the viewer has read it long before. */
export const BLOB_LIFETIME = 60_000;

/**
 * openFile shows a document's original PDF at a page in a new tab with
 * accounts on: the file is fetched with the bearer token (a plain link cannot
 * send one) and handed to the browser's viewer as a blob: URL, `#page=N`
 * kept. The tab is opened before anything is awaited, so the click that
 * calls this still counts and no popup blocker stops it however long the
 * file takes; it says what it waits for until then, and is closed again when
 * the file cannot be had: the promise then rejects with the ApiError or
 * NetworkError, for the page to show. Call it in the click handler itself.
 */
export async function openFile(md5: string, page: number, name: string): Promise<void> {
  const tab = window.open('', '_blank');
  if (!tab) throw new Error(t('docqa.blocked'));
  // What rel="noopener" does for a link: the viewer's tab gets no handle on the app.
  tab.opener = null;
  tab.document.title = name;
  tab.document.body.textContent = `Opening ${name}…`;
  try {
    const res = await send('GET', filePath(md5), { headers: { Accept: 'application/pdf' } });
    let bytes: Blob;
    try {
      bytes = await res.blob();
    } catch {
      throw new NetworkError(t('docqa.fileCutOff'));
    }
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
    setTimeout(() => URL.revokeObjectURL(url), BLOB_LIFETIME);
    tab.location.href = `${url}#page=${page}`;
  } catch (err) {
    tab.close();
    throw err;
  }
}

/** The maintenance plan docqa proposes from a manual: mode says whether a chat model or rules read it. */
export interface MaintenanceSchedule {
  items: MaintenanceItem[];
  mode: 'model' | 'rules';
  pages: number[];
}

/** One specification a manual prints: value as printed, quantity a decimal string ("2.3") with its unit, or null. */
export interface SpecificationItem {
  key: string;
  value: string;
  quantity: string | null;
  /** l, qt, bar, kPa, psi, Nm, lb-ft, RON, Ah; "" without a quantity. */
  unit: string;
  page: number;
  pageLabel?: string;
  quote: string;
}

/** A car's specifications docqa read from its manual; mode and pages as the maintenance plan's. */
export interface Specifications {
  items: SpecificationItem[];
  mode: 'model' | 'rules';
  pages: number[];
}

/** specificationsPath: where docqa reads a manual's specifications (POST, no body). */
export function specificationsPath(md5: string): string {
  return `/api/documents/${encodeURIComponent(md5)}/specifications`;
}

export const docqa = {
  list: () => request<DocumentInfo[]>('GET', '/api/documents'),
  maintenanceSchedule: (md5: string) => request<MaintenanceSchedule>('POST', `/api/documents/${encodeURIComponent(md5)}/maintenance-schedule`),
  specifications: (md5: string) => request<Specifications>('POST', specificationsPath(md5)),
  remove: (md5: string) => request<void>('DELETE', `/api/documents/${encodeURIComponent(md5)}`),
};

/** HISTORY_ITEMS: how much of the conversation goes with a question: the last 10 turns (docqa takes 40 items at most). */
export const HISTORY_ITEMS = 20;
/** HISTORY_CHARS: the most of one item's content that is sent, in Unicode code points (docqa refuses more than 16000). */
export const HISTORY_CHARS = 16_000;

/** firstCodePoints: s cut to its first n code points, never between the two halves of a surrogate pair. */
export function firstCodePoints(s: string, n: number): string {
  if (s.length <= n) return s; // n UTF-16 units hold at most n code points
  let end = 0;
  for (let count = 0; count < n && end < s.length; count++) end += s.codePointAt(end)! > 0xffff ? 2 : 1;
  return s.slice(0, end);
}

/** trimHistory: what of a conversation is sent with the next question (the last HISTORY_ITEMS items, each cut to HISTORY_CHARS). */
export function trimHistory(history: readonly ChatMessage[]): ChatMessage[] {
  return history.slice(-HISTORY_ITEMS).map((m) => ({ role: m.role, content: firstCodePoints(m.content, HISTORY_CHARS) }));
}

/**
 * AnswerMode: what the answer is. `answer`: written by the configured chat
 * model; `quotes`: no chat model is configured and the answer is passages
 * quoted from the manuals, not a written answer.
 */
export type AnswerMode = 'answer' | 'quotes';

/**
 * AnswerNotice: why a quoted answer quotes nothing. `other_script`: the
 * question is written in another script than every retrieved passage; scripts
 * are the passages' (Unicode script names such as "Latin" or "Han", best
 * first). `other_language`: it is in their script but in another language
 * than every one of them; languages are theirs (ISO 639-1 codes, best first).
 * `no_match`: no retrieved passage holds enough of what the question asks
 * about, so the manuals do not seem to cover it. Each way every retrieved
 * passage is in more.
 */
export type AnswerNotice =
  | { kind: 'other_script'; scripts: string[] }
  | { kind: 'other_language'; languages: string[] }
  | { kind: 'no_match' };

/** noticeOf: the notice of a sources event, null when it has none the app knows. */
export function noticeOf(d: Record<string, unknown>): AnswerNotice | null {
  if (d.mode !== 'quotes') return null;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
  switch (d.notice) {
    case 'no_match':
      return { kind: 'no_match' };
    case 'other_script':
      return { kind: 'other_script', scripts: strings(d.scripts) };
    case 'other_language':
      return { kind: 'other_language', languages: strings(d.languages) };
  }
  return null;
}

export interface AskHandlers {
  /**
   * onSources: the passages the answer's [n] refer to (sources[n-1]), the
   * retrieved ones it does not quote (more; quotes mode only) and, when a
   * quoted answer quotes nothing, why (notice; null otherwise).
   */
  onSources(sources: Source[], mode: AnswerMode, more: Source[], notice: AnswerNotice | null): void;
  /** onUsed: at the end, the 1-based positions in sources the answer uses, in the order first used. */
  onUsed?(used: number[]): void;
  onContent(piece: string): void;
}

/**
 * ask posts the question, with the end of the conversation (trimHistory),
 * and reads the answer stream. It resolves with the
 * finish reason and rejects with ApiError for a JSON error answer or an
 * in-stream `error` event, NetworkError when the stream breaks before its
 * terminal event.
 */
export async function ask(question: string, history: ChatMessage[], h: AskHandlers, signal?: AbortSignal, documents?: string[]): Promise<string> {
  const res = await send('POST', '/api/chat/stream', {
    // documents limits retrieval to those manuals (their fileMd5); absent: every manual.
    body: JSON.stringify({ question, history: trimHistory(history), ...(documents && documents.length > 0 ? { documents } : {}) }),
    headers: { Accept: 'text/event-stream' },
    signal,
  });
  if (!res.body) throw new NetworkError(t('docqa.streamEmpty'));
  let finish: string | null = null;
  let failure = null as ApiError | null;
  try {
    await readEventStream(res.body, (ev) => {
      if (finish !== null || failure) return;
      const d = ev.data as Record<string, unknown>;
      if (ev.event === 'sources') h.onSources((d.sources as Source[]) ?? [], d.mode === 'quotes' ? 'quotes' : 'answer', (d.more as Source[]) ?? [], noticeOf(d));
      else if (ev.event === 'message' && typeof d.content === 'string') h.onContent(d.content);
      else if (ev.event === 'done') {
        finish = typeof d.finishReason === 'string' ? d.finishReason : 'stop';
        // A service older than `used` cited everything it listed.
        if (Array.isArray(d.used)) h.onUsed?.(d.used.filter((n): n is number => typeof n === 'number'));
      }
      else if (ev.event === 'error') {
        failure = new ApiError(200, typeof d.code === 'string' ? d.code : 'INTERNAL', typeof d.message === 'string' ? d.message : t('docqa.answerFailed'));
      }
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new NetworkError(t('docqa.streamBroke'));
  }
  if (failure) throw failure;
  if (finish === null) throw new NetworkError(t('docqa.streamEnded'));
  return finish;
}

/**
 * upload sends the PDF with XMLHttpRequest (fetch cannot report upload
 * progress), reporting the bytes sent, then reads the service's progress
 * events from the same answer as it arrives.
 */
export async function upload(file: File, onProgress: (p: UploadProgress) => void): Promise<DocumentInfo> {
  const auth = await sessions.headers();
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/documents/upload/stream');
    xhr.setRequestHeader('Accept', 'text/event-stream');
    for (const [k, v] of Object.entries(auth)) xhr.setRequestHeader(k, v);
    let seen = 0;
    let done: DocumentInfo | null = null;
    let failure: ApiError | null = null;
    const reader = new EventStreamReader((ev) => {
      if (ev.event === 'progress') onProgress(ev.data as UploadProgress);
      else if (ev.event === 'done') done = ev.data as DocumentInfo;
      else if (ev.event === 'error') {
        const d = ev.data as { code?: string; message?: string };
        failure = new ApiError(200, d.code ?? 'INTERNAL', d.message ?? t('docqa.uploadFailed'));
      }
    });
    const isStream = () => (xhr.getResponseHeader('Content-Type') ?? '').startsWith('text/event-stream');
    const pump = () => {
      if (xhr.status !== 200 || !isStream()) return;
      const text = xhr.responseText;
      if (text.length > seen) {
        reader.feed(text.slice(seen));
        seen = text.length;
      }
    };
    xhr.upload.onprogress = (e) => {
      onProgress({ stage: 'sending', percent: e.lengthComputable ? Math.floor((e.loaded / e.total) * 100) : 0, current: e.loaded, total: e.total, message: '' });
    };
    xhr.onprogress = pump;
    xhr.onerror = () => reject(new NetworkError(t('docqa.uploadOffline')));
    xhr.onload = () => {
      if (xhr.status !== 200 || !isStream()) {
        if (xhr.status === 401) void sessions.refused(tokenOf(auth));
        void toApiError(new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText })).then(reject);
        return;
      }
      pump();
      reader.end();
      if (failure) reject(failure);
      else if (done) resolve(done);
      else reject(new NetworkError(t('docqa.uploadEnded')));
    };
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
}
