// Reading the services' POST event streams: bytes from any number of network
// chunks go through one TextDecoder (a UTF-8 character may be split between
// chunks) into eventsource-parser (a frame may be split too), and each
// complete frame is handed on with its JSON data decoded.
import { createParser } from 'eventsource-parser';

export interface StreamEvent {
  /** The event name; "message" for unnamed events. */
  event: string;
  data: unknown;
}

/** EventStreamReader feeds raw chunks and calls onEvent once per complete frame. */
export class EventStreamReader {
  private readonly decoder = new TextDecoder();
  private readonly parser;

  constructor(onEvent: (ev: StreamEvent) => void) {
    this.parser = createParser({
      onEvent(msg) {
        let data: unknown;
        try {
          data = JSON.parse(msg.data);
        } catch {
          data = msg.data;
        }
        onEvent({ event: msg.event ?? 'message', data });
      },
    });
  }

  /** feed takes the next bytes (or text) of the stream. */
  feed(chunk: Uint8Array | string): void {
    this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
  }

  /** end flushes the decoder at the end of the stream. */
  end(): void {
    const rest = this.decoder.decode();
    if (rest) this.parser.feed(rest);
  }
}

/** readEventStream reads a fetch body to its end, calling onEvent per frame. */
export async function readEventStream(body: ReadableStream<Uint8Array>, onEvent: (ev: StreamEvent) => void): Promise<void> {
  const reader = new EventStreamReader(onEvent);
  const r = body.getReader();
  for (;;) {
    const { done, value } = await r.read();
    if (done) break;
    reader.feed(value);
  }
  reader.end();
}
