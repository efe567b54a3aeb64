/**
 * `make start`: runs the devnet and every service as child processes in the
 * foreground, with prefixed output. Ctrl-C (SIGINT) or SIGTERM stops them all. A process
 * that exits on its own is restarted, as Kubernetes would, after a back-off (1 s doubling
 * to 30 s; back to 1 s once it ran a minute), and the output says so.
 * GRIDLAB_REPLICAS=2 (`make start REPLICAS=2`) runs two replicas of every service (one
 * devnet): the second gateway listens on the next port, second replicas take any free ops
 * port, and the single writers' logs show which holds the lock and which stands by, so
 * failover can be watched by stopping a leader.
 * Each process runs its bundle, as production does: `make start` builds them first
 * (`node scripts/build.mjs --local`, into GRIDLAB_BUILD_DIR, default .gridlab/build).
 * GRIDLAB_DEV=1 (`make dev`) runs the sources under `tsx watch` instead, each process
 * restarting when a file it loaded changes.
 * Settings come from the environment (see README "Configuration"); defaults give a
 * complete local suite. The devnet keeps its chain in GRIDLAB_DATA_DIR/devnet (default
 * .gridlab/devnet), so a restart continues it; `make reset` starts over from genesis.
 *
 * For tests and side-by-side runs: GRIDLAB_SUITE (comma-separated process names, default
 * all), GRIDLAB_DATA_DIR, and <NAME>_OPS_PORT per service (INDEXER_OPS_PORT,
 * LAB_FORWARD_OPS_PORT, ...) override the fixed ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DATA_DIR = process.env['GRIDLAB_DATA_DIR'] ?? join(ROOT, '.gridlab');
const BUILD_DIR = process.env['GRIDLAB_BUILD_DIR'] ?? join(ROOT, '.gridlab', 'build');
const DEV = process.env['GRIDLAB_DEV'] === '1';
const STOP_GRACE_MS = 12_000;
const GATEWAY_URL = `http://${process.env['HOST'] ?? '127.0.0.1'}:${process.env['PORT'] ?? '8080'}`;
const RPC_URL = process.env['SOLANA_RPC_URL'] ?? 'http://127.0.0.1:8899';

interface ProcessSpec {
  readonly name: string;
  readonly entry: string;
  readonly env?: Record<string, string>;
}

const ALL: readonly ProcessSpec[] = [
  {
    name: 'devnet',
    entry: 'tools/devnet/src/main.ts',
    env: {
      DEVNET_HISTORY_ROUNDS: process.env['DEVNET_HISTORY_ROUNDS'] ?? '20000',
      DEVNET_LEDGER_DIR: process.env['DEVNET_LEDGER_DIR'] ?? join(DATA_DIR, 'devnet'),
    },
  },
  {
    name: 'indexer',
    entry: 'services/indexer/src/main.ts',
    // The local devnet serves without limits unless DEVNET_RPC_LIMITS sets some: match them.
    // Its history starts at round 1, most of it closed: the indexer rebuilds all of it.
    env: { RPC_LIMITS: process.env['RPC_LIMITS'] ?? process.env['DEVNET_RPC_LIMITS'] ?? 'none', HISTORY_FROM_ROUND: process.env['HISTORY_FROM_ROUND'] ?? '1' },
  },
  {
    name: 'api-gateway',
    entry: 'services/api-gateway/src/main.ts',
    // The devnet RPC answers cross-origin requests, as public RPCs do: the dashboard pays through it.
    env: { OPS_PORT: process.env['GATEWAY_OPS_PORT'] ?? '9106', PUBLIC_RPC_URL: process.env['PUBLIC_RPC_URL'] ?? RPC_URL },
  },
  { name: 'billing', entry: 'services/billing/src/main.ts' },
  { name: 'event-log', entry: 'services/event-log/src/main.ts' },
  { name: 'lab-forward', entry: 'services/lab-forward/src/main.ts' },
  {
    name: 'lab-backtest',
    entry: 'services/lab-backtest/src/main.ts',
    // The round history on transparent huge pages, as k8s/base/lab-backtest.yaml runs it.
    env: { GLIBC_TUNABLES: process.env['GLIBC_TUNABLES'] ?? 'glibc.malloc.hugetlb=1' },
  },
  { name: 'notifier', entry: 'services/notifier/src/main.ts' },
];
const ONLY = process.env['GRIDLAB_SUITE']?.split(',').map((n) => n.trim());
const REPLICAS = Number(process.env['GRIDLAB_REPLICAS'] ?? '1');
if (!Number.isInteger(REPLICAS) || REPLICAS < 1 || REPLICAS > 4) {
  process.stderr.write('GRIDLAB_REPLICAS must be 1 to 4\n');
  process.exit(2);
}
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;
/** A process that ran this long is healthy again: its next restart waits RESTART_FIRST_MS. */
const HEALTHY_AFTER_MS = 60_000;

const SUITE: readonly ProcessSpec[] = ALL.filter((s) => ONLY === undefined || ONLY.includes(s.name)).flatMap((s) => {
  const port = process.env[`${s.name.toUpperCase().replace(/-/g, '_')}_OPS_PORT`];
  const first = port === undefined ? s : { ...s, env: { ...s.env, OPS_PORT: port } };
  if (s.name === 'devnet') return [first];
  return [first, ...Array.from({ length: REPLICAS - 1 }, (_, i) => replica(s, i + 2))];
});

/** Replica n (2, 3, ...) of a service: its own name, any free ops port, the gateway on the next public port. */
function replica(spec: ProcessSpec, n: number): ProcessSpec {
  const gatewayPort = spec.name === 'api-gateway' ? { PORT: String(Number(process.env['PORT'] ?? '8080') + n - 1) } : {};
  return { name: `${spec.name}-${n}`, entry: spec.entry, env: { ...spec.env, OPS_PORT: '0', ...gatewayPort } };
}

/**
 * A secret of this checkout: from the environment, else generated once into .gridlab/
 * (git-ignored, mode 0600), where `pnpm -s gridlab admin ...` finds the API key one too.
 */
function localSecret(envName: string, file: string, generate: () => string): string {
  const fromEnv = process.env[envName];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const path = join(DATA_DIR, file);
  if (!existsSync(path)) {
    mkdirSync(DATA_DIR, { recursive: true });
    writeFileSync(path, generate(), { mode: 0o600 });
  }
  return readFileSync(path, 'utf8').trim();
}

/** The API key HMAC secret (billing, the gateway and the CLI share it). */
const apiKeySecret = (): string => localSecret('API_KEY_HMAC_SECRET', 'api-key-hmac-secret', () => randomBytes(32).toString('hex'));
/** The dashboard session keys (the gateway's alone; key id `local`). */
const sessionSecret = (): string => localSecret('SESSION_SECRET', 'session-secret', () => `local:${randomBytes(32).toString('hex')}`);

const COLORS = [36, 33, 32, 35, 34, 31, 90];
const width = Math.max(...SUITE.map((s) => s.name.length));
const children = new Map<string, ChildProcess>();
/** Restarts waiting for their back-off, by process name. */
const pendingRestarts = new Map<string, NodeJS.Timeout>();
const restarts = new Map<string, { count: number; delayMs: number }>();
let stopping = false;

function prefix(name: string, index: number): string {
  const label = name.padEnd(width);
  return process.stdout.isTTY ? `\x1b[${COLORS[index % COLORS.length]}m${label}\x1b[0m │ ` : `${label} | `;
}

function pipeLines(stream: NodeJS.ReadableStream, out: NodeJS.WriteStream, tag: string): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) out.write(`${tag}${line}\n`);
  });
  stream.on('end', () => {
    if (buffered !== '') out.write(`${tag}${buffered}\n`);
  });
}

/** The bundle scripts/build.mjs --local writes for a process's entry (`services/indexer/src/main.ts` → indexer). */
function bundleOf(entry: string): string {
  return join(BUILD_DIR, entry.split('/')[1]!, 'main.js');
}

/**
 * The command line of a process: its bundle, or under GRIDLAB_DEV its source with
 * `tsx watch` (tsx's own command, run by this Node binary so signals reach the watcher,
 * which passes them on).
 */
function commandLine(spec: ProcessSpec): string[] {
  if (DEV) return [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'watch', '--clear-screen=false', join(ROOT, spec.entry)];
  return ['--enable-source-maps', bundleOf(spec.entry)];
}

function start(spec: ProcessSpec, index: number): void {
  const child = spawn(process.execPath, commandLine(spec), {
    cwd: ROOT,
    // The gateway's own URL is the public origin here, unless set: signed subscribe messages name it.
    // The dashboard opened as localhost works too (PUBLIC_ORIGIN names 127.0.0.1).
    env: { PUBLIC_ORIGIN: GATEWAY_URL, DASHBOARD_ORIGINS: GATEWAY_URL.replace('//127.0.0.1:', '//localhost:'), ...process.env, API_KEY_HMAC_SECRET: apiKeySecret(), SESSION_SECRET: sessionSecret(), ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tag = prefix(spec.name, index);
  pipeLines(child.stdout, process.stdout, tag);
  pipeLines(child.stderr, process.stderr, tag);
  children.set(spec.name, child);
  const startedAt = Date.now();
  child.on('exit', (code, signal) => {
    children.delete(spec.name);
    if (stopping) return;
    const state = restarts.get(spec.name) ?? { count: 0, delayMs: RESTART_FIRST_MS };
    const delayMs = Date.now() - startedAt >= HEALTHY_AFTER_MS ? RESTART_FIRST_MS : state.delayMs;
    restarts.set(spec.name, { count: state.count + 1, delayMs: Math.min(delayMs * 2, RESTART_MAX_MS) });
    const how = signal === null ? `code ${code}` : `signal ${signal}`;
    process.stderr.write(`${tag}exited with ${how}; restarting in ${delayMs / 1000} s (restart ${state.count + 1})\n`);
    pendingRestarts.set(
      spec.name,
      setTimeout(() => {
        pendingRestarts.delete(spec.name);
        if (!stopping) start(spec, index);
      }, delayMs),
    );
  });
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const timer of pendingRestarts.values()) clearTimeout(timer);
  process.stdout.write('\nstopping the suite...\n');
  const exits = [...children.values()].map((child) => new Promise<void>((resolve) => child.once('exit', () => resolve())));
  for (const child of children.values()) child.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const [name, child] of children) {
      process.stderr.write(`${name} did not stop within ${STOP_GRACE_MS / 1000} s; killing it\n`);
      child.kill('SIGKILL');
    }
  }, STOP_GRACE_MS);
  await Promise.all(exits);
  clearTimeout(timer);
  process.exit(exitCode);
}

async function waitFor(url: string, init: RequestInit | undefined, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    try {
      if ((await fetch(url, init)).ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  const unbuilt = DEV ? [] : SUITE.filter((spec) => !existsSync(bundleOf(spec.entry)));
  if (unbuilt.length > 0) {
    process.stderr.write(`not built: ${unbuilt.map((spec) => bundleOf(spec.entry)).join(', ')}\n(make start builds first; or node scripts/build.mjs --local; make dev runs the sources)\n`);
    process.exit(2);
  }
  const [first, ...rest] = SUITE;
  if (first?.name === 'devnet') {
    start(first, 0);
    // Services could start before the chain answers (they retry), but a clean log is nicer.
    const health = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"getHealth"}' };
    if (!(await waitFor(RPC_URL, health, 120_000))) return;
    rest.forEach((spec, i) => start(spec, i + 1));
  } else {
    SUITE.forEach((spec, i) => start(spec, i));
  }
  if (await waitFor(`${GATEWAY_URL}/healthz`, undefined, 60_000)) {
    process.stdout.write(
      `\n  Gridlab is up.\n  Dashboard:   ${GATEWAY_URL}/   (sign in with an API key or your wallet)\n  Gateway:     ${GATEWAY_URL}   (health: ${GATEWAY_URL}/healthz, readiness: ${GATEWAY_URL}/readyz)\n` +
        `  Solana RPC:  ${RPC_URL} (devnet)\n  Indexer ops: http://127.0.0.1:9101/readyz\n` +
        `  An API key: pnpm -s gridlab admin grant --owner <base58 wallet> --days 30\n` +
        `  Then:       curl -H "Authorization: Bearer <apiKey>" ${GATEWAY_URL}/api/v1/live\n  Ctrl-C stops everything.\n\n`,
    );
  }
}

void main();
