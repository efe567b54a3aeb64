import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST a receiver took. */
export interface WebhookReceipt {
  /** performance.now() when its body had arrived. */
  readonly at: number;
  /** The `webhook-id` header. */
  readonly id: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent (what a signature covers). */
  readonly raw: string;
  /** The status it was answered with. */
  readonly status: number;
}

/** A subscriber's webhook endpoint on loopback: records every POST and answers it with `status` (204 unless changed). */
export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly receipts: WebhookReceipt[];
  /** What the next POSTs are answered with: 204, or 503 for a receiver that is down. */
  status: number;
  stop(): Promise<void>;
}

/** Starts a webhook receiver on 127.0.0.1, on any free port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receipts: WebhookReceipt[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = receiver.status;
      receipts.push({ at: performance.now(), id: String(req.headers['webhook-id']), headers: req.headers as Record<string, string>, raw: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status).end(status >= 300 ? 'receiver down' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    receipts,
    status: 204,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return receiver;
}
