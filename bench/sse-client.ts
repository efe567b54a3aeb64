import type { IncomingMessage } from 'node:http';

/**
 * Calls `onSnapshot(slot, receivedAt)` for each snapshot event of a /stream response
 * (the slot identifies the snapshot; the time is taken when its bytes arrived).
 */
export function onSnapshots(res: IncomingMessage, onSnapshot: (slot: number, receivedAt: number) => void): void {
  res.setEncoding('utf8');
  let buffered = '';
  res.on('data', (text: string) => {
    const now = performance.now();
    buffered += text;
    let end;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const slot = /"slot":(\d+)/.exec(block);
      if (slot !== null) onSnapshot(Number(slot[1]), now);
    }
  });
}
