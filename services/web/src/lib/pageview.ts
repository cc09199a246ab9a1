// What the in-app page view shows: a document's page as an image, the
// passage's rectangles over it. The view's address holds all of it
// (`/ask?doc=<md5>&page=<n>&label=<printed>&name=<file>&hl=<rects>&ocr=1`), so the
// phone's back button closes it and a reload shows the same page.

/** Highlight: one rectangle of a passage on its page, in 0..1 of the page's width and height, from the top left. */
export interface Highlight {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PageRef {
  md5: string;
  /** The physical page, 1-based. */
  page: number;
  /** The number printed on the page ("3-12", "iv"), when the PDF has page labels. */
  label?: string;
  /** The file's name, for the title and a saved page's fallback name. */
  name: string;
  highlights: Highlight[];
  /** The page is a scan whose text was read by OCR. */
  ocr?: boolean;
}

/** PAGE_WIDTHS: the widths the view asks for, so the service's cache and the offline copy see few variants. */
export const PAGE_WIDTHS = [400, 600, 800, 1000, 1200, 1600, 2000] as const;

/**
 * imageWidth: the smallest of PAGE_WIDTHS that gives a sharp image for a
 * box cssWidth wide on a screen of devicePixelRatio dpr, zoomed `zoom` times
 * (the largest when none is enough).
 */
export function imageWidth(cssWidth: number, dpr: number, zoom = 1): number {
  const need = Math.ceil(Math.max(1, cssWidth) * Math.max(1, dpr || 1) * Math.max(1, zoom));
  return PAGE_WIDTHS.find((w) => w >= need) ?? MAX_PAGE_WIDTH;
}

/** MAX_PAGE_WIDTH: the widest image the service renders. */
export const MAX_PAGE_WIDTH = 2000;

/** What decides the image's width: where it is drawn and how closely it is looked at. */
export interface PageSight {
  /** The CSS width of the box the page is fitted to (the frame's content box). */
  cssWidth: number;
  /** window.devicePixelRatio. */
  dpr: number;
  /** The view's own zoom (its Zoom button): the sheet is drawn this many times the box's width. */
  zoom: number;
  /** A pinch's zoom of the browser (visualViewport.scale; 1 when not pinched). */
  pinch: number;
}

/**
 * nextImageWidth: the width to ask for now, given the width of the image
 * already shown (null: none yet). A sharper one is asked for when the page
 * is drawn larger (the view's zoom, a pinch, a wider window); never a
 * blurrier one, since the one shown is sharp at any smaller size.
 */
export function nextImageWidth(sight: PageSight, shown: number | null): number {
  const wanted = imageWidth(sight.cssWidth, sight.dpr, Math.max(1, sight.zoom) * Math.max(1, sight.pinch || 1));
  return shown !== null && shown >= wanted ? shown : wanted;
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** encodeHighlights: "x,y,w,h;x,y,w,h", four decimals each (a tenth of a point on an A4 page). */
export function encodeHighlights(hs: readonly Highlight[]): string {
  return hs.map((h) => [h.x, h.y, h.w, h.h].map(round4).join(',')).join(';');
}

/** decodeHighlights reads encodeHighlights' form; a rectangle that is not four numbers within the page is left out. */
export function decodeHighlights(s: string | null): Highlight[] {
  if (!s) return [];
  return s.split(';').flatMap((part) => {
    const n = part.split(',').map(Number);
    if (n.length !== 4 || n.some((v) => !Number.isFinite(v) || v < 0 || v > 1)) return [];
    const [x, y, w, h] = n as [number, number, number, number];
    if (w <= 0 || h <= 0 || x + w > 1.0001 || y + h > 1.0001) return [];
    return [{ x, y, w, h }];
  });
}

/** pageViewSearch: the query string of the view of ref (without the path). */
export function pageViewSearch(ref: PageRef): string {
  const q = new URLSearchParams({ doc: ref.md5, page: String(ref.page), name: ref.name });
  if (ref.label) q.set('label', ref.label);
  if (ref.highlights.length > 0) q.set('hl', encodeHighlights(ref.highlights));
  if (ref.ocr) q.set('ocr', '1');
  return '?' + q.toString();
}

/** parsePageView reads a view's query string; null when it names no document and page. */
export function parsePageView(search: string): PageRef | null {
  const q = new URLSearchParams(search);
  const md5 = q.get('doc');
  const page = Number(q.get('page'));
  if (!md5 || !/^[0-9a-f]{32}$/i.test(md5) || !Number.isInteger(page) || page < 1) return null;
  return {
    md5: md5.toLowerCase(),
    page,
    label: q.get('label') || undefined,
    name: q.get('name') || md5,
    highlights: decodeHighlights(q.get('hl')),
    ...(q.get('ocr') === '1' ? { ocr: true } : {}),
  };
}

/**
 * dispositionName: the file name a Content-Disposition gives, the RFC 5987
 * `filename*` (UTF-8, percent-encoded) before the plain `filename`.
 */
export function dispositionName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;\s]+)/i.exec(header);
  if (star?.[2] && /^utf-8$/i.test(star[1] ?? '')) {
    try {
      return decodeURIComponent(star[2]);
    } catch {
      // A malformed escape: the plain name below.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  if (!plain) return null;
  return plain[1] !== undefined ? plain[1].replace(/\\(.)/g, '$1') : (plain[2] ?? null);
}
