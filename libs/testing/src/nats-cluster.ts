import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { untilListening } from './engines';
import { freePort } from './processes';

const NATS_SERVER = process.env['NATS_SERVER_BIN'] ?? '/usr/sbin/nats-server';

/** A JetStream cluster of its own on side ports (never the shared server), for failover tests. */
export interface NatsCluster {
  /** Client URLs, comma-separated (connectBus's `servers`). */
  readonly servers: string;
  /** Server names, node index order (`n0`, `n1`, ...): what stream info reports as leader and replicas. */
  readonly names: readonly string[];
  /** kill -9 of node `i`. */
  kill(i: number): Promise<void>;
  /** Starts node `i` again with its storage (after kill). */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'gridlab-nats-cluster-'));
  const clientPorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routePorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const names = clientPorts.map((_, i) => `n${i}`);
  const nodes: (ChildProcess | null)[] = new Array<ChildProcess | null>(size).fill(null);
  const routes = routePorts.map((p) => `nats://127.0.0.1:${p}`).join(',');
  const start = async (i: number): Promise<void> => {
    const child = spawn(
      NATS_SERVER,
      ['-a', '127.0.0.1', '-p', String(clientPorts[i]), '-n', names[i]!, '-js', '-sd', join(dir, names[i]!), '--cluster_name', 'gridlab-test', '--cluster', `nats://127.0.0.1:${routePorts[i]}`, '--routes', routes],
      { stdio: 'ignore' },
    );
    nodes[i] = child;
    await untilListening(clientPorts[i]!, `nats-server ${names[i]}`, child);
  };
  const kill = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const child = nodes[i];
      if (child === null || child === undefined || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
      nodes[i] = null;
    });
  await Promise.all(names.map((_, i) => start(i)));
  return {
    servers: clientPorts.map((p) => `nats://127.0.0.1:${p}`).join(','),
    names,
    kill,
    restart: start,
    stop: async () => {
      await Promise.all(names.map((_, i) => kill(i)));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
