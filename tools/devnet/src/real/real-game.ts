/**
 * The devnet's live rounds played by the ORE program's own mainnet executable, in the
 * devnet's LiteSVM (the real-program mode of the v3 era). The crowd is the port's miner
 * model: each round's deploys are the Chronicle's plan for it (miners, squares, amounts,
 * slot offsets), sent as real signed Deploy transactions by a keypair per miner of the
 * pool; after the round and its intermission the crank sends entropy `sample` and
 * `reveal` (from the devnet's seed chain: seed-chain.ts) and the program's `reset`.
 * Board, Round and Treasury are whatever the program wrote; every transaction lands in the
 * ledger as sent, with the program's logs and inner instructions.
 *
 * History before genesis stays the port's (derived from the seed on demand); the first live
 * round opens where the history left off: the board on the next round id from the slot
 * after the last reset, the treasury with the history's motherlode pool.
 */
import { createHash } from 'node:crypto';
import type { KnownRound } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { Clock, type LiteSVM } from 'litesvm';
import type { AccountStore } from '../chain/account-store';
import type { Ledger, SubmitResult } from '../chain/ledger';
import { blockTimeOf } from '../game/chain-time';
import type { Chronicle } from '../game/chronicle';
import { type DerivedRound, drawTopMiner, roundStreams } from '../game/derive-round';
import { PodReader } from '../program/pod';
import { isSplitByRng, rng as rngOf, winningSquare } from '../program/round-rules';
import { BOARD, ORE_MINT, ORE_PROGRAM_ID, TOKEN_PROGRAM_ID, TREASURY, TREASURY_TOKENS, minerAddress, roundAddress } from './addresses';
import { fallbackSlotHash } from './entropy';
import { fixture, installOre } from './install';
import * as ix from './instructions';
import { type Era } from './instructions';
import { decodeBoardFields, decodeMiner, decodeTreasuryFields, decodeVar, encodeTreasury, openRound, u64 } from './layouts';
import { SeedChain } from './seed-chain';

/** Which program plays the live rounds: the devnet's port, or one of the mainnet executables. */
export type LiveProgram = 'port' | Era;

/** The program's round length (`deploy.rs`: `end_slot = start_slot + 150`). */
const PROGRAM_ROUND_SLOTS = 150;
/** `INTERMISSION_SLOTS` (`api/src/consts.rs`): the reset waits at least this long after `end_slot`. */
const PROGRAM_INTERMISSION_SLOTS = 35;
const LAMPORTS_PER_SOL = 1_000_000_000n;
/** What a miner's wallet holds beyond its next deploy: Miner rent, checkpoint fee, transaction fees. */
const WALLET_MARGIN = LAMPORTS_PER_SOL / 10n;
/** The crank pays each next round's rent and the fees of sample, reveal, reset and close. */
const CRANK_FUNDS = 1_000n * LAMPORTS_PER_SOL;
const SQUARES = 25;

/** A transaction the program refused: the devnet's own game went wrong. */
export class RealProgramError extends Error {
  constructor(
    what: string,
    readonly logs: readonly string[],
  ) {
    super(`the ORE program refused the devnet's ${what}: ${logs.slice(-4).join(' | ')}`);
  }
}

/** Why the devnet cannot run the real program with these settings, or null when it can. */
export function realProgramRefusal(settings: { programId: string; roundSlots: number; intermissionSlots: number; eras: string; ledgerDir?: string | undefined }): string | null {
  if (settings.eras !== 'v3') return `the real program's executables are of the v3 era only (eras is ${settings.eras})`;
  if (settings.programId !== ORE_PROGRAM_ID.toBase58()) {
    return `the real program runs only at mainnet's program id ${ORE_PROGRAM_ID.toBase58()} (its PDAs, the entropy Var's authority and its own checks name it), not ${settings.programId}`;
  }
  if (settings.roundSlots !== PROGRAM_ROUND_SLOTS) return `the real program's rounds last ${PROGRAM_ROUND_SLOTS} slots (roundSlots is ${settings.roundSlots}); make slots shorter instead`;
  if (settings.intermissionSlots < PROGRAM_INTERMISSION_SLOTS) {
    return `the real program's reset waits ${PROGRAM_INTERMISSION_SLOTS} slots after a round (intermissionSlots is ${settings.intermissionSlots})`;
  }
  if (settings.ledgerDir !== undefined) return 'a chain whose live rounds the real program plays is not saved across restarts yet (leave ledgerDir unset)';
  return null;
}

export interface RealGameSetup {
  readonly svm: LiteSVM;
  readonly store: AccountStore;
  readonly ledger: Ledger;
  /** The game's chronicle: the history, and the plan of every live round appended to it. */
  readonly chronicle: Chronicle;
  readonly era: Era;
  readonly seed: number;
  /** The board's bytes as the port leaves them at genesis (waiting for the first live round's first deploy). */
  readonly board: Uint8Array;
  /** The last history reset (the board waits from the next slot). */
  readonly genesisSlot: number;
  /** The history's motherlode pool (ORE base units). */
  readonly motherlode: number;
  readonly intermissionSlots: number;
  /** The devnet's payment mint: when it is ORE's, the program's mint and treasury token account are the payment token's. */
  readonly tokenMint: string;
  /** Seeds in the entropy chain (default seed-chain.ts's). */
  readonly chainLength?: number;
  readonly logger?: Logger | undefined;
}

/** A live round being played. */
interface LiveRound {
  readonly id: number;
  readonly plan: DerivedRound;
  /** The slot deploy offsets count from (the previous reset + the round's delay). */
  readonly anchor: number;
  next: number;
  /** The board's `end_slot` once the first deploy started the round. */
  endSlot: number | null;
  /** The treasury's motherlode pool before the reset. */
  poolBefore: number;
}

export class RealGame {
  readonly firstRoundId: number;
  private readonly svm: LiteSVM;
  private readonly store: AccountStore;
  private readonly ledger: Ledger;
  private readonly chronicle: Chronicle;
  private readonly chain: SeedChain;
  private readonly crank: Keypair;
  private readonly feeCollector: PublicKey;
  private readonly varAddress: PublicKey;
  private readonly wallets = new Map<number, Keypair>();
  private readonly log: Logger | undefined;
  private live: LiveRound;
  /** Settled live rounds not closed yet, oldest first, with their `expires_at`. */
  private readonly open: { id: number; expiresAt: bigint }[] = [];

  constructor(private readonly setup: RealGameSetup) {
    this.svm = setup.svm;
    this.store = setup.store;
    this.ledger = setup.ledger;
    this.chronicle = setup.chronicle;
    this.log = setup.logger;
    this.chain = new SeedChain(setup.seed, setup.chainLength);
    this.crank = seededKeypair('real-crank', setup.seed);
    this.firstRoundId = this.chronicle.lastId;
    this.store.ownedInBothPlaces(ORE_PROGRAM_ID.toBase58());

    const last = this.firstRoundId - 1;
    const history = this.chronicle.has(last) ? this.chronicle.derive(last) : null;
    // The Var as the last history round's reveal would have left it: its value that round's randomness.
    const endAt = BigInt(history?.endSlot ?? setup.genesisSlot - 1);
    const installed = installOre(this.svm, setup.era, (key, data, owner) => this.put(key, data, owner), {
      seed: this.chain.commitment,
      slotHash: fallbackSlotHash(endAt),
      value: history !== null && rngOf(history.slotHash) !== null ? history.slotHash : new Uint8Array(32).fill(2),
      endAt,
      samples: BigInt(this.chain.length),
    });
    this.feeCollector = installed.feeCollector;
    this.varAddress = installed.varAddress;
    if (setup.tokenMint !== ORE_MINT.toBase58()) {
      // Reset reads ORE's mint and the treasury's token account of it: the mainnet ones, apart from the payment token.
      this.put(ORE_MINT, fixture('mint.account.bin'), TOKEN_PROGRAM_ID);
      this.put(TREASURY_TOKENS, fixture('treasury_at.account.bin'), TOKEN_PROGRAM_ID);
    }
    this.put(BOARD, setup.board, ORE_PROGRAM_ID);
    this.put(roundAddress(BigInt(this.firstRoundId)), openRound(BigInt(this.firstRoundId), this.crank.publicKey.toBytes()), ORE_PROGRAM_ID);
    this.put(TREASURY, encodeTreasury(BigInt(setup.motherlode)), ORE_PROGRAM_ID);
    this.fund(this.feeCollector, LAMPORTS_PER_SOL);
    this.fund(this.crank.publicKey, CRANK_FUNDS);
    this.live = this.plan(this.chronicle.derive(this.firstRoundId), setup.genesisSlot);
  }

  get currentRoundId(): number {
    return this.live.id;
  }

  /**
   * Plays slot `slot` (called once per slot, after the chain moved to it): the deploys due,
   * and the round's settlement when its intermission is over. Returns the round settled,
   * as the indexer should store it. Throws RealProgramError when the program refuses one of
   * the game's transactions.
   */
  tick(slot: number): KnownRound | null {
    this.svm.setClock(new Clock(BigInt(slot), BigInt(blockTimeOf(this.setup.genesisSlot)), 0n, 0n, BigInt(blockTimeOf(slot))));
    this.closeExpired(slot);
    const round = this.live;
    const deploys = round.plan.deploys;
    while (round.next < deploys.length && round.anchor + deploys.slot[round.next]! - round.plan.startSlot <= slot) {
      if (round.endSlot !== null && slot >= round.endSlot) break;
      this.deploy(round, round.next++);
      round.endSlot ??= Number(decodeBoardFields(this.data(BOARD)).endSlot);
    }
    if (round.endSlot === null || slot < round.endSlot + this.setup.intermissionSlots) return null;
    return this.settle(round, slot);
  }

  private deploy(round: LiveRound, i: number): void {
    const deploys = round.plan.deploys;
    const wallet = this.wallet(deploys.miner[i]!);
    const mask = deploys.requested[i]!;
    const amount = BigInt(deploys.amount[i]!);
    const squares: number[] = [];
    for (let s = 0; s < SQUARES; s++) if ((mask & (1 << s)) !== 0) squares.push(s);
    const instructions: TransactionInstruction[] = [];
    const miner = this.store.get(minerAddress(wallet.publicKey).toBase58());
    let checkpointed: PublicKey | null = null;
    if (miner !== null) {
      // deploy.rs refuses a miner that has not checkpointed its previous round: clients checkpoint first.
      const m = decodeMiner(miner.data);
      if (m.checkpointId !== m.roundId && m.roundId !== BigInt(round.id)) {
        instructions.push(ix.checkpoint(wallet.publicKey, wallet.publicKey, m.roundId));
        checkpointed = roundAddress(m.roundId);
      }
    }
    instructions.push(ix.deploy(wallet.publicKey, BigInt(round.id), amount, squares, this.varAddress));
    const need = amount * BigInt(squares.length) + WALLET_MARGIN;
    const balance = BigInt(this.store.get(wallet.publicKey.toBase58())?.lamports ?? 0);
    if (balance < need) this.fund(wallet.publicKey, need - balance + LAMPORTS_PER_SOL);
    const what = `deploy ${i} of round ${round.id}`;
    const result = this.submit(instructions, wallet);
    if (result.ok) return;
    // The parimutuel reset takes 1% of the round's total, which can be a lamport more than 1% of
    // its losing squares plus each winner's own 1% fee; paying the last winner then leaves the
    // round a lamport short of its rent, unless other winners' rounding dust covers it, as it
    // does in mainnet's crowded rounds. The program refuses that checkpoint, and with it the
    // deploy: the wallet sits rounds out until the crank closes the round (its checkpoint then
    // forfeits the winnings), as a wallet on mainnet would.
    if (checkpointed !== null && isRentShortfallOf(result, checkpointed)) {
      this.log?.debug('a deploy waits for its previous round to close: the program cannot pay its checkpoint', { what, round: checkpointed.toBase58() });
      return;
    }
    throw new RealProgramError(what, result.logs);
  }

  /** Entropy sample and reveal, then the reset, as the crank sends them; the settled round's record. */
  private settle(round: LiveRound, slot: number): KnownRound {
    round.poolBefore = Number(decodeTreasuryFields(this.data(TREASURY)).motherlode);
    this.send(`entropy sample of round ${round.id}`, [ix.sampleVar(this.crank.publicKey, this.varAddress)], this.crank);
    this.send(`entropy reveal of round ${round.id}`, [ix.revealVar(this.crank.publicKey, this.varAddress, this.chain.seed(round.id - this.firstRoundId))], this.crank);
    const top = this.topMiner(round, decodeVar(this.data(this.varAddress)).value);
    this.send(`reset of round ${round.id}`, [ix.reset(this.crank.publicKey, this.feeCollector, BigInt(round.id), top, this.varAddress)], this.crank);

    const account = this.data(roundAddress(BigInt(round.id)));
    const record = roundRecord(account, slot, round.poolBefore);
    this.open.push({ id: round.id, expiresAt: u64(account, 448) });
    const board = decodeBoardFields(this.data(BOARD));
    const pool = Number(decodeTreasuryFields(this.data(TREASURY)).motherlode);
    this.live = this.plan(this.chronicle.append(pool), slot);
    if (BigInt(this.live.id) !== board.roundId) throw new Error(`the board moved to round ${board.roundId}, the devnet planned round ${this.live.id}`);
    this.log?.debug('round settled by the program', { roundId: round.id, winningSquare: record.winningSquare, deploys: round.plan.deploys.length });
    return record;
  }

  /**
   * The miner the crank names as the top miner (reset.rs checks it, without consequence):
   * the one holding the sampled lamport of the winning square, as the model's deploys put them.
   */
  private topMiner(round: LiveRound, value: Uint8Array): PublicKey {
    const r = rngOf(value);
    if (r === null || isSplitByRng(r)) return this.crank.publicKey;
    const square = winningSquare(r);
    const onSquare = round.plan.deployed[square]!;
    return onSquare === 0 ? this.crank.publicKey : this.wallet(drawTopMiner(round.plan.deploys, square, r, onSquare)).publicKey;
  }

  /** Closes the settled rounds whose `expires_at` has passed, as anyone may (close.rs). */
  private closeExpired(slot: number): void {
    while (this.open.length > 0 && this.open[0]!.expiresAt < BigInt(slot)) {
      const { id } = this.open.shift()!;
      this.send(`close of round ${id}`, [ix.close(this.crank.publicKey, BigInt(id), this.crank.publicKey)], this.crank);
    }
  }

  private plan(plan: DerivedRound, previousReset: number): LiveRound {
    return { id: plan.id, plan, anchor: previousReset + roundStreams(this.setup.seed, plan.id).delay, next: 0, endSlot: null, poolBefore: 0 };
  }

  /** Signs (fees paid by the first signer) and runs a transaction through the ledger, which records it. */
  private send(what: string, instructions: readonly TransactionInstruction[], payer: Keypair): string {
    const result = this.submit(instructions, payer);
    if (!result.ok) throw new RealProgramError(what, result.logs);
    return result.signature;
  }

  /** Signs and runs a transaction with preflight: a refused one is not recorded. */
  private submit(instructions: readonly TransactionInstruction[], payer: Keypair): Submitted {
    for (;;) {
      const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: this.svm.latestBlockhash() });
      tx.add(...instructions);
      tx.sign(payer);
      // The same instructions by the same signer under the same blockhash would be the same transaction.
      if (this.ledger.get(bs58.encode(tx.signature!)) !== undefined) {
        this.svm.expireBlockhash();
        continue;
      }
      return { ...this.ledger.submit(tx.serialize(), false), accounts: tx.compileMessage().accountKeys };
    }
  }

  private wallet(n: number): Keypair {
    let keypair = this.wallets.get(n);
    if (keypair === undefined) this.wallets.set(n, (keypair = seededKeypair(`real-miner-${n}`, this.setup.seed)));
    return keypair;
  }

  /** Adds lamports to a system account (a wallet the devnet funds, as a faucet would). */
  private fund(key: PublicKey, lamports: bigint): void {
    const current = BigInt(this.store.get(key.toBase58())?.lamports ?? 0);
    this.store.putSvm(key.toBase58(), { lamports: Number(current + lamports), data: new Uint8Array(0), owner: SystemProgram.programId.toBase58(), executable: false });
  }

  /** Writes an account into LiteSVM, rent-exempt. */
  private put(key: PublicKey, data: Uint8Array, owner: PublicKey): void {
    this.store.putSvm(key.toBase58(), { lamports: Number(this.svm.minimumBalanceForRentExemption(BigInt(data.length))), data, owner: owner.toBase58(), executable: false });
  }

  private data(key: PublicKey): Uint8Array {
    const account = this.store.get(key.toBase58());
    if (account === null) throw new Error(`no account ${key.toBase58()}`);
    return account.data;
  }
}

function seededKeypair(label: string, seed: number): Keypair {
  return Keypair.fromSeed(createHash('sha256').update(`gridlab-devnet:${label}:${seed}`).digest());
}

/**
 * What the indexer should store for a round the program settled: its 568-byte account as
 * the program wrote it, read in the Rust declaration order (program/state.ts: id, deployed,
 * slot_hash, count, expires_at, motherlode, rent_payer, top_miner, top_miner_reward,
 * total_deployed, total_miners, total_vaulted, total_winnings), with the rule (parimutuel:
 * the v3 program's) and the pool it played for.
 */
function roundRecord(account: Uint8Array, resetSlot: number, poolBefore: number): KnownRound {
  if (account.length !== 568) throw new Error(`the program wrote a round of ${account.length} bytes, not 568`);
  const r = new PodReader(account);
  const id = r.u64();
  const deployed = r.squares();
  const slotHash = r.raw();
  const count = r.squares();
  r.u64(); // expires_at
  const motherlode = r.u64();
  r.raw(); // rent_payer
  r.raw(); // top_miner (set at checkpoint, never by reset: v3 rounds do not carry it)
  const topMinerReward = r.u64();
  const totalDeployed = r.u64();
  const totalMiners = r.u64();
  const totalVaulted = r.u64();
  const totalWinnings = r.u64();
  const rng = rngOf(slotHash);
  return {
    id,
    deployed,
    count,
    winningSquare: rng === null ? null : winningSquare(rng),
    totalDeployed,
    totalWinnings,
    totalVaulted,
    totalMiners,
    motherlode,
    topMinerReward,
    slotHash: Buffer.from(slotHash).toString('hex'),
    settledAt: new Date(blockTimeOf(resetSlot) * 1000).toISOString(),
    payoutRule: 'parimutuel',
    oreReward: null,
    topMiner: null,
    split: null,
    productionCost: null,
    source: 'account',
    motherlodePool: motherlode > 0 ? motherlode : poolBefore,
  };
}

type Submitted = SubmitResult & { readonly accounts: readonly PublicKey[] };

/** Whether the transaction was refused because it would leave `account` below its rent exemption. */
function isRentShortfallOf(result: Submitted, account: PublicKey): boolean {
  if (result.ok) return false;
  const index = (result.err as { InsufficientFundsForRent?: { account_index?: unknown } } | null)?.InsufficientFundsForRent?.account_index;
  return typeof index === 'number' && result.accounts[index]?.equals(account) === true;
}
