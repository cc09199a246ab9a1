// What of a conversation goes with a question: docqa refuses more than 40
// history items and any item over 16000 characters, so the client sends the
// last 10 turns, each item cut to its first 16000 code points.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ask, firstCodePoints, HISTORY_CHARS, HISTORY_ITEMS, trimHistory, type ChatMessage } from './docqa';
import { MemoryKeyValue, sessions } from './session';

/** turns: n question-and-answer pairs, numbered from 1. */
const turns = (n: number): ChatMessage[] =>
  Array.from({ length: n }, (_, i) => [
    { role: 'user' as const, content: `q${i + 1}` },
    { role: 'assistant' as const, content: `a${i + 1}` },
  ]).flat();

const codePoints = (s: string) => [...s].length;
const endsInHalfPair = (s: string) => /[\uD800-\uDBFF]$/.test(s);

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('trimHistory', () => {
  it('keeps the last 10 turns, in order, starting with a question', () => {
    expect(HISTORY_ITEMS).toBe(20);
    const sent = trimHistory(turns(25));
    expect(sent).toHaveLength(20);
    expect(sent[0]).toEqual({ role: 'user', content: 'q16' });
    expect(sent.at(-1)).toEqual({ role: 'assistant', content: 'a25' });
    expect(sent.map((m) => m.content)).toEqual(turns(25).slice(30).map((m) => m.content));
  });

  it('a shorter conversation goes whole, and an empty one as none', () => {
    expect(trimHistory(turns(10))).toEqual(turns(10));
    expect(trimHistory(turns(3))).toEqual(turns(3));
    expect(trimHistory([])).toEqual([]);
  });

  it('cuts an item to its first 16000 characters; one of 16000 goes whole', () => {
    expect(HISTORY_CHARS).toBe(16_000);
    const exact = 'x'.repeat(16_000);
    const long = 'y'.repeat(16_000) + 'TAIL';
    const [a, b] = trimHistory([{ role: 'user', content: exact }, { role: 'assistant', content: long }]);
    expect(a!.content).toBe(exact);
    expect(b!.content).toBe('y'.repeat(16_000));
    expect(b!.role).toBe('assistant');
  });

  it('counts code points, not UTF-16 units: 16000 emoji are one item of 16000', () => {
    const emoji = '😀'.repeat(16_000); // 32000 UTF-16 units
    expect(trimHistory([{ role: 'assistant', content: emoji }])[0]!.content).toBe(emoji);
    const cut = trimHistory([{ role: 'assistant', content: emoji + '😀' }])[0]!.content;
    expect(codePoints(cut)).toBe(16_000);
    expect(cut).toBe(emoji);
  });

  it('never splits a surrogate pair where the cut falls', () => {
    const s = 'a'.repeat(15_999) + '😀😀'; // 16001 code points; the 16000th is a pair at units 15999-16000
    const cut = firstCodePoints(s, 16_000);
    expect(cut).toBe('a'.repeat(15_999) + '😀');
    expect(endsInHalfPair(cut)).toBe(false);
    expect(firstCodePoints('😀a😀', 2)).toBe('😀a');
    expect(firstCodePoints('\uD83Dab', 2)).toBe('\uD83Da'); // a lone half counts as one
  });
});

describe('ask', () => {
  it('sends the trimmed history with the question', async () => {
    sessions.useStore(new MemoryKeyValue()); // accounts off: no token
    let body = '';
    vi.stubGlobal('fetch', (_url: string, init: RequestInit) => {
      body = init.body as string;
      return Promise.reject(new TypeError('Failed to fetch'));
    });
    const history = turns(30);
    history[59] = { role: 'assistant', content: 'z'.repeat(20_000) };
    await expect(ask('why?', history, { onSources: () => undefined, onContent: () => undefined })).rejects.toThrow();
    const sent = JSON.parse(body) as { question: string; history: ChatMessage[] };
    expect(sent.question).toBe('why?');
    expect(sent.history).toHaveLength(20);
    expect(sent.history[0]).toEqual({ role: 'user', content: 'q21' });
    expect(sent.history[19]!.content).toBe('z'.repeat(16_000));
  });
});
