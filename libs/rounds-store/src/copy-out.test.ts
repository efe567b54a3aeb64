import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { CopyOutQuery } from './copy-out';

/** A backend message: type byte, length (itself included), payload. */
function message(code: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(code, 0, 'latin1');
  header.writeInt32BE(payload.length + 4, 1);
  return Buffer.concat([header, payload]);
}

/** A connection whose socket delivers `bytes` cut at `cuts`; records what pg's own listener is given. */
function run(bytes: Buffer, cuts: number[]): { copied: Buffer; pg: Buffer; sent: string[] } {
  const stream = new EventEmitter();
  const pg: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => pg.push(Buffer.from(chunk)));
  const sent: string[] = [];
  const copied: Buffer[] = [];
  const query = new CopyOutQuery('COPY x TO STDOUT', (chunk, start, end, view) => {
    expect(view.byteLength).toBe(chunk.length);
    copied.push(Buffer.from(chunk.subarray(start, end)));
  });
  expect(query.submit({ stream, query: (text) => sent.push(text) })).toBeUndefined();
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const at of [...points, bytes.length]) {
    if (at > from) stream.emit('data', bytes.subarray(from, at));
    from = Math.max(from, at);
  }
  return { copied: Buffer.concat(copied), pg: Buffer.concat(pg), sent };
}

describe('copyOut (COPY TO STDOUT read off the socket)', () => {
  const rows = [Buffer.from('header+first row'), Buffer.alloc(0), Buffer.from('second'), Buffer.from([0xff, 0xff])];
  const after = Buffer.concat([message('C', Buffer.from('COPY 2\0')), message('Z', Buffer.from('I'))]);
  const copy = Buffer.concat([message('H', Buffer.from([1, 0, 0])), message('S', Buffer.from('a\0b\0')), ...rows.map((r) => message('d', r)), message('N', Buffer.from('notice')), message('c', Buffer.alloc(0))]);

  it('hands every CopyData payload to the sink and the messages after CopyDone to pg, however the socket cuts them', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const r = run(Buffer.concat([copy, after]), cuts);
        expect(r.sent).toEqual(['COPY x TO STDOUT']);
        expect(r.copied).toEqual(Buffer.concat(rows));
        expect(r.pg).toEqual(after);
      }),
    );
  });

  it('leaves an ErrorResponse, from its first byte, to pg', () => {
    const error = message('E', Buffer.from('SERROR\0Mboom\0\0'));
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
        const r = run(Buffer.concat([message('H', Buffer.from([1, 0, 0])), message('d', Buffer.from('partial')), error, message('Z', Buffer.from('I'))]), cuts);
        expect(r.copied.toString()).toBe('partial');
        expect(r.pg).toEqual(Buffer.concat([error, message('Z', Buffer.from('I'))]));
      }),
    );
  });

  it('fails with the sink’s error and keeps the socket from pg, which could not parse from mid-message', async () => {
    const stream = new EventEmitter();
    const pg: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => pg.push(chunk));
    const query = new CopyOutQuery('COPY x TO STDOUT', () => {
      throw new Error('bad tuple');
    });
    query.submit({ stream, query: () => undefined });
    stream.emit('data', Buffer.concat([message('d', Buffer.from('row')), message('d', Buffer.from('next'))]));
    stream.emit('data', message('c', Buffer.alloc(0)));
    await expect(query.done).rejects.toThrow('bad tuple');
    expect(pg).toEqual([]);
  });

  it('refuses a connection whose socket does not have pg’s one listener', () => {
    const query = new CopyOutQuery('COPY x TO STDOUT', () => undefined);
    expect(query.submit({ stream: new EventEmitter(), query: () => undefined })).toBeInstanceOf(Error);
  });
});
