import { describe, expect, it } from 'vitest';
import { EventStreamReader, readEventStream, type StreamEvent } from './sse';

const stream = [
  'event: sources\ndata: {"sources":[{"fileName":"manual.pdf","fileMd5":"9e107d9d372bb6826bd81d3542a419d6","page":3}]}\n\n',
  ': ping\n\n',
  'data: {"content":"Every 15 000 km — "}\n\n',
  'data: {"content":"see p. 3 ✓"}\n\n',
  'event: done\ndata: {"finishReason":"stop"}\n\n',
].join('');

function collect(chunks: Uint8Array[]): StreamEvent[] {
  const got: StreamEvent[] = [];
  const r = new EventStreamReader((ev) => got.push(ev));
  for (const c of chunks) r.feed(c);
  r.end();
  return got;
}

const want: StreamEvent[] = [
  { event: 'sources', data: { sources: [{ fileName: 'manual.pdf', fileMd5: '9e107d9d372bb6826bd81d3542a419d6', page: 3 }] } },
  { event: 'message', data: { content: 'Every 15 000 km — ' } },
  { event: 'message', data: { content: 'see p. 3 ✓' } },
  { event: 'done', data: { finishReason: 'stop' } },
];

describe('EventStreamReader', () => {
  const bytes = new TextEncoder().encode(stream);

  it('reads a stream in one chunk', () => {
    expect(collect([bytes])).toEqual(want);
  });

  it('reads a stream cut at every byte (frames and UTF-8 characters split)', () => {
    const chunks = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(collect(chunks)).toEqual(want);
  });

  it('reads a stream cut at every possible single point', () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(collect([bytes.slice(0, cut), bytes.slice(cut)])).toEqual(want);
    }
  });

  it('sends an event only when its frame is complete', () => {
    const got: StreamEvent[] = [];
    const r = new EventStreamReader((ev) => got.push(ev));
    r.feed('data: {"content":"a"}\n');
    expect(got).toEqual([]);
    r.feed('\n');
    expect(got).toEqual([{ event: 'message', data: { content: 'a' } }]);
  });

  it('reads a fetch body', async () => {
    const parts = [bytes.slice(0, 7), bytes.slice(7, 100), bytes.slice(100)];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.close();
      },
    });
    const got: StreamEvent[] = [];
    await readEventStream(body, (ev) => got.push(ev));
    expect(got).toEqual(want);
  });
});
