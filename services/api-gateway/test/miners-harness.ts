/**
 * Test-only: an in-memory MinerLedgerReads and the gateway's HTTP server in process
 * around it (access admits every request as one key; no PostgreSQL, Redis or billing).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { MinerBucket, MinerPerformance, MinerRound, MinerSort, MinerSummary, MinerWindow, MinerWindowName, RoundMiners, TopMiners } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import type { MinerLedgerReads, MinerRoundPage } from '@gridlab/miners-store';
import type { MinerClaimsReader } from '../src/adapters/chain/miner-claims';
import type { Caller } from '../src/app/access';
import { StreamRegistry } from '../src/domain/stream-registry';
import { createApp, type AppDeps } from '../src/http/app';
import { trustedProxies } from '../src/http/client-address';
import { MinerStream } from '../src/http/miner-stream';
import { createGatewayServer } from '../src/http/server';
import type { GatewayStreams } from '../src/http/operations';

export const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
export const OTHER_WALLET = 'GvDMxPzN1sCj7L26YDK2HnMRXEQmQ2aemov8YBtPS7vR';

/** A settled row of `address` in round `roundId`. */
export function minerRound(roundId: number, address = WALLET, overrides: Partial<MinerRound> = {}): MinerRound {
  return {
    roundId,
    address,
    settledAt: new Date(Date.UTC(2026, 10, 1, 0, roundId % 60)).toISOString(),
    payoutRule: 'returns',
    squares: [3, 7],
    amounts: [1_000_000, 2_000_000],
    deployed: 3_000_000,
    deploys: 1,
    signer: address,
    automated: false,
    automationStrategy: null,
    slotsLeft: 120,
    slotsLeftLast: 120,
    solBack: 2_970_000,
    oreTopMiner: 0,
    oreSplit: null,
    oreMotherlode: 0,
    topMiner: false,
    heldWinningSquare: true,
    adminFee: 30_000,
    protocolFee: 0,
    networkFee: 5_000,
    priorityFee: 0,
    executorFee: 0,
    checkpointDeposit: 10_000,
    net: -35_000,
    ...overrides,
  };
}

function minerWindow(rounds: number): MinerWindow {
  return {
    rounds,
    deploys: rounds,
    deployed: 3_000_000 * rounds,
    solBack: 2_970_000 * rounds,
    adminFee: 30_000 * rounds,
    protocolFee: 0,
    networkFee: 5_000 * rounds,
    priorityFee: 0,
    executorFee: 0,
    checkpointDeposits: 10_000,
    net: -35_000 * rounds,
    oreTopMiner: 0,
    oreSplit: 0,
    oreMotherlode: 0,
    ore: 0,
    oreRefiningFee: 0,
    oreValue: 0,
    netWithOre: -35_000 * rounds,
    wins: rounds,
    winRate: rounds === 0 ? null : 1,
    topMinerWins: 0,
    motherlodeHits: 0,
    medianSlotsLeft: { min: 100, max: 150 },
    firstRound: rounds === 0 ? null : 1,
    lastRound: rounds === 0 ? null : rounds,
    unknownRounds: 0,
  };
}

/** What the memory ledger was asked, for the tests to check. */
export interface LedgerCalls {
  summaryAt: Date[];
  rounds: { address: string; before?: number; limit: number }[];
  top: { sort: MinerSort; window: MinerWindowName; limit: number }[];
  /** Batches an export yielded, and whether its iteration was ended (finished or returned early). */
  exports: { batches: number; ended: boolean }[];
}

/**
 * The ledger of each wallet, newest first (as the store's reads answer). `gate`, when
 * set, holds every `rounds` read until it resolves (a replay in progress).
 */
export class MemoryLedger implements MinerLedgerReads {
  readonly calls: LedgerCalls = { summaryAt: [], rounds: [], top: [], exports: [] };
  gate: Promise<void> | null = null;
  /** Rows per export batch. */
  batchSize = 2;
  /** Export batches yielded without end (a ledger too big to be read in the test's time), from the first row. */
  endless = false;

  constructor(private readonly ledgers: Map<string, MinerRound[]>) {}

  async summary(address: string, now: Date): Promise<Omit<MinerSummary, 'claimable'> | null> {
    this.calls.summaryAt.push(now);
    if (!this.ledgers.has(address)) return null;
    const n = this.ledgers.get(address)!.length;
    return { address, all: minerWindow(n), '24h': minerWindow(1), '7d': minerWindow(n), '30d': minerWindow(n) };
  }

  async rounds(address: string, options: { readonly before?: number; readonly limit: number }): Promise<MinerRoundPage | null> {
    this.calls.rounds.push({ address, ...options });
    if (this.gate !== null) await this.gate;
    const rows = this.ledgers.get(address);
    if (rows === undefined) return null;
    const below = rows.filter((r) => options.before === undefined || r.roundId < options.before);
    const page = below.slice(0, options.limit);
    return { rounds: page, nextBefore: below.length > options.limit ? page[page.length - 1]!.roundId : null };
  }

  async exportRounds(address: string, before?: number): Promise<AsyncIterable<readonly MinerRound[]> | null> {
    const rows = this.ledgers.get(address);
    if (rows === undefined) return null;
    const record = { batches: 0, ended: false };
    this.calls.exports.push(record);
    const below = rows.filter((r) => before === undefined || r.roundId < before);
    const { batchSize, endless } = this;
    return (async function* () {
      try {
        for (let i = 0; endless || i < below.length; i += batchSize) {
          record.batches++;
          yield endless ? Array.from({ length: batchSize }, () => below[0]!) : below.slice(i, i + batchSize);
          if (endless) await new Promise((r) => setImmediate(r));
        }
      } finally {
        record.ended = true;
      }
    })();
  }

  async performance(address: string, bucket: MinerBucket): Promise<MinerPerformance | null> {
    if (!this.ledgers.has(address)) return null;
    return { address, bucket, points: [{ start: '2026-11-01T00:00:00.000Z', rounds: 1, deployed: 3_000_000, solBack: 2_970_000, fees: 35_000, net: -35_000, ore: 0, cumulativeNet: -35_000, cumulativeOre: 0 }] };
  }

  async top(sort: MinerSort, window: MinerWindowName, limit: number): Promise<TopMiners> {
    this.calls.top.push({ sort, window, limit });
    return { sort, window, asOf: '2026-11-01T00:00:00.000Z', miners: [{ rank: 1, address: WALLET, rounds: 3, deployed: 9_000_000, net: -105_000, ore: 0 }] };
  }

  async roundMiners(roundId: number): Promise<RoundMiners | null> {
    const miners = [...this.ledgers.values()].flat().filter((r) => r.roundId === roundId);
    return miners.length === 0 ? null : { roundId, count: miners.length, miners };
  }
}

const CALLER: Caller = {
  subscriberId: 'sub_1',
  keyHash: Buffer.alloc(32, 7),
  decision: { allowed: true, limit: 5, remaining: 4, resetSeconds: 1, retryAfterSeconds: 0 },
  paidUntilMs: Date.now() + 86_400_000,
  address: '127.0.0.1',
};

export interface Harness {
  readonly url: string;
  readonly ledger: MemoryLedger;
  readonly stream: MinerStream;
  readonly claims: { asked: string[]; answer: MinerSummary['claimable'] };
  close(): Promise<void>;
}

/** The gateway's HTTP server over `ledger`, on a free port of 127.0.0.1. */
export async function startHarness(ledger: MemoryLedger, caps: { dumpsPerKey?: number; streamsPerKey?: number } = {}): Promise<Harness> {
  const claims = { asked: [] as string[], answer: null as MinerSummary['claimable'] };
  const minerClaims: MinerClaimsReader = {
    claimable: async (authority) => {
      claims.asked.push(authority);
      return claims.answer;
    },
  };
  const stream = new MinerStream(ledger);
  const deps = {
    access: { admit: async () => CALLER, admitNow: () => undefined, admitAddress: async () => CALLER.decision },
    dashboard: { checkOrigin: () => undefined, session: () => undefined, admit: () => undefined },
    miners: ledger,
    minerClaims,
    streams: new StreamRegistry({ perKey: caps.streamsPerKey ?? 5, perAddress: 20 }),
    dumps: { registry: new StreamRegistry({ perKey: caps.dumpsPerKey ?? 1, perAddress: 2 }), maxConcurrent: 2, idleTimeoutMs: 30_000, minBytesPerSecond: 0, maxDurationMs: 60_000 },
    logger: createLogger({ service: 'test', silent: true }),
    trustedProxies: trustedProxies([]),
    webRoot: '/nonexistent',
    publicRpcUrl: '',
  } as unknown as AppDeps;
  const server: Server = createGatewayServer(createApp(deps), deps, { miners: stream } as GatewayStreams);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ledger,
    stream,
    claims,
    close: () =>
      new Promise<void>((closed) => {
        stream.close();
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

/** One SSE event as the client reads it. */
export interface SseEvent {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: unknown;
}

/** Reads `count` events (comments skipped) off an event-stream response. */
export async function readEvents(body: ReadableStream<Uint8Array>, count: number, timeoutMs = 10_000): Promise<SseEvent[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  try {
    while (events.length < count) {
      if (Date.now() > deadline) throw new Error(`only ${events.length} of ${count} events: ${JSON.stringify(events)}`);
      const timer = new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), deadline - Date.now()));
      const { done, value } = await Promise.race([reader.read(), timer]);
      if (done) throw new Error(`the stream ended after ${events.length} of ${count} events: ${JSON.stringify(events)}`);
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of block.split('\n')) {
          if (line.startsWith(':') || line === '') continue;
          const colon = line.indexOf(':');
          fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
        if (fields.has('data')) events.push({ event: fields.get('event') ?? 'message', id: fields.get('id'), data: JSON.parse(fields.get('data')!) });
      }
    }
    return events;
  } finally {
    reader.releaseLock();
  }
}
