// The words of a manual's upload progress, from the stage docqa reports and
// its counts (current, total: bytes, pages or passages), in the owner's
// language with plurals. The service's own message is English for logs and
// repeats the stage ("Received: received manual.pdf (…)"), so it is not shown.
import { t, tn, type MessageKey } from '../i18n';
import { fmtBytes, fmtNumber } from './format';

/** The part of docqa's progress event the words come from (api/docqa.ts UploadProgress). */
export interface StageProgress {
  stage: 'sending' | 'received' | 'queued' | 'parsing' | 'ocr' | 'splitting' | 'embedding' | 'storing';
  current: number;
  total: number;
}

export function uploadProgressText(p: StageProgress): string {
  const n = (v: number) => fmtNumber(v, 0);
  switch (p.stage) {
    case 'sending': return t('manuals.progress.sending', { current: fmtBytes(p.current), total: fmtBytes(p.total) });
    case 'received': return t('manuals.progress.received', { size: fmtBytes(p.total) });
    case 'queued': return t('manuals.progress.queued', { place: n(p.current) });
    case 'parsing': return t('manuals.progress.parsing', { current: n(p.current), total: n(p.total) });
    case 'ocr': return t('manuals.progress.ocr', { current: n(p.current), total: n(p.total) });
    case 'splitting': return tn('manuals.progress.splitting', p.total, { count: n(p.total) });
    case 'embedding': return tn('manuals.progress.embedding', p.total, { current: n(p.current), count: n(p.total) });
    case 'storing': return tn('manuals.progress.storing', p.total, { count: n(p.total) });
    default: return t('manuals.progress.working');
  }
}

/** A page docqa could not read (the upload's skippedPages). */
export interface SkippedPage {
  page: number;
  reason: string;
}

const SKIP_REASONS: Record<string, MessageKey> = {
  ocr_timeout: 'manuals.skip.ocr_timeout',
  unreadable: 'manuals.skip.unreadable',
  ocr_failed: 'manuals.skip.ocr_failed',
  blank: 'manuals.skip.blank',
};

/**
 * skippedText: one line per page the upload left out and why ("Page 7: OCR
 * took longer than allowed"), pages in order; a reason this client does not
 * know is still named, by its code.
 */
export function skippedText(skipped: readonly SkippedPage[]): string[] {
  return [...skipped].sort((a, b) => a.page - b.page).map((s) => {
    const key = SKIP_REASONS[s.reason];
    return t('manuals.skipped', { page: fmtNumber(s.page, 0), reason: key ? t(key) : s.reason });
  });
}

/** pagesText: "1 page", "12 pages" in the owner's language. */
export function pagesText(pages: number): string {
  return tn('manuals.pages', pages, { count: fmtNumber(pages, 0) });
}

/** passagesText: "1 passage", "235 passages". */
export function passagesText(passages: number): string {
  return tn('manuals.passages', passages, { count: fmtNumber(passages, 0) });
}
