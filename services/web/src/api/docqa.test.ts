import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BLOB_LIFETIME, fileUrl, openFile } from './docqa';
import { ApiError, NetworkError } from './http';
import { MemoryKeyValue, sessions } from './session';

/** A stand-in for the tab window.open gives: what openFile sets on it is read back. */
interface Tab {
  opener: unknown;
  closed: boolean;
  location: { href: string };
  document: { title: string; body: { textContent: string } };
  close(): void;
}

function newTab(): Tab {
  return {
    opener: { app: true },
    closed: false,
    location: { href: 'about:blank' },
    document: { title: '', body: { textContent: '' } },
    close() {
      this.closed = true;
    },
  };
}

const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<< >>\nendobj\n%%EOF\n');
const future = new Date(Date.now() + 3_600_000).toISOString();

let tab: Tab;
let open: ReturnType<typeof vi.fn>;
let fetched: { url: string; headers: Record<string, string> }[];
let created: Blob[];
let revoked: string[];
let events: string[];
let kv: MemoryKeyValue;
let unsubscribe: () => void;

/** answerWith makes fetch record the request and settle with what the returned function is given. */
function answerWith() {
  let settle!: (r: Response | Error) => void;
  const answer = new Promise<Response | Error>((ok) => (settle = ok));
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    fetched.push({ url, headers: init.headers as Record<string, string> });
    const r = await answer;
    if (r instanceof Error) throw r;
    return r;
  });
  return settle;
}

beforeEach(async () => {
  vi.useFakeTimers();
  tab = newTab();
  open = vi.fn(() => tab);
  vi.stubGlobal('window', { open });
  fetched = [];
  created = [];
  revoked = [];
  let n = 0;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
    created.push(b as Blob);
    return `blob:http://app.test/file-${++n}`;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation((u) => void revoked.push(u));
  kv = new MemoryKeyValue();
  sessions.useStore(kv);
  await sessions.signIn({ token: 'cs_7', expiresAt: future, user: { id: 7, username: 'a', is_admin: false } });
  events = [];
  unsubscribe = sessions.subscribe((e) => events.push(e));
});

afterEach(() => {
  unsubscribe();
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('fileUrl', () => {
  it('is the file route with the page as fragment, the md5 escaped', () => {
    expect(fileUrl('0cc175b9c0f1b6a831c399e269772661', 12)).toBe('/api/documents/0cc175b9c0f1b6a831c399e269772661/file#page=12');
    expect(fileUrl('a/b', 1)).toBe('/api/documents/a%2Fb/file#page=1');
  });
});

describe('openFile (accounts on)', () => {
  it('opens the tab before the file arrives, then shows the fetched PDF as a blob: URL at the page, revoked after a minute', async () => {
    const settle = answerWith();
    const done = openFile('abc', 3, 'manual.pdf');
    // Synchronously, inside the click: the tab, without a handle on the app.
    expect(open.mock.calls).toEqual([['', '_blank']]);
    expect(tab.opener).toBeNull();
    expect(tab.document.title).toBe('manual.pdf');
    expect(tab.document.body.textContent).toBe('Opening manual.pdf…');
    await vi.waitFor(() => expect(fetched).toHaveLength(1));
    expect(fetched[0]!.url).toBe('/api/documents/abc/file');
    expect(fetched[0]!.headers.Authorization).toBe('Bearer cs_7');
    expect(tab.location.href).toBe('about:blank');

    // The service's own type does not matter: the viewer is given a PDF.
    settle(new Response(PDF, { status: 200, headers: { 'Content-Type': 'application/octet-stream' } }));
    await done;
    expect(created).toHaveLength(1);
    expect(created[0]!.type).toBe('application/pdf');
    expect(new Uint8Array(await created[0]!.arrayBuffer())).toEqual(PDF);
    expect(tab.location.href).toBe('blob:http://app.test/file-1#page=3');
    expect(tab.closed).toBe(false);

    vi.advanceTimersByTime(BLOB_LIFETIME - 1);
    expect(revoked).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(revoked).toEqual(['blob:http://app.test/file-1']);
    expect(BLOB_LIFETIME).toBe(60_000);
  });

  it('a 404 closes the tab and rejects with the service message; the session stays', async () => {
    const settle = answerWith();
    const done = openFile('abc', 1, 'manual.pdf');
    settle(new Response(JSON.stringify({ code: 'NOT_FOUND', message: 'document abc not found' }), { status: 404, headers: { 'Content-Type': 'application/json' } }));
    const err = await done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).message).toBe('document abc not found');
    expect(tab.closed).toBe(true);
    expect(tab.location.href).toBe('about:blank');
    expect(created).toEqual([]);
    expect(kv.map.has('session')).toBe(true);
    expect(events).toEqual([]);
  });

  it('a 401 closes the tab and ends the session (the app shows the login screen)', async () => {
    const settle = answerWith();
    const done = openFile('abc', 1, 'manual.pdf');
    settle(new Response(JSON.stringify({ code: 'UNAUTHORIZED', message: 'a valid bearer token is required' }), { status: 401 }));
    await expect(done).rejects.toBeInstanceOf(ApiError);
    expect(tab.closed).toBe(true);
    expect(kv.map.has('session')).toBe(false);
    expect(events).toEqual(['refused']);
  });

  it('no answer (offline) closes the tab and rejects with a NetworkError', async () => {
    const settle = answerWith();
    const done = openFile('abc', 1, 'manual.pdf');
    settle(new TypeError('Failed to fetch'));
    const err = await done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe('No connection to the server');
    expect(tab.closed).toBe(true);
    expect(created).toEqual([]);
  });

  it('a file cut off while it arrives closes the tab and rejects with a NetworkError', async () => {
    const settle = answerWith();
    const done = openFile('abc', 1, 'manual.pdf');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(PDF.slice(0, 8));
        c.error(new TypeError('network error'));
      },
    });
    settle(new Response(body, { status: 200, headers: { 'Content-Type': 'application/pdf' } }));
    const err = await done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe('The file was cut off');
    expect(tab.closed).toBe(true);
    expect(created).toEqual([]);
  });

  it('a blocked tab asks nothing of the server and says why', async () => {
    answerWith();
    open.mockReturnValue(null);
    await expect(openFile('abc', 1, 'manual.pdf')).rejects.toThrow('The browser blocked the new tab: allow pop-ups for this site');
    expect(fetched).toEqual([]);
  });
});
