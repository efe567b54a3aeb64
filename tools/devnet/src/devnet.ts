import { createHash, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { OrePdas } from '@gridlab/chain';
import type { KnownRound } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { LiteSVM } from 'litesvm';
import { AccountStore } from './chain/account-store';
import { overflowDeploy, trailingRoundDeploy, type AttackContext } from './chain/attacks';
import { GameHistory, closeSlotOf } from './chain/game-history';
import { GameKeys } from './chain/game-keys';
import { GameSignatures } from './chain/game-signatures';
import { GameTransactionBuilder } from './chain/game-transactions';
import { Ledger, type TxRecord } from './chain/ledger';
import { LEDGER_FILE_NAME, LedgerFileError, readLedgerFile, writeLedgerFile, type Genesis, type LedgerSnapshot } from './chain/ledger-file';
import { GENESIS_SLOT } from './game/chain-time';
import { EXPIRY_SLOTS, deployAt, minerKey } from './game/derive-round';
import { logData, resetEvent } from './program/events';
import { Game, eraStarts, type EraSetting, type GameConfig, type GameWrite } from './game/game';
import { GameStateVersionError, restoreGameState } from './game/game-state';
import { startHttpRpc } from './rpc/http-server';
import { rpcMethods } from './rpc/methods';
import { NO_LIMITS, RpcBudgets, parseRpcLimits, type MethodStats } from './rpc/rate-limits';
import { RpcError } from './rpc/rpc-error';
import { PubSubServer } from './rpc/ws-server';
import { RealGame, RealProgramError, realProgramRefusal, type LiveProgram } from './real/real-game';
import { blockTimeOf } from './game/chain-time';
import { installPaymentToken, mintTransaction, paymentTokenAccount } from './token';

/** A deploy as the devnet played it (`Devnet.roundDeployList`). */
export interface DevnetDeploy {
  readonly authority: string;
  readonly squares: number;
  readonly amount: number;
  readonly automated: boolean;
  /** The automation's strategy (0 Random, 1 Preferred); null for a manual deploy. */
  readonly strategy: number | null;
  readonly executorFee: number;
  readonly slot: number;
}

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
  /**
   * Settled rounds played before genesis (ids 1..N), spaced in slots as mainnet's and
   * ending at the genesis slot; those past their expiry exist only as transactions.
   */
  historyRounds?: number;
  programId?: string;
  tokenMint?: string;
  /** Probability that a reset finds no slot hash (the round is voided). */
  voidedRoundRate?: number;
  /** Deploys a round has on average (default 400, as on mainnet; tests use fewer). */
  deploysPerRound?: number;
  /**
   * Share of the deploys that automations make (default 0.15): the automated wallets'
   * executor signs them in the last slots of the round, and the squares and SOL come from
   * the automation. 0: every deploy is manual.
   */
  automatedShare?: number;
  /**
   * Which program eras the game plays (default `mixed`: the history in thirds — 568-byte
   * parimutuel, 952-byte parimutuel, 952-byte `returns` — and live rounds as today). A
   * chain continued from its ledger keeps the eras it was started with.
   */
  eras?: EraSetting;
  /**
   * Which program plays the live rounds. `auto` (default): the ORE program's own mainnet
   * executable of April 2026 where the devnet has one for its era (v3), the port otherwise.
   * `2026-04` or `2025-12`: that executable (fixtures/mainnet/program-<era>/ore.so), which
   * needs the v3 era, mainnet's program id, 150-slot rounds, an intermission of at least 35
   * slots and no ledgerDir; `port`: the devnet's port of the program (derived from the seed).
   * History rounds are the port's in every case.
   */
  liveProgram?: 'auto' | LiveProgram;
  /**
   * Where the chain is kept across restarts (ledger.json inside). Absent: the chain lives
   * in memory only and every start is a new chain from genesis.
   */
  ledgerDir?: string;
  /** How often the ledger is saved while running (it is also saved on stop). Default 10 s. */
  saveIntervalMs?: number;
  /**
   * The crank closes every settled round whose `end_slot + roundExpirySlots < slot`, as
   * anyone may on mainnet once `expires_at` (always `end_slot + 216000`) has passed.
   * Default 216000 (a day of slots); it changes no account's bytes, only which are closed.
   */
  roundExpirySlots?: number;
  /**
   * Per-method request budgets, `default=100/10s,getProgramAccounts=5/1s` (`default` for
   * every method not named). Default: unlimited.
   */
  rpcLimits?: string;
  /** A WebSocket silent (no message, no ping) this long is closed. Default 600; 0: never. */
  wsIdleS?: number;
  /**
   * Test hook: rounds whose reset an attacker sends, after an instruction of their own
   * program that logs a false `var value:` (anyone may reset, and put instructions first).
   */
  hostileResets?: readonly number[];
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
  /** What getGenesisHash answers: fixed at genesis, kept across restarts by the ledger file. */
  readonly genesisHash: string;
  /** The ledger file, or null when the chain is not persisted. */
  readonly ledgerFile: string | null;
  /** True when this start continued a saved chain rather than starting from genesis. */
  readonly restored: boolean;
  /** Every settled round (history and live, closed or not), as the program left it. */
  settledRounds(): readonly KnownRound[];
  /**
   * How round `id`'s deploys show in its transactions: how many were automated and took
   * squares, and the length of its ResetEvent (null: a round the port did not play). Tests
   * use it to tell what a reader of the chain can prove of a round.
   */
  roundDeploys(id: number): { readonly automatedWithSquares: number; readonly resetEventLength: 128 | 144; readonly shown: readonly number[] } | null;
  /**
   * Round `id`'s deploys in the order they landed, as the devnet's own reading of the
   * program applied them (null: a round the port did not play): whose, the squares taken
   * (bit s: square s), lamports a square, automated or not, and the executor's fee.
   */
  roundDeployList(id: number): readonly DevnetDeploy[] | null;
  /** Requests served and refused per RPC method, and the most served within any window of its budget. */
  rpcStats(): Record<string, MethodStats>;
  currentRoundId(): number;
  /** Which program plays the live rounds: the port, or the real program of that date. */
  readonly liveProgram: LiveProgram;
  slot(): number;
  /** Resolves when round `id` has settled. */
  waitForSettled(id: number, timeoutMs?: number): Promise<KnownRound>;
  /** Stops slot advancement (test hook). */
  pause(): void;
  resume(): void;
  /** Closes every WebSocket connection (test hook: clients must reconnect or poll). */
  dropWebSockets(): void;
  /** Writes arbitrary account bytes, owned by the program unless said otherwise (test hook). */
  setRawAccount(address: string, data: Uint8Array, owner?: string): void;
  /** Dev-only: mints payment tokens to the owner's associated token account. */
  mintTokens(owner: string, amountBaseUnits: bigint): Promise<string>;
  /**
   * Test hook: records a successful transaction naming `roundAddress` that forges round
   * `roundId`'s ResetEvent (other totals): an ORE Log at the top level naming the board,
   * and an inner ORE Log whose only account is the forger, as anyone may put in a
   * transaction of their own program. The program signs its own Logs with the board, so
   * neither is one of its events. Returns the signature.
   */
  recordForgedLog(roundAddress: string, roundId: number): string;
  /**
   * Test hook: lands a successful deploy into the live round with amount `u64::MAX` and an
   * empty mask (the program logs a board-signed DeployEvent of that amount) whose address
   * lookup table lists the addresses of rounds `listed`. Returns the signature.
   */
  recordOverflowDeploy(listed: readonly number[]): string;
  /**
   * Test hook: lands a successful deploy of `lamports` to square 0 of the live round in the
   * program's account order before 2025-12-08, with round `trailing`'s address appended
   * (the program reads only its own positions). Returns the signature.
   */
  recordTrailingRoundDeploy(trailing: number, lamports: number): string;
  /** Benchmark hook: called synchronously when the game writes an account, before notifications. */
  onAccountWrite(listener: (address: string, slot: number) => void): () => void;
  /** Saves the ledger file now (no-op without a ledger directory). */
  save(): Promise<void>;
  /** Stops the chain, saves the ledger (when persisted) and closes the servers. */
  stop(): Promise<void>;
}

const DEFAULT_PROGRAM_ID = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';
const DEFAULT_TOKEN_MINT = 'oreoU2P8bN6jkk3jbaiVxYnG1dCXcYxwhwyK9jSybcp';
const DEFAULT_WS_IDLE_S = 600;
/** Share of the deploys that automations make: mainnet's executors ran a good part of them. */
const DEFAULT_AUTOMATED_SHARE = 0.15;

function seededKeypair(label: string, seed: number): Keypair {
  return Keypair.fromSeed(createHash('sha256').update(`gridlab-devnet:${label}:${seed}`).digest());
}

/**
 * The program that plays the live rounds. `auto` takes the real one where the devnet can
 * run it: the v3 era (the executables' own), with settings the program accepts; otherwise,
 * and for a saved chain (the real program's chains are not saved yet), the port, saying why.
 * A program asked for by name is refused with the reason.
 */
function resolveLiveProgram(options: DevnetOptions, programId: string, savedGame: unknown, log: Logger | undefined): LiveProgram {
  const asked = options.liveProgram ?? 'auto';
  const eras = options.eras ?? 'mixed';
  if (asked === 'port' || (asked === 'auto' && (eras !== 'v3' || savedGame !== null))) return 'port';
  const refusal = realProgramRefusal({
    programId,
    roundSlots: options.roundSlots ?? 150,
    intermissionSlots: options.intermissionSlots ?? 35,
    eras,
    ledgerDir: options.ledgerDir,
  });
  if (refusal === null) return asked === 'auto' ? '2026-04' : asked;
  if (asked !== 'auto') throw new Error(`the live rounds cannot be the real ORE program's: ${refusal} (liveProgram 'port' plays them with the devnet's port)`);
  log?.warn('the port plays the live rounds: the real ORE program cannot here', { reason: refusal });
  return 'port';
}

/** A saved chain must be the one configured: its accounts live at the configured addresses. */
function checkSavedChain(file: string, genesis: Genesis, programId: string, tokenMint: string): void {
  if (genesis.programId !== programId) {
    throw new LedgerFileError(file, `the saved chain runs ORE program ${genesis.programId}, not the configured ${programId} (set ORE_PROGRAM_ID back)`);
  }
  if (genesis.tokenMint !== tokenMint) {
    throw new LedgerFileError(file, `the saved chain's payment mint is ${genesis.tokenMint}, not the configured ${tokenMint} (set ORE_TOKEN_MINT back)`);
  }
}

/** Starts a LiteSVM-backed Solana JSON-RPC endpoint running the ORE game. */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const host = options.host ?? '127.0.0.1';
  const slotMs = options.slotMs ?? 400;
  const seed = options.seed ?? 1;
  const programId = new PublicKey(options.programId ?? DEFAULT_PROGRAM_ID).toBase58();
  const tokenMint = new PublicKey(options.tokenMint ?? DEFAULT_TOKEN_MINT);
  const expirySlots = options.roundExpirySlots ?? EXPIRY_SLOTS;
  const budgets = new RpcBudgets(options.rpcLimits === undefined || options.rpcLimits === '' ? NO_LIMITS : parseRpcLimits(options.rpcLimits));
  const log = options.logger;

  const ledgerFile = options.ledgerDir === undefined ? null : join(resolve(options.ledgerDir), LEDGER_FILE_NAME);
  const saved = ledgerFile === null ? null : await readLedgerFile(ledgerFile);
  if (saved !== null) checkSavedChain(ledgerFile!, saved.genesis, programId, tokenMint.toBase58());
  let savedGame;
  try {
    savedGame = saved === null ? null : restoreGameState(saved.game);
  } catch (error) {
    if (error instanceof GameStateVersionError) throw new LedgerFileError(ledgerFile!, error.message);
    throw error;
  }

  const svm = new LiteSVM();
  const store = new AccountStore(svm);
  let slot = saved?.slot ?? GENESIS_SLOT;
  svm.warpToSlot(BigInt(slot));
  const liveProgram = resolveLiveProgram(options, programId, saved !== null ? saved.game : null, log);
  // The real program reads the chain's clock, so its transactions carry the chain's time too.
  const ledger = new Ledger(svm, store, { slot: () => slot, nowMs: () => (liveProgram === 'port' ? Date.now() : blockTimeOf(slot) * 1000) });
  const pdas = new OrePdas(programId);
  const rentFor = new Map<number, number>();
  const rent = (length: number): number => {
    let lamports = rentFor.get(length);
    if (lamports === undefined) rentFor.set(length, (lamports = Number(svm.minimumBalanceForRentExemption(BigInt(length)))));
    return lamports;
  };
  const treasuryAta = paymentTokenAccount(tokenMint, pdas.treasury);
  const keys = new GameKeys(programId, tokenMint.toBase58(), treasuryAta.toBase58(), rent);
  const writeListeners = new Set<(address: string, slot: number) => void>();
  const settled: KnownRound[] = [];
  /** Called with the round once it settles, or with null when the chain halted before. */
  const waiters = new Map<number, ((round: KnownRound | null) => void)[]>();

  const write = (w: GameWrite): void => {
    const address = w.kind === 'board' ? keys.board : w.kind === 'treasury' ? keys.treasury : keys.round(w.roundId);
    for (const listener of writeListeners) listener(address, slot);
    store.put(address, { lamports: rent(w.data.length), data: w.data, owner: programId, executable: false }, slot);
  };
  const recordSettled = (round: KnownRound): void => {
    settled.push(round);
    for (const resolve of waiters.get(round.id) ?? []) resolve(round);
    waiters.delete(round.id);
  };

  // A saved chain is played again from its own genesis settings: the game is a function of them and the slot.
  const historyRounds = savedGame?.historyRounds ?? options.historyRounds ?? 0;
  const gameConfig: GameConfig = savedGame?.config ?? {
    seed,
    roundSlots: options.roundSlots ?? 150,
    intermissionSlots: options.intermissionSlots ?? 35,
    voidedRoundRate: options.voidedRoundRate ?? 0.002,
    eras: eraStarts(options.eras ?? 'mixed', 1, historyRounds),
    ...(options.deploysPerRound === undefined ? {} : { deploysPerRound: options.deploysPerRound }),
    automatedShare: options.automatedShare ?? DEFAULT_AUTOMATED_SHARE,
  };
  const genesisSlot = savedGame?.genesisSlot ?? GENESIS_SLOT;
  const started = Date.now();
  const mintAuthority = seededKeypair('mint-authority', saved?.genesis.seed ?? seed);
  let genesis: Genesis;
  let mintSequence = saved?.mintSequence ?? 0;
  const game = new Game(gameConfig, historyRounds, genesisSlot, ({ round, record }) => {
    settled.push(record);
    // Rounds the crank closed before genesis exist only as transactions.
    if (saved === null && closeSlotOf(round.endSlot, round.resetSlot, expirySlots) > genesisSlot) {
      store.put(keys.round(round.id), { lamports: rent(round.account.length), data: round.account, owner: programId, executable: false }, slot);
    }
  });
  if (saved !== null) {
    // Continue the saved chain: the game replayed to its slot, the same accounts and transactions; no new history.
    for (let s = genesisSlot + 1; s <= saved.slot; s++) {
      const result = game.tick(s, false);
      if (result.settled !== null) settled.push(result.settled.record);
    }
    genesis = saved.genesis;
    store.restore(saved.accounts);
    ledger.restoreRecords(saved.transactions);
  } else {
    const salt = randomBytes(32).toString('hex');
    genesis = {
      hash: bs58.encode(createHash('sha256').update(`gridlab-devnet-genesis:${seed}:${salt}`).digest()),
      salt,
      createdAt: new Date(started).toISOString(),
      seed,
      slot,
      programId,
      tokenMint: tokenMint.toBase58(),
    };
    if (liveProgram === 'port') {
      write({ kind: 'treasury', data: game.treasuryBytes() });
      write({ kind: 'board', data: game.boardBytes() });
      write({ kind: 'round', roundId: game.currentRoundId, data: game.roundBytes() });
    }
    ledger.airdrop(mintAuthority.publicKey.toBase58(), 1_000_000_000_000n);
    installPaymentToken(svm, store, tokenMint, mintAuthority.publicKey, pdas.treasury);
  }
  // The real program takes over the live game from the port's genesis: board, first round, treasury, programs.
  const real =
    liveProgram === 'port'
      ? null
      : new RealGame({
          svm,
          store,
          ledger,
          chronicle: game.chronicle,
          era: liveProgram,
          seed: gameConfig.seed,
          board: game.boardBytes(),
          genesisSlot,
          motherlode: game.motherlodePool,
          intermissionSlots: gameConfig.intermissionSlots,
          tokenMint: tokenMint.toBase58(),
          logger: log,
        });
  const currentRoundId = (): number => real?.currentRoundId ?? game.currentRoundId;
  // Rounds below this are derived (and closed by the crank below); from it on, the real program's.
  const derivedBelow = (): number => real?.firstRoundId ?? game.currentRoundId;
  let halted: Error | null = null;
  const mintTokens = (owner: string, amount: bigint): Promise<string> => {
    const wire = mintTransaction(mintAuthority, tokenMint, new PublicKey(owner), amount, svm.latestBlockhash(), mintSequence++);
    const result = ledger.submit(wire, false);
    if (!result.ok) return Promise.reject(new RpcError(-32002, `mint failed: ${JSON.stringify(result.err)}`, { logs: result.logs }));
    return Promise.resolve(result.signature);
  };

  const chronicle = game.chronicle;
  const signatures = new GameSignatures(gameConfig.seed);
  const history = new GameHistory(
    chronicle,
    keys,
    signatures,
    new GameTransactionBuilder(keys, gameConfig, new Set(options.hostileResets ?? [])),
    real === null
      ? { slot: () => slot, settledUpTo: () => game.currentRoundId - 1 }
      : { slot: () => slot, settledUpTo: () => real.firstRoundId - 1, derivedUpTo: () => real.firstRoundId - 1 },
    expirySlots,
  );
  // The next round the crank will close (every earlier one is closed).
  let nextClose = chronicle.firstId;
  while (nextClose < derivedBelow() && history.closeSlot(nextClose) <= slot) nextClose++;
  const crank = (): void => {
    while (nextClose < derivedBelow() && history.closeSlot(nextClose) <= slot) {
      const address = keys.round(nextClose++);
      for (const listener of writeListeners) listener(address, slot);
      store.remove(address, slot);
    }
  };

  /** One consistent moment of the chain (synchronous: no slot passes while it is taken). */
  const snapshot = (): LedgerSnapshot => ({
    genesis,
    slot,
    mintSequence,
    game: game.saveState(),
    accounts: store.accounts(),
    transactions: ledger.allRecords(),
  });
  // Saves run one at a time; a save asked for while one runs waits for it, then writes anew.
  let saving: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => {
    if (ledgerFile === null) return Promise.resolve();
    const next = saving.then(() => writeLedgerFile(ledgerFile, snapshot()));
    saving = next.catch((error: unknown) => {
      log?.error('devnet ledger not saved', { file: ledgerFile, err: error });
    });
    return next;
  };
  // The genesis (its salt above all) is on disk before anyone sees the chain.
  if (ledgerFile !== null && saved === null) await save();

  const landAttack = (build: (ctx: AttackContext) => TxRecord): string => {
    const record = build({
      seed,
      programId,
      board: pdas.board.toBase58(),
      round: (id) => pdas.round(id).toBase58(),
      slot,
      blockTime: Math.floor(Date.now() / 1000),
      blockhash: svm.latestBlockhash(),
      liveRoundId: currentRoundId(),
    });
    ledger.recordAsGiven(record);
    return record.signature;
  };

  const recordForgedLog = (roundAddress: string, roundId: number): string => {
    const forger = seededKeypair(`forger-${roundId}`, seed).publicKey;
    const board = pdas.board.toBase58();
    const memoProgram = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
    const event = resetEvent(
      {
        roundId,
        startSlot: 0,
        endSlot: 1,
        winningSquare: 0,
        topMiner: forger.toBytes(),
        miners: 1,
        motherlode: 0,
        totalDeployed: 1,
        totalVaulted: 0,
        totalWinnings: 1,
        totalMinted: 0,
        ts: 0,
        rng: 0n,
        deployedWinningSquare: 1,
      },
      144,
    );
    const log = bs58.encode(logData(event));
    const keys = [forger.toBase58(), roundAddress, board, programId, memoProgram];
    const signature = bs58.encode(createHash('sha512').update(`gridlab-devnet-forged:${seed}:${roundAddress}:${slot}`).digest());
    ledger.recordAsGiven({
      signature,
      slot,
      blockTime: Math.floor(Date.now() / 1000),
      err: null,
      accounts: keys,
      transaction: {
        version: 'legacy',
        signatures: [signature],
        message: {
          accountKeys: keys,
          header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 },
          recentBlockhash: svm.latestBlockhash(),
          instructions: [
            { programIdIndex: 3, accounts: [2], data: log, stackHeight: null },
            { programIdIndex: 4, accounts: [1], data: bs58.encode(Buffer.from('forged')), stackHeight: null },
          ],
        },
      },
      meta: {
        err: null,
        status: { Ok: null },
        fee: 5000,
        preBalances: keys.map(() => 0),
        postBalances: keys.map(() => 0),
        preTokenBalances: [],
        postTokenBalances: [],
        logMessages: [`Program log: var value: ${bs58.encode(new Uint8Array(32).fill(7))}`],
        innerInstructions: [{ index: 1, instructions: [{ programIdIndex: 3, accounts: [0], data: log, stackHeight: 2 }] }],
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
      },
    });
    return signature;
  };

  const methods = rpcMethods({
    store,
    ledger,
    svm,
    slot: () => slot,
    genesisHash: genesis.hash,
    history,
    mintTokens,
    rpcStats: () => budgets.stats(),
  });
  const http = await startHttpRpc(host, options.rpcPort ?? 8899, methods, budgets);
  const wsPort = options.wsPort ?? (options.rpcPort === 0 ? 0 : http.port + 1);
  const pubsub = await PubSubServer.start(host, wsPort, store, ledger, (options.wsIdleS ?? DEFAULT_WS_IDLE_S) * 1000);

  // Round PDAs are computed ahead, a little at a time, so that a round's address is known when a client asks for it.
  let indexer: NodeJS.Timeout | undefined;
  const indexStep = (): void => {
    indexer = keys.indexStep(chronicle.lastId) ? setTimeout(indexStep, 0) : undefined;
  };
  indexStep();

  const tick = (): void => {
    slot++;
    svm.warpToSlot(BigInt(slot));
    pubsub.slotAdvanced(slot);
    if (real !== null) {
      let round;
      try {
        round = real.tick(slot);
      } catch (error) {
        // The program refused the devnet's own transaction: the game cannot go on; say why and stop the chain.
        halted = error instanceof Error ? error : new Error(String(error));
        log?.error('devnet halted: the real program refused a game transaction', { err: halted, logs: error instanceof RealProgramError ? error.logs : undefined });
        clearInterval(timer);
        timer = undefined;
        for (const list of waiters.values()) for (const fail of list) fail(null);
        waiters.clear();
        return;
      }
      if (round !== null) recordSettled(round);
    } else {
      const result = game.tick(slot);
      for (const w of result.writes) write(w);
      if (result.settled !== null) {
        recordSettled(result.settled.record);
        log?.debug('round settled', { roundId: result.settled.record.id, winningSquare: result.settled.record.winningSquare });
      }
    }
    crank();
  };
  let timer: NodeJS.Timeout | undefined = setInterval(tick, slotMs);
  const saveTimer = ledgerFile === null ? undefined : setInterval(() => void save().catch(() => undefined), options.saveIntervalMs ?? 10_000);
  saveTimer?.unref();
  log?.info(saved === null ? 'devnet started from genesis' : 'devnet continued its saved chain', {
    rpcUrl: `http://${host}:${http.port}`,
    wsUrl: `ws://${host}:${pubsub.port}`,
    programId,
    tokenMint: tokenMint.toBase58(),
    genesisHash: genesis.hash,
    ledgerFile,
    slot,
    roundId: currentRoundId(),
    liveProgram,
    historyRounds: saved === null ? historyRounds : undefined,
    openRounds: currentRoundId() - nextClose + 1,
    startupMs: Date.now() - started,
  });

  return {
    rpcUrl: `http://${host}:${http.port}`,
    wsUrl: `ws://${host}:${pubsub.port}`,
    programId,
    tokenMint: tokenMint.toBase58(),
    treasury: pdas.treasury.toBase58(),
    treasuryTokenAccount: treasuryAta.toBase58(),
    genesisHash: genesis.hash,
    ledgerFile,
    restored: saved !== null,
    settledRounds: () => settled,
    roundDeploys: (id) => {
      if (!chronicle.has(id)) return null;
      const round = chronicle.derive(id);
      let automatedWithSquares = 0;
      const shown = new Array<number>(25).fill(0);
      const hiding = new Set<number>();
      for (let i = 0; i < round.deploys.length; i++) {
        const d = deployAt(round.deploys, i);
        // An automated deploy that took nothing hides nothing; one that took squares hides them, and which its wallet's later deploys skipped.
        if (d.automated && d.deployed !== 0) {
          automatedWithSquares++;
          hiding.add(d.miner);
        }
        if (d.automated || hiding.has(d.miner)) continue;
        for (let s = 0; s < 25; s++) if ((d.deployed & (1 << s)) !== 0) shown[s]! += d.amount;
      }
      return { automatedWithSquares, resetEventLength: round.events.resetLength, shown };
    },
    roundDeployList: (id) => {
      if (!chronicle.has(id)) return null;
      const { deploys } = chronicle.derive(id);
      return Array.from({ length: deploys.length }, (_, i) => {
        const d = deployAt(deploys, i);
        return { authority: bs58.encode(minerKey(d.miner)), squares: d.deployed, amount: d.amount, automated: d.automated, strategy: d.automated ? d.strategy : null, executorFee: d.executorFee, slot: d.slot };
      });
    },
    rpcStats: () => budgets.stats(),
    currentRoundId,
    liveProgram,
    slot: () => slot,
    waitForSettled: (id, timeoutMs = 30_000) => {
      const done = settled.find((r) => r.id === id);
      if (done !== undefined) return Promise.resolve(done);
      if (halted !== null) return Promise.reject(halted);
      return new Promise<KnownRound>((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error(`round ${id} did not settle within ${timeoutMs} ms`)), timeoutMs);
        const list = waiters.get(id) ?? [];
        list.push((round) => {
          clearTimeout(timeout);
          if (round === null) reject(halted ?? new Error('the devnet halted'));
          else resolve(round);
        });
        waiters.set(id, list);
      });
    },
    pause: () => {
      clearInterval(timer);
      timer = undefined;
    },
    resume: () => {
      if (timer === undefined && halted === null) timer = setInterval(tick, slotMs);
    },
    dropWebSockets: () => pubsub.dropAll(),
    setRawAccount: (address, data, owner = programId) => {
      for (const listener of writeListeners) listener(address, slot);
      store.put(address, { lamports: Number(svm.minimumBalanceForRentExemption(BigInt(data.length))), data, owner, executable: false }, slot);
    },
    mintTokens,
    recordForgedLog,
    recordOverflowDeploy: (listed) => landAttack((ctx) => overflowDeploy(ctx, listed)),
    recordTrailingRoundDeploy: (trailing, lamports) => landAttack((ctx) => trailingRoundDeploy(ctx, trailing, lamports)),
    onAccountWrite: (listener) => {
      writeListeners.add(listener);
      return () => writeListeners.delete(listener);
    },
    save,
    stop: async () => {
      clearInterval(timer);
      timer = undefined;
      clearTimeout(indexer);
      clearInterval(saveTimer);
      await save().catch(() => undefined);
      await pubsub.close();
      await new Promise<void>((resolve) => {
        http.server.close(() => resolve());
        http.server.closeAllConnections();
      });
    },
  };
}
