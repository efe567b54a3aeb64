import { connect, type Socket } from 'node:net';

const SLOT = Buffer.from('"slot":');
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * Opens `GET <url>` as a /stream client over a plain TCP socket and calls
 * `onSnapshot(slot, receivedAt)` for each snapshot event (the slot identifies the
 * snapshot; the time is taken when its bytes arrived). Resolves with the socket once the
 * response status is 200; rejects on any other status.
 *
 * A raw socket rather than `node:http`: the benches hold thousands of clients in one
 * process on the gateway's own machine, and http's parser and stream machinery per event
 * would cost more than the gateway's work, so the figure would measure the client.
 */
export function openSnapshotStream(
  url: string,
  headers: Readonly<Record<string, string>>,
  onSnapshot: (slot: number, receivedAt: number) => void,
): Promise<Socket> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    socket.setNoDelay(true);
    let statusSeen = false;
    let pending: Buffer | null = null;
    socket.on('connect', () => {
      const lines = [`GET ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`, 'Accept: text/event-stream'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      const now = performance.now();
      const buf = pending === null ? chunk : Buffer.concat([pending, chunk]);
      pending = null;
      if (!statusSeen) {
        const eol = buf.indexOf('\r\n');
        if (eol < 0) {
          pending = buf;
          return;
        }
        const status = buf.toString('latin1', 0, eol);
        if (!/^HTTP\/1\.1 200 /.test(status)) {
          socket.destroy();
          reject(new Error(`stream answered ${status}`));
          return;
        }
        statusSeen = true;
        resolve(socket);
      }
      let pos = 0;
      for (;;) {
        const at = buf.indexOf(SLOT, pos);
        if (at < 0) {
          // Keep what could be the start of a split `"slot":`.
          const keep = Math.max(pos, buf.length - (SLOT.length - 1));
          if (keep < buf.length) pending = Buffer.from(buf.subarray(keep));
          return;
        }
        let end = at + SLOT.length;
        let slot = 0;
        while (end < buf.length && buf[end]! >= DIGIT_0 && buf[end]! <= DIGIT_9) slot = slot * 10 + (buf[end++]! - DIGIT_0);
        if (end === buf.length) {
          pending = Buffer.from(buf.subarray(at));
          return;
        }
        onSnapshot(slot, now);
        pos = end;
      }
    });
  });
}
