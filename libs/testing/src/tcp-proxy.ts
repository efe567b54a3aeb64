import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to a real server (PostgreSQL, Redis) that a test can cut and restore:
 * `cut()` closes the listener and every open connection (as a restarting server does),
 * `stall()` keeps the connections open but forwards nothing more to the server (as a
 * server that stopped answering) and keeps what clients send, `restore()` listens again
 * on the same port, or after a stall drops the stalled connections so clients reconnect.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  stall(): void;
  /** What clients sent since the last stall began (latin1): what they tried to tell the server. */
  heard(): string;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  let stalled = false;
  let heard = '';
  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(targetPort, targetHost);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        upstream.pipe(client);
        // Forwarded by hand (with back-pressure) so that a stall can hold what arrives.
        client.on('data', (chunk: Buffer) => {
          if (stalled) heard += chunk.toString('latin1');
          else if (!upstream.write(chunk)) {
            client.pause();
            upstream.once('drain', () => client.resume());
          }
        });
        client.on('end', () => upstream.end());
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const cut = (): Promise<void> =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (server === null) return resolve();
      server.close(() => resolve());
      server = null;
    });
  const stall = (): void => {
    stalled = true;
    heard = '';
  };
  const restore = async (): Promise<void> => {
    if (server === null) return listen();
    if (!stalled) return;
    stalled = false;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  await listen();
  return { port, cut, stall, heard: () => heard, restore, close: cut };
}
