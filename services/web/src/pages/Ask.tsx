import { useEffect, useRef, useState } from 'preact/hooks';
import { ask, type AnswerMode, type AnswerNotice, type ChatMessage, type DocumentInfo, type Source } from '../api/docqa';
import { NetworkError } from '../api/http';
import { useOnline, useResource } from '../hooks';
import type { VehicleContext } from './context';
import { askScope, type AskScope } from '../lib/manuals';
import { ErrorText } from '../components/messages';
import { lazyComponent } from '../components/lazy';
import { pageViewSearch, parsePageView, type PageRef } from '../lib/pageview';
import { otherLanguageNotice, otherScriptNotice } from '../lib/scripts';
import { language, t } from '../i18n';

interface Turn {
  question: string;
  answer: string;
  sources: Source[];
  /** more: retrieved passages the answer does not quote (quotes mode). */
  more: Source[];
  /** used: the 1-based positions in sources the answer uses; null until the service says (at its end). */
  used: number[] | null;
  /** mode: a written answer or quoted passages (no chat model is configured); null until the service says. */
  mode: AnswerMode | null;
  /** notice: why a quoted answer quotes nothing (the manuals are in another script or language, or do not seem to cover the question); the app says it instead of the service's sentence. */
  notice?: AnswerNotice | null;
  /** failed: why the answer stopped before it was complete; what arrived of it is not shown as an answer. */
  failed?: string;
  /** scope: which vehicle's manuals the question was asked of (none: every manual). */
  scope: AskScope<DocumentInfo>;
}

interface SourcesProps {
  turn: Turn;
  label: string;
  /** Shows a source's page in the page view. */
  onOpen: (s: Source) => void;
}

const PageView = lazyComponent(() => import('../components/PageView').then((m) => m.PageView));

/** pageRefOf: the page view of a source: its page, printed label and passage. */
export function pageRefOf(s: Source): PageRef {
  return { md5: s.fileMd5, page: s.page, label: s.pageLabel, name: s.fileName, highlights: s.highlights ?? [], ...(s.ocr ? { ocr: true } : {}) };
}

/**
 * splitSources: the sources the answer uses, each with the number it has in
 * the answer ("[n]"), in the order used, and the rest of the retrieved. A
 * model's citations are known only at the end: until then all are the rest.
 */
export function splitSources(turn: Pick<Turn, 'sources' | 'more' | 'used'>): { used: { n: number; source: Source }[]; rest: Source[] } {
  const used = (turn.used ?? []).flatMap((n) => {
    const source = turn.sources[n - 1];
    return source ? [{ n, source }] : [];
  });
  const rest = turn.sources.filter((_, i) => !turn.used?.includes(i + 1)).concat(turn.more);
  return { used, rest };
}

/** The sources the answer uses, numbered as in its text, and the rest of the retrieved behind "More sources". */
function Sources({ turn, label, onOpen }: SourcesProps) {
  const { used, rest } = splitSources(turn);
  // A link (it can be opened in a new tab, and says where it goes); a plain click opens the view here.
  const link = (s: Source) => (
    <a href={'/ask' + pageViewSearch(pageRefOf(s))} onClick={(e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      onOpen(s);
    }}>
      {t('ask.source', { file: s.fileName, page: s.pageLabel ?? s.page })}
    </a>
  );
  return (
    <>
      {used.length > 0 && (
        <ol class="sources" aria-label={label}>
          {used.map(({ n, source }) => <li key={source.docId} value={n}>{link(source)}</li>)}
        </ol>
      )}
      {rest.length > 0 && (
        <details class="more-sources">
          <summary>{t('ask.moreSources', { n: rest.length })}</summary>
          <ul class="sources" aria-label={t('ask.moreSourcesList')}>
            {rest.map((s) => <li key={s.docId}>{link(s)}</li>)}
          </ul>
        </details>
      )}
    </>
  );
}

/**
 * QuotesNotice says that the answer below is quoted passages, not a written
 * answer, or, with a notice, why nothing is quoted, and how the operator
 * configures a model. No link: the README that says more is the
 * installation's, not served by it.
 */
/**
 * QuotesNotice: why a turn without a model quotes what it quotes. That no
 * model is set up is said once in a conversation (first: its first quoted
 * turn), in an owner's words (the operator's settings are the README's); a
 * notice of the turn's own (the manuals are in another script or language,
 * or do not seem to cover the question) every time.
 */
function QuotesNotice({ notice, first }: { notice?: AnswerNotice | null; first: boolean }) {
  if (!notice && !first) return null;
  return (
    <p class="notice quotes-notice">
      {notice ? noticeText(notice) : t('ask.quotesMode')}
      {first && (language() === 'zh' ? '' : ' '/* Chinese sentences are not spaced */)}
      {first && t('ask.quotesHowTo')}
    </p>
  );
}

/** noticeText: what the app says instead of the service's sentence when nothing is quoted. */
function noticeText(notice: AnswerNotice): string {
  switch (notice.kind) {
    case 'other_script':
      return otherScriptNotice(notice.scripts);
    case 'other_language':
      return otherLanguageNotice(notice.languages);
    case 'no_match':
      return t('ask.noMatch');
  }
}

/** ScopeLine says what a question is asked of: the current vehicle's manuals (one tap asks every manual) or every manual. */
function ScopeLine({ scope, vehicle, every, onEvery }: { scope: AskScope<DocumentInfo>; vehicle?: string; every: boolean; onEvery: (every: boolean) => void }) {
  const names = scope.manuals.map((d) => d.title.trim() || d.fileName).join(', ');
  if (scope.vehicle) {
    return (
      <p class="ask-scope">
        {t('ask.scopeVehicle', { vehicle: scope.vehicle, manuals: names })}{' '}
        <button type="button" class="link" onClick={() => onEvery(true)}>{t('ask.scopeAll')}</button>
      </p>
    );
  }
  if (every && vehicle && scope.manuals.length > 0) {
    return (
      <p class="ask-scope">
        {t('ask.scopeEvery')}{' '}
        <button type="button" class="link" onClick={() => onEvery(false)}>{t('ask.scopeOnly', { vehicle })}</button>
      </p>
    );
  }
  if (vehicle) return <p class="ask-scope hint">{t('ask.scopeNone', { vehicle })} <a href="/vehicles">{t('ask.scopeLink')}</a></p>;
  return null;
}

/** AnsweredFrom says which vehicle's manuals an answer comes from. */
function AnsweredFrom({ scope }: { scope: AskScope }) {
  return scope.vehicle ? <p class="hint answered-from">{t('ask.answeredFrom', { vehicle: scope.vehicle })}</p> : null;
}

/** accounts: AUTH_MODE=local, where opening a source needs the bearer token. */
export function Ask({ accounts, vehicles, chosen }: { accounts: boolean } & VehicleContext) {
  const online = useOnline();
  const docs = useResource<DocumentInfo[]>('/api/documents');
  // One tap asks every manual; a change of vehicle asks its manuals again.
  const [every, setEvery] = useState(false);
  const vehicle = vehicles?.find((v) => v.id === chosen);
  useEffect(() => setEvery(false), [chosen]);
  const scope = askScope(vehicle, docs.data, every);
  const [question, setQuestion] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [current, setCurrent] = useState<Turn | null>(null);
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  // The page view is a history entry of its own (/ask?doc=...&page=...): the phone's back button closes it.
  const [view, setView] = useState<PageRef | null>(() => parsePageView(location.search));
  useEffect(() => {
    const follow = () => setView(location.pathname === '/ask' ? parsePageView(location.search) : null);
    window.addEventListener('popstate', follow);
    return () => window.removeEventListener('popstate', follow);
  }, []);
  const openPage = (s: Source) => {
    const ref = pageRefOf(s);
    history.pushState({ pageView: true }, '', '/ask' + pageViewSearch(ref));
    setView(ref);
  };
  const closePage = () => {
    // Opened from here: back to the entry before it. Arrived at directly (a reload, a shared link): the address loses the view.
    if ((history.state as { pageView?: boolean } | null)?.pageView) history.back();
    else {
      history.replaceState(null, '', '/ask');
      setView(null);
    }
  };

  async function submit(e: Event) {
    e.preventDefault();
    const q = question.trim();
    if (!q) return setError(t('ask.errEmpty'));
    if (!navigator.onLine) return setError(t('ask.offline'));
    setError(null);
    // A failed turn is neither kept nor sent as history: its answer is not one.
    // Every turn stays on the page; ask() sends only the last ten (trimHistory).
    const done = current && !current.failed ? [current] : [];
    const history: ChatMessage[] = [...turns, ...done].flatMap((t) => [
      { role: 'user' as const, content: t.question },
      { role: 'assistant' as const, content: t.answer },
    ]);
    if (done.length > 0) setTurns((ts) => [...ts, ...done]);
    const turn: Turn = { question: q, answer: '', sources: [], more: [], used: null, mode: null, scope };
    setCurrent(turn);
    setQuestion('');
    setStreaming(true);
    abort.current = new AbortController();
    try {
      await ask(q, history, {
        onSources: (sources, mode, more, notice) => setCurrent((t) => (t ? { ...t, sources, mode, more, notice } : t)),
        onUsed: (used) => setCurrent((t) => (t ? { ...t, used } : t)),
        onContent: (piece) => setCurrent((t) => (t ? { ...t, answer: t.answer + piece } : t)),
      }, abort.current.signal, scope.documents);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      const message = err instanceof NetworkError ? t('ask.networkFailed', { message: err.message }) : (err as Error).message;
      setCurrent((t) => (t ? { ...t, failed: message } : t));
    } finally {
      setStreaming(false);
      abort.current = null;
    }
  }

  // Enter asks, as in a chat; Shift+Enter starts a new line. An Enter that
  // ends an input method's composition (pinyin, kana) only confirms the
  // characters (keyCode 229 is how Safari says so).
  function askOnEnter(e: KeyboardEvent) {
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing || e.keyCode === 229) return;
    e.preventDefault();
    if (!streaming) (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
  }

  // The conversation's first quoted turn, which says that no model is set up (-1: none yet).
  const firstQuoted = turns.findIndex((turn) => turn.mode === 'quotes');

  return (
    <>
      <h1 tabIndex={-1}>{t('nav.ask')}</h1>
      <p>{t('ask.intro')}</p>
      {!online && <p class="notice" role="status">{t('ask.offline')}</p>}
      {turns.length > 0 && (
        <section aria-labelledby="earlier-h">
          <h2 id="earlier-h">{t('ask.earlier')}</h2>
          {turns.map((turn, i) => (
            <div class="turn" key={i}>
              <p class="q">{turn.question}</p>
              <AnsweredFrom scope={turn.scope} />
              {turn.mode === 'quotes' && <QuotesNotice notice={turn.notice} first={i === firstQuoted} />}
              {!turn.notice && <p class="a">{turn.answer}</p>}
              <Sources turn={turn} label={t('ask.sourcesOf', { n: i + 1 })} onOpen={openPage} />
            </div>
          ))}
        </section>
      )}
      {current && (
        <div class="turn">
          <p class="q">{current.question}</p>
          <section class="answer" role="region" aria-label={t('ask.answer')} aria-live="polite" aria-busy={streaming}>
            {current.failed ? (
              <p class="error" role="alert">{t('ask.noAnswer', { message: current.failed })}</p>
            ) : (
              <>
                <AnsweredFrom scope={current.scope} />
                {current.mode === 'quotes' && <QuotesNotice notice={current.notice} first={firstQuoted === -1} />}
                {/* The notice says what the service's sentence says, in the app's language. */}
                {!current.notice && <p class="a">{current.answer || (streaming ? t('ask.looking') : '')}</p>}
              </>
            )}
          </section>
          {!current.failed && <Sources turn={current} label={t('ask.sources')} onOpen={openPage} />}
        </div>
      )}
      <form class="form" onSubmit={(e) => void submit(e)}>
        <ScopeLine scope={scope} vehicle={vehicle?.name} every={every} onEvery={setEvery} />
        <div class="field">
          <label for="question">{t('ask.question')}</label>
          <textarea id="question" rows={3} maxLength={8000} value={question} onInput={(e) => setQuestion(e.currentTarget.value)}
            placeholder={t('ask.placeholder')} aria-describedby="question-hint" onKeyDown={askOnEnter} />
          <p id="question-hint" class="hint">{t('ask.enterHint')}</p>
        </div>
        <ErrorText error={error} />
        <div class="buttons">
          <button type="submit" disabled={streaming || !online}>{t('ask.ask')}</button>
          {streaming && <button type="button" class="secondary" onClick={() => abort.current?.abort()}>{t('ask.stop')}</button>}
          {!streaming && (turns.length > 0 || current) && (
            <button type="button" class="secondary" onClick={() => { setTurns([]); setCurrent(null); }}>{t('ask.newConversation')}</button>
          )}
        </div>
      </form>
      {view && <PageView key={`${view.md5}/${view.page}`} view={view} withToken={accounts} onClose={closePage} />}
    </>
  );
}
