import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildTarget, nodeArgs } from './build';
import { runCli } from './cli';
import { WORKSPACE_ROOT } from './paths';
import { freePort } from './processes';

/** The dashboard session keys of every test gateway (SESSION_SECRET: one key, id `test`). */
export const TEST_SESSION_SECRET = 'test:session-secret-of-the-test-gateways-0123456789';

/** The local suite (deploy/local/run-suite.ts, what `make start` runs) as a child process. */
export interface LocalSuite {
  /** The runner's process id (its children are the suite's processes). */
  readonly pid: number;
  /** The last 200,000 characters it printed. */
  output(): string;
  /** SIGTERM, as Ctrl-C would; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Starts the local suite with `env` on top of this process's environment (GRIDLAB_SUITE picks the processes). */
export function startLocalSuite(env: NodeJS.ProcessEnv): LocalSuite {
  let output = '';
  const child: ChildProcess = spawn(process.execPath, nodeArgs('deploy/local/run-suite.ts'), {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    pid: child.pid!,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * The suite runner's children running `entry` (a source path such as
 * `services/indexer/src/main.ts`, or its bundle when built), with their OPS_PORT setting:
 * replica 1 has the fixed ops port, further replicas '0'.
 */
export function suiteChildren(suitePid: number, entry: string): { pid: number; opsPort: string }[] {
  // The suite runner starts a bundle (`<build dir>/indexer/main.js`), or the source under `make dev`.
  const bundle = `/${buildTarget(entry) ?? entry}/main.js`;
  let out = '';
  try {
    out = execFileSync('pgrep', ['-P', String(suitePid)], { encoding: 'utf8' }).trim();
  } catch {
    return []; // no child at the moment
  }
  return out
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!cmdline.includes(bundle) && !cmdline.includes(entry)) return [];
        const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        return [{ pid, opsPort: env.find((e) => e.startsWith('OPS_PORT='))?.slice('OPS_PORT='.length) ?? '' }];
      } catch {
        return []; // exited meanwhile
      }
    });
}

/**
 * TCP ports process `pid` listens on (from its socket inodes and /proc/net/tcp{,6}): how a
 * test finds a replica started on any free port (OPS_PORT=0). Empty once it has exited.
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m !== null) inodes.add(m[1]!);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return []; // exited
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex, st 0A is LISTEN, inode is the tenth field.
      if (f.length > 9 && f[3] === '0A' && inodes.has(f[9]!)) ports.add(parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** Polls `read` until `ok` holds; the error names `what`, the last value and `context()`. */
export async function waitUntil<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, options: { timeoutMs?: number; everyMs?: number; context?: () => string } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  let last: unknown;
  for (;;) {
    try {
      const value = await read();
      if (ok(value)) return value;
      last = value;
    } catch (error) {
      last = error instanceof Error ? error.message : error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}\n${options.context?.().slice(-4000) ?? ''}`);
    await new Promise((r) => setTimeout(r, options.everyMs ?? 300));
  }
}

/** The fenced blocks of a Markdown document marked ```ts example=<name>, by name. */
export function markdownExamples(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of markdown.matchAll(/^```ts example=([\w-]+)\n([\s\S]*?)^```$/gm)) found.set(m[1]!, m[2]!);
  return found;
}

/** Runs a TypeScript file with tsx as a reader would (`node --import tsx file.ts`) in `cwd`; resolves with its stdout. */
export async function runTypeScript(file: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 150_000): Promise<string> {
  const tsx = pathToFileURL(join(WORKSPACE_ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', tsx, file], { cwd, env: { ...process.env, ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${file} failed: ${error.message}\n${stdout}\n${stderr}`));
    });
  });
}

/** Type-checks the TypeScript project in `cwd` with the workspace's compiler; rejects with its report. */
export async function typeCheck(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd }, (error, stdout) => {
      if (error === null) resolve();
      else reject(new Error(`type errors in ${cwd}:\n${stdout}`));
    });
  });
}

/**
 * A reader's project in `dir`: an ES module package with a strict tsconfig and one
 * `<name>.ts` per example (its dependencies go into dir/node_modules: installPacked, linkDependency).
 */
export async function writeExampleProject(dir: string, examples: ReadonlyMap<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'examples', private: true, type: 'module' }));
  const compilerOptions = { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
  for (const [name, code] of examples) await writeFile(join(dir, `${name}.ts`), code);
}

/** What localSuiteEnv allocated: the environment for startLocalSuite and the addresses. */
export interface LocalSuiteEnv {
  readonly env: NodeJS.ProcessEnv;
  readonly gatewayUrl: string;
  readonly rpcUrl: string;
  /** Ops port (/readyz, /metrics) of each service by process name. */
  readonly opsPorts: Readonly<Record<string, number>>;
}

type SuiteService = 'indexer' | 'api-gateway' | 'billing' | 'event-log' | 'lab-forward' | 'lab-backtest' | 'notifier';

/**
 * The environment of a local suite for a test: the devnet (fast slots, `historyRounds`
 * settled rounds) and `services`, on free ports, with the test's own database and prefixes.
 */
export async function localSuiteEnv(options: {
  readonly services: readonly SuiteService[];
  readonly databaseUrl: string;
  readonly natsPrefix: string;
  readonly redisPrefix: string;
  readonly secret: string;
  readonly dataDir: string;
  readonly historyRounds: number;
}): Promise<LocalSuiteEnv> {
  const [rpcPort, wsPort, gatewayPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const opsPorts: Record<string, number> = {};
  const env: NodeJS.ProcessEnv = {
    GRIDLAB_SUITE: ['devnet', ...options.services].join(','),
    GRIDLAB_DATA_DIR: options.dataDir,
    DATABASE_URL: options.databaseUrl,
    NATS_PREFIX: options.natsPrefix,
    REDIS_PREFIX: options.redisPrefix,
    API_KEY_HMAC_SECRET: options.secret,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: 'warn',
    DEVNET_RPC_PORT: String(rpcPort),
    DEVNET_WS_PORT: String(wsPort),
    DEVNET_SLOT_MS: '40',
    DEVNET_ROUND_SLOTS: '15',
    DEVNET_INTERMISSION_SLOTS: '4',
    DEVNET_HISTORY_ROUNDS: String(options.historyRounds),
    SOLANA_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    SOLANA_WS_URL: `ws://127.0.0.1:${wsPort}`,
    RPC_LIMITS: 'none',
    HISTORY_FROM_ROUND: '1',
    SLOT_SECONDS: '0.04',
    POLL_INTERVAL_MS: '200',
    CATCH_UP_INTERVAL_MS: '200',
    PORT: String(gatewayPort),
    // Signed subscribe messages name the gateway clients call.
    PUBLIC_ORIGIN: `http://127.0.0.1:${gatewayPort}`,
    LAB_WORKERS: '1',
  };
  for (const service of options.services) {
    const port = await freePort();
    opsPorts[service] = port;
    // run-suite.ts reads <NAME>_OPS_PORT (the gateway's is GATEWAY_OPS_PORT).
    env[service === 'api-gateway' ? 'GATEWAY_OPS_PORT' : `${service.toUpperCase().replace(/-/g, '_')}_OPS_PORT`] = String(port);
  }
  return { env, gatewayUrl: `http://127.0.0.1:${gatewayPort}`, rpcUrl: `http://127.0.0.1:${rpcPort}`, opsPorts };
}

/** A local suite with an API key, its history indexed: what example and journey tests start from. */
export interface KeyedSuite {
  readonly suite: LocalSuite;
  /** The suite's environment plus GRIDLAB_URL and GRIDLAB_API_KEY, as the docs' examples read them. */
  readonly env: NodeJS.ProcessEnv;
  readonly local: LocalSuiteEnv;
  /** GET `path` of the gateway with the key; the parsed JSON. */
  get<T>(path: string): Promise<T>;
  /** waitUntil with the suite's output in the failure message. */
  until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T>;
}

/**
 * Starts the local suite (localSuiteEnv's options, `env` on top), grants a key to `owner`
 * and waits until the gateway serves the devnet's whole history.
 */
export async function startKeyedSuite(
  options: Parameters<typeof localSuiteEnv>[0] & { readonly owner: string; readonly env?: NodeJS.ProcessEnv },
): Promise<KeyedSuite> {
  const local = await localSuiteEnv(options);
  const env: NodeJS.ProcessEnv = { ...local.env, ...options.env, GRIDLAB_URL: local.gatewayUrl };
  const suite = startLocalSuite(env);
  const until = <T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> => waitUntil(what, read, ok, { context: suite.output });
  const granted = await runCli(['admin', 'grant', '--owner', options.owner, '--days', '1'], env);
  if (granted.code !== 0) {
    await suite.stop();
    throw new Error(granted.stderr);
  }
  env['GRIDLAB_API_KEY'] = (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${local.gatewayUrl}${path}`, { headers: { Authorization: `Bearer ${env['GRIDLAB_API_KEY']}` } })).json()) as T;
  await until('the history to be indexed', () => get<{ rounds?: { id: number }[] }>('/api/v1/rounds?limit=1'), (b) => (b.rounds?.[0]?.id ?? 0) >= options.historyRounds);
  return { suite, env, local, get, until };
}
