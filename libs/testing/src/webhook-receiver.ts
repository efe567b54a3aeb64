import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answersOk, freePort, startService, type ServiceProcess } from './processes';

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

/** A notifier process allowed to post to `receiver` (loopback, http, its port only), ready once it answers commands and has read the rules. */
export async function startNotifierFor(
  receiver: WebhookReceiver,
  where: { readonly databaseUrl: string; readonly natsPrefix: string },
  env: Readonly<Record<string, string>> = {},
): Promise<{ readonly process: ServiceProcess; readonly opsPort: number }> {
  const opsPort = await freePort();
  const process = await startService(
    'services/notifier/src/main.ts',
    {
      ...globalThis.process.env,
      DATABASE_URL: where.databaseUrl,
      NATS_PREFIX: where.natsPrefix,
      OPS_PORT: String(opsPort),
      LOG_LEVEL: 'warn',
      NOTIFIER_ALLOW_HTTP: 'true',
      NOTIFIER_ALLOW_PRIVATE: 'true',
      NOTIFIER_TARGET_PORTS: String(receiver.port),
      ...env,
    },
    () => answersOk(`http://127.0.0.1:${opsPort}/readyz`).catch(() => false),
    60_000,
  );
  return { process, opsPort };
}
