import { createHash } from 'node:crypto';
import { OrePdas } from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { LiteSVM } from 'litesvm';
import { AccountStore } from './chain/account-store';
import { Ledger } from './chain/ledger';
import { Game, eraStarts, type EraSetting, type GameWrite } from './game/game';
import { startHttpRpc } from './rpc/http-server';
import { rpcMethods } from './rpc/methods';
import { RpcError } from './rpc/rpc-error';
import { PubSubServer } from './rpc/ws-server';
import { installPaymentToken, mintTransaction } from './token';

export interface DevnetOptions {
  host?: string;
  /** Default 8899; 0 picks a free port. */
  rpcPort?: number;
  /** Default rpcPort + 1 (8900); 0 picks a free port. */
  wsPort?: number;
  slotMs?: number;
  roundSlots?: number;
  intermissionSlots?: number;
  seed?: number;
  /** Settled rounds generated at start and left open on chain (ids 1..N). */
  historyRounds?: number;
  programId?: string;
  tokenMint?: string;
  /** Probability that a reset finds no slot hash (the round is voided). */
  voidedRoundRate?: number;
  /**
   * Which program eras the game plays (default `mixed`: the history in thirds — 568-byte
   * parimutuel, 952-byte parimutuel, 952-byte `returns` — and live rounds as today).
   */
  eras?: EraSetting;
  logger?: Logger;
}

/** A running devnet: addresses, the game's own record, and test hooks. */
export interface Devnet {
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly programId: string;
  readonly tokenMint: string;
  /** The treasury PDA ["treasury"], owner of the treasury token account. */
  readonly treasury: string;
  readonly treasuryTokenAccount: string;
  /** Every settled round (history and live), as the indexer should store it. */
  settledRounds(): readonly Round[];
  currentRoundId(): number;
  slot(): number;
  /** Resolves when round `id` has settled. */
  waitForSettled(id: number, timeoutMs?: number): Promise<Round>;
  /** Stops slot advancement (test hook). */
  pause(): void;
  resume(): void;
  /** Closes every WebSocket connection (test hook: clients must reconnect or poll). */
  dropWebSockets(): void;
  /** Writes arbitrary account bytes, owned by the program unless said otherwise (test hook). */
  setRawAccount(address: string, data: Uint8Array, owner?: string): void;
  /** Dev-only: mints payment tokens to the owner's associated token account. */
  mintTokens(owner: string, amountBaseUnits: bigint): Promise<string>;
  /** Benchmark hook: called synchronously when the game writes an account, before notifications. */
  onAccountWrite(listener: (address: string, slot: number) => void): () => void;
  stop(): Promise<void>;
}

const DEFAULT_PROGRAM_ID = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';
const DEFAULT_TOKEN_MINT = 'oreoU2P8bN6jkk3jbaiVxYnG1dCXcYxwhwyK9jSybcp';
/** Chains start far from slot 0; so does ours, so slot arithmetic is exercised realistically. */
const GENESIS_SLOT = 250_000_000;

function seededKeypair(label: string, seed: number): Keypair {
  return Keypair.fromSeed(createHash('sha256').update(`gridlab-devnet:${label}:${seed}`).digest());
}

/** Starts a LiteSVM-backed Solana JSON-RPC endpoint running the ORE v3 game. */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const host = options.host ?? '127.0.0.1';
  const slotMs = options.slotMs ?? 400;
  const seed = options.seed ?? 1;
  const historyRounds = options.historyRounds ?? 0;
  const roundSlots = options.roundSlots ?? 150;
  const programId = new PublicKey(options.programId ?? DEFAULT_PROGRAM_ID).toBase58();
  const tokenMint = new PublicKey(options.tokenMint ?? DEFAULT_TOKEN_MINT);
  const log = options.logger;

  const svm = new LiteSVM();
  const store = new AccountStore(svm);
  let slot = GENESIS_SLOT;
  svm.warpToSlot(BigInt(slot));
  const ledger = new Ledger(svm, store, { slot: () => slot, nowMs: () => Date.now() });
  const pdas = new OrePdas(programId);
  const rentFor = new Map<number, number>();
  const roundRent = (length: number): number => {
    let rent = rentFor.get(length);
    if (rent === undefined) rentFor.set(length, (rent = Number(svm.minimumBalanceForRentExemption(BigInt(length)))));
    return rent;
  };
  const boardRent = Number(svm.minimumBalanceForRentExemption(40n));
  const writeListeners = new Set<(address: string, slot: number) => void>();
  const settled: Round[] = [];
  const waiters = new Map<number, ((round: Round) => void)[]>();

  const write = (w: GameWrite): void => {
    const address = w.kind === 'board' ? pdas.board.toBase58() : pdas.round(w.roundId).toBase58();
    for (const listener of writeListeners) listener(address, slot);
    store.put(address, { lamports: w.kind === 'board' ? boardRent : roundRent(w.data.length), data: w.data, owner: programId, executable: false }, slot);
  };
  const recordSettled = (round: Round): void => {
    settled.push(round);
    for (const resolve of waiters.get(round.id) ?? []) resolve(round);
    waiters.delete(round.id);
  };

  const game = new Game(
    {
      roundSlots,
      intermissionSlots: options.intermissionSlots ?? 35,
      voidedRoundRate: options.voidedRoundRate ?? 0.002,
      seed,
      eras: eraStarts(options.eras ?? 'mixed', 1, historyRounds),
    },
    1,
    slot,
  );
  const started = Date.now();
  const roundMs = (roundSlots + (options.intermissionSlots ?? 35)) * slotMs;
  for (const h of game.playHistory(historyRounds, (i) => new Date(started - (historyRounds - i) * roundMs))) {
    store.put(pdas.round(h.id).toBase58(), { lamports: roundRent(h.data.length), data: h.data, owner: programId, executable: false }, slot);
    settled.push(h.round);
  }
  write({ kind: 'board', data: game.boardBytes() });
  write({ kind: 'round', roundId: game.currentRoundId, data: game.roundBytes() });

  const mintAuthority = seededKeypair('mint-authority', seed);
  ledger.airdrop(mintAuthority.publicKey.toBase58(), 1_000_000_000_000n);
  const treasuryAta = installPaymentToken(svm, store, tokenMint, mintAuthority.publicKey, pdas.treasury);
  let mintSequence = 0;
  const mintTokens = async (owner: string, amount: bigint): Promise<string> => {
    const wire = mintTransaction(mintAuthority, tokenMint, new PublicKey(owner), amount, svm.latestBlockhash(), mintSequence++);
    const result = ledger.submit(wire, false);
    if (!result.ok) throw new RpcError(-32002, `mint failed: ${JSON.stringify(result.err)}`, { logs: result.logs });
    return result.signature;
  };

  const methods = rpcMethods({
    store,
    ledger,
    svm,
    slot: () => slot,
    genesisHash: bs58.encode(createHash('sha256').update(`gridlab-devnet-genesis:${seed}`).digest()),
    mintTokens,
  });
  const http = await startHttpRpc(host, options.rpcPort ?? 8899, methods);
  const wsPort = options.wsPort ?? (options.rpcPort === 0 ? 0 : http.port + 1);
  const pubsub = await PubSubServer.start(host, wsPort, store, ledger);

  const tick = (): void => {
    slot++;
    svm.warpToSlot(BigInt(slot));
    pubsub.slotAdvanced(slot);
    const result = game.tick(slot, new Date());
    for (const w of result.writes) write(w);
    if (result.settled !== null) {
      recordSettled(result.settled);
      log?.debug('round settled', { roundId: result.settled.id, winningSquare: result.settled.winningSquare });
    }
  };
  let timer: NodeJS.Timeout | undefined = setInterval(tick, slotMs);
  log?.info('devnet started', {
    rpcUrl: `http://${host}:${http.port}`,
    wsUrl: `ws://${host}:${pubsub.port}`,
    programId,
    tokenMint: tokenMint.toBase58(),
    historyRounds,
    startupMs: Date.now() - started,
  });

  return {
    rpcUrl: `http://${host}:${http.port}`,
    wsUrl: `ws://${host}:${pubsub.port}`,
    programId,
    tokenMint: tokenMint.toBase58(),
    treasury: pdas.treasury.toBase58(),
    treasuryTokenAccount: treasuryAta.toBase58(),
    settledRounds: () => settled,
    currentRoundId: () => game.currentRoundId,
    slot: () => slot,
    waitForSettled: (id, timeoutMs = 30_000) => {
      const done = settled.find((r) => r.id === id);
      if (done !== undefined) return Promise.resolve(done);
      return new Promise<Round>((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error(`round ${id} did not settle within ${timeoutMs} ms`)), timeoutMs);
        const list = waiters.get(id) ?? [];
        list.push((round) => {
          clearTimeout(timeout);
          resolve(round);
        });
        waiters.set(id, list);
      });
    },
    pause: () => {
      clearInterval(timer);
      timer = undefined;
    },
    resume: () => {
      if (timer === undefined) timer = setInterval(tick, slotMs);
    },
    dropWebSockets: () => pubsub.dropAll(),
    setRawAccount: (address, data, owner = programId) => {
      for (const listener of writeListeners) listener(address, slot);
      store.put(address, { lamports: Number(svm.minimumBalanceForRentExemption(BigInt(data.length))), data, owner, executable: false }, slot);
    },
    mintTokens,
    onAccountWrite: (listener) => {
      writeListeners.add(listener);
      return () => writeListeners.delete(listener);
    },
    stop: async () => {
      clearInterval(timer);
      timer = undefined;
      await pubsub.close();
      await new Promise<void>((resolve) => {
        http.server.close(() => resolve());
        http.server.closeAllConnections();
      });
    },
  };
}
