// The app's one place for a confirmation ("Refuel saved: 41.5 L, €71.50 —
// 6 Dec 2026"), where the eye is after a tap on Save: fixed just above the
// phone's bottom bar (at the bottom of a wide screen, which has no bar), in
// a polite live region that is always in the page, so a screen reader
// announces each new message. It offers what can be done about what was just
// saved (Undo, Edit) and a Dismiss; it stays until dismissed, replaced by the
// next message or the owner goes to another page. While it shows, the page
// keeps room for it below its last control (--toast-room), so no Save button
// is left under it. Pages call announce(); App renders StatusArea once.
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n';

/** What a confirmation offers: Undo (delete what was just created) or Edit. */
export interface NoticeAction {
  label: string;
  /**
   * Runs the action; its answer (a sentence) replaces the message, without an
   * action; null empties the status (Edit: the form it opened is the answer).
   */
  run: () => Promise<string | null> | string | null;
}

export interface Notice {
  text: string;
  action?: NoticeAction;
}

type Shown = Notice & { id: number; busy?: boolean; failed?: boolean };

let shown: Shown | null = null;
let next = 1;
const listeners = new Set<() => void>();

function set(n: Shown | null): void {
  shown = n;
  for (const fn of listeners) fn();
}

/** announce shows text (and its action) in the status area, replacing what it showed. */
export function announce(notice: Notice | string): void {
  set({ ...(typeof notice === 'string' ? { text: notice } : notice), id: next++ });
}

/** dismiss empties the status area. */
export function dismiss(): void {
  set(null);
}

/** current: what the status area shows now (null: nothing). */
export function current(): Notice | null {
  return shown;
}

/** runAction runs the action of the message shown (when it is still the one with that id) and shows its answer. */
export async function runAction(id: number): Promise<void> {
  const n = shown;
  if (!n || n.id !== id || !n.action || n.busy) return;
  set({ ...n, busy: true });
  let text: string | null;
  let failed = false;
  try {
    text = await n.action.run();
  } catch (err) {
    text = t('status.actionFailed', { action: n.action.label, message: err instanceof Error ? err.message : String(err) });
    failed = true;
  }
  // A newer message took its place meanwhile: that one stays.
  if (shown?.id === id) set(text === null ? null : { text, id, failed });
}

function useShown(): Shown | null {
  const [, render] = useState(0);
  useEffect(() => {
    const fn = () => render((n) => n + 1);
    listeners.add(fn);
    return () => void listeners.delete(fn);
  }, []);
  return shown;
}

/** StatusArea: the status shown by announce(), emptied when path changes (another page). */
export function StatusArea({ path }: { path: string }) {
  const n = useShown();
  const box = useRef<HTMLDivElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else dismiss();
  }, [path]);
  // The room the page keeps below its content while a message shows.
  useEffect(() => {
    const el = box.current;
    const root = document.documentElement;
    if (!el || !n) {
      root.style.removeProperty('--toast-room');
      return;
    }
    const measure = () => root.style.setProperty('--toast-room', `${Math.ceil(el.getBoundingClientRect().height) + 8}px`);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const o = new ResizeObserver(measure);
    o.observe(el);
    return () => o.disconnect();
  }, [n !== null]);
  return (
    <div ref={box} class={n ? (n.failed ? 'toast shown failed' : 'toast shown') : 'toast'}
      onKeyDown={(e) => {
        if (e.key === 'Escape') dismiss();
      }}>
      {/* Always in the page, so that what is put in it is announced. */}
      <p class="toast-text" role="status" aria-live="polite" aria-atomic="true">{n?.text ?? ''}</p>
      {n && (
        <div class="toast-actions">
          {n.action && (
            <button type="button" class="toast-action" disabled={n.busy} onClick={() => void runAction(n.id)}>{n.action.label}</button>
          )}
          <button type="button" class="toast-close" aria-label={t('app.dismiss')} title={t('app.dismiss')} onClick={dismiss}>
            <span aria-hidden="true">×</span>
          </button>
        </div>
      )}
    </div>
  );
}
