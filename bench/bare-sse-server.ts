/**
 * The SSE fan-out baseline: a bare Node http server that does nothing but hold
 * /stream sockets and write each snapshot it receives on NATS, framed once, to all of
 * them: what this machine can do for the same clients, frames and trigger, without the
 * gateway's authentication, limits and coalescing. Run by sse-fanout.bench.ts as its own
 * process, like the gateway. Settings: PORT, NATS_URL, SUBJECT, INITIAL (a snapshot's JSON).
 */
import { createServer, type ServerResponse } from 'node:http';
import { connectBus } from '@gridlab/bus';
import { createLogger } from '@gridlab/logger';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const clients = new Set<ServerResponse>();
let seq = 0;
const frame = (data: Uint8Array | string): Buffer => Buffer.concat([Buffer.from(`event: snapshot\nid: ${++seq}\ndata: `), Buffer.from(data), Buffer.from('\n\n')]);
let latest = frame(env('INITIAL'));

const server = createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
  res.socket?.setNoDelay(true);
  res.write(latest);
  clients.add(res);
  req.on('close', () => clients.delete(res));
});
server.keepAliveTimeout = 0;
server.headersTimeout = 0;
server.requestTimeout = 0;

async function main(): Promise<void> {
  const nc = await connectBus({ servers: env('NATS_URL'), name: 'bench-bare-sse', logger: createLogger({ service: 'bench', silent: true }) });
  nc.subscribe(env('SUBJECT'), {
    callback: (_error, msg) => {
      latest = frame(msg.data);
      for (const client of clients) client.write(latest);
    },
  });
  await nc.flush();
  server.listen(Number(env('PORT')), '127.0.0.1', () => process.stdout.write('ready\n'));
  process.on('SIGTERM', () => {
    for (const client of clients) client.destroy();
    server.close();
    void nc.close().then(() => process.exit(0));
  });
}

void main();
