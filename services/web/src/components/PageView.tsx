import { useEffect, useRef, useState } from 'preact/hooks';
import { loadPageImage, pagePdfPath } from '../api/docqa';
import { download, NetworkError } from '../api/http';
import { t } from '../i18n';
import { nextImageWidth, type PageRef } from '../lib/pageview';
import { DocumentLink } from './document-link';
import { ErrorText } from './messages';

interface Props {
  view: PageRef;
  /** With accounts the original is fetched with the token (DocumentLink). */
  withToken: boolean;
  onClose: () => void;
}

/** Zoom: fitted to the width, or twice that (a sharper image is asked for). */
type Zoom = 1 | 2;

/**
 * PageView shows a cited page inside the app, as an image fitted to the
 * width with the passage highlighted: a phone's browser cannot show a PDF at
 * a page (it downloads the whole file). It is a modal dialog: Escape, Close
 * and the back button (the caller's history entry) close it.
 */
export function PageView({ view, withToken, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const [zoom, setZoom] = useState<Zoom>(1);
  const [width, setWidth] = useState<number | null>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const label = view.label ?? String(view.page);
  const title = t('page.title', { file: view.name, page: label });

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);

  // The width asked for follows the box the page is drawn in, the screen's
  // pixels, the zoom and a pinch. The box is measured by a ResizeObserver:
  // before the dialog is open it is 0 wide (measured then, every screen got
  // the narrowest image, stretched), and it changes with the window.
  const boxWidth = useRef(0);
  useEffect(() => {
    const box = frame.current;
    if (!box) return;
    const measure = () => {
      if (boxWidth.current <= 0) return;
      const sight = { cssWidth: boxWidth.current, dpr: window.devicePixelRatio, zoom, pinch: window.visualViewport?.scale ?? 1 };
      setWidth((asked) => nextImageWidth(sight, asked));
    };
    const watch = new ResizeObserver((entries) => {
      boxWidth.current = entries[0]?.contentRect.width ?? boxWidth.current;
      measure();
    });
    watch.observe(box);
    measure();
    // A pinch changes the visual viewport's scale; a move to another screen the pixel ratio.
    window.visualViewport?.addEventListener('resize', measure);
    window.addEventListener('resize', measure);
    return () => {
      watch.disconnect();
      window.visualViewport?.removeEventListener('resize', measure);
      window.removeEventListener('resize', measure);
    };
  }, [zoom]);

  // The image on screen; a blob: URL is revoked once another has replaced it, or the view closes.
  const shown = useRef<string | null>(null);
  useEffect(() => () => {
    if (shown.current) URL.revokeObjectURL(shown.current);
  }, []);

  useEffect(() => {
    if (width === null) return;
    const abort = new AbortController();
    setError(null);
    loadPageImage(view.md5, view.page, width, abort.signal).then(
      (url) => {
        if (abort.signal.aborted) return URL.revokeObjectURL(url);
        // The image shown until now stays until the sharper one is here.
        const old = shown.current;
        shown.current = url;
        setSrc(url);
        if (old) setTimeout(() => URL.revokeObjectURL(old), 1_000);
      },
      (err: Error) => {
        if (abort.signal.aborted) return;
        setError(err instanceof NetworkError ? t('page.needsConnection') : t('page.failed', { message: err.message }));
      },
    );
    return () => abort.abort();
  }, [view.md5, view.page, width]);

  // The first highlight is brought into view once the image is there.
  useEffect(() => {
    if (src) frame.current?.querySelector('.page-mark')?.scrollIntoView({ block: 'center', inline: 'nearest' });
  }, [src, zoom]);

  async function save() {
    setSaveError(null);
    setSaving(true);
    try {
      await download(pagePdfPath(view.md5, view.page), t('page.fileName', { file: view.name.replace(/\.pdf$/i, ''), page: label }));
    } catch (err) {
      setSaveError(err instanceof NetworkError ? t('page.saveOffline') : (err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <dialog ref={dialog} class="page-view" aria-labelledby="page-view-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}>
      <div class="page-bar">
        <h2 id="page-view-title">{title}</h2>
        <button type="button" class="secondary" onClick={onClose}>{t('page.close')}</button>
      </div>
      <div class="buttons page-actions">
        <button type="button" class="secondary" aria-pressed={zoom > 1} onClick={() => setZoom(zoom > 1 ? 1 : 2)}>
          {zoom > 1 ? t('page.zoomOut') : t('page.zoomIn')}
        </button>
        <DocumentLink class="button secondary" md5={view.md5} page={view.page} name={view.name} withToken={withToken} onError={setSaveError}>
          {t('page.openPdf')}
        </DocumentLink>
        <button type="button" class="secondary" disabled={saving} onClick={() => void save()}>{t('page.save')}</button>
      </div>
      <ErrorText error={saveError} />
      <div ref={frame} class="page-frame" tabIndex={0} aria-label={title}>
        {src ? (
          <div class="page-sheet" style={{ width: `${zoom * 100}%` }}>
            <img src={src} alt={t('page.imageAlt', { file: view.name, page: label })} />
            {view.highlights.map((h, i) => (
              <span key={i} class="page-mark" aria-hidden="true"
                style={{ left: `${h.x * 100}%`, top: `${h.y * 100}%`, width: `${h.w * 100}%`, height: `${h.h * 100}%` }} />
            ))}
          </div>
        ) : (
          !error && <p role="status">{t('page.loading')}</p>
        )}
        {error && <p class={src ? 'error' : 'notice'} role="alert">{error}</p>}
      </div>
      {view.highlights.length > 0 && src && <p class="hint">{t('page.highlighted')}</p>}
      {view.ocr && <p class="hint">{t('page.ocr')}</p>}
    </dialog>
  );
}
