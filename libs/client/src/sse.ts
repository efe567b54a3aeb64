/**
 * Server-sent events over fetch (works in Node ≥ 20 and browsers, with headers, unlike
 * EventSource): a parser of the text/event-stream format, and a reader that reconnects.
 */

export interface SseMessage {
  readonly id: string | null;
  readonly event: string;
  readonly data: string;
  /** The server's `retry:` advice in ms, when the message carried one. */
  readonly retry: number | null;
}

/** Incremental text/event-stream parser (the HTML Living Standard's rules). */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | null = null;
  private retry: number | null = null;
  private seenId = false;

  /** Feeds decoded text; returns the messages it completes. */
  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (match === null) break;
      // A lone \r at the very end may be the first half of \r\n: wait for more text.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message !== null) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | null {
    if (line === '') {
      const message =
        this.data.length === 0
          ? null
          : { id: this.seenId ? this.id : null, event: this.event === '' ? 'message' : this.event, data: this.data.join('\n'), retry: this.retry };
      this.data = [];
      this.event = '';
      this.retry = null;
      this.seenId = false;
      return message;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) {
      this.id = value;
      this.seenId = true;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }
}

/** Decoded text chunks of a fetch body. */
export async function* textChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield decoder.decode(value, { stream: true });
    }
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Lines of an NDJSON body (empty lines skipped). */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = '';
  for await (const text of textChunks(body)) {
    buffer += text;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line !== '') yield line;
    }
  }
  if (buffer.trim() !== '') yield buffer.trim();
}
