/**
 * The automated share of the miner pool. Each automated wallet lives in cycles: it
 * Automates (deposits SOL for an executor to deploy), the executor deploys for it every
 * round until the balance runs out — the last deploy stops short (v3) or, in the program
 * of 2026-06 on, closes the automation without deploying — and the wallet then plays by
 * hand or not at all until its next cycle. Every setting and each cycle's deposit come from
 * the seed, and a cycle's balance before any of its rounds is closed-form (each round costs
 * the same: `amount * squares + fee`), so any round is derived on its own, as the rest of
 * the game is.
 */
import { createHash } from 'node:crypto';
import { STRATEGY, type AutomationV3 } from '../program/automation';
import { MINER_POOL } from './miner-model';
import { Prng } from './prng';

const SQUARES = 25;
/** Random automations take at most this many squares: `mask & 0xFF` then equals the mask's bit count, the count every era reads. */
const MAX_RANDOM_SQUARES = 12;
/** Share of automations with the Random strategy (the rest Preferred). */
const RANDOM_SHARE = 0.2;
/** Full rounds an automation's deposit pays for, before the round it runs out in. */
const MIN_RUN = 1;
const MAX_RUN = 8;

/** An automated wallet's settings, fixed for the chain. */
export interface AutomatedWallet {
  readonly miner: number;
  readonly strategy: (typeof STRATEGY)[keyof typeof STRATEGY];
  /** Lamports per square. */
  readonly amount: number;
  /** The Automation's `mask`: the squares (Preferred), or the count in its low byte and its bits (Random). */
  readonly mask: number;
  /** Squares a round asks for. */
  readonly squares: number;
  readonly fee: number;
  /** Rounds from one cycle's start to the next's. */
  readonly period: number;
  readonly offset: number;
  /** Full rounds a deposit pays for; the cycle's last active round is `run` (0-based), where the balance runs out. */
  readonly run: number;
  /** In that last round the balance is `fee + tailSquares * amount + tailExtra`: enough for fewer squares than asked. */
  readonly tailSquares: number;
  readonly tailExtra: number;
  /** Slot offset in the round at which the executor deploys for it. */
  readonly slotOffset: number;
}

/** An automation as it stands before a round's deploy. */
export interface AutomationAt {
  readonly wallet: AutomatedWallet;
  /** Rounds of this cycle already deployed (0: the automation was just opened). */
  readonly phase: number;
  readonly account: AutomationV3;
}

/** The automated wallets of a chain, and whose automation is open in a round. */
export class Automations {
  /** Automated wallets by increasing slot offset (the order their deploys land within a round). */
  readonly wallets: readonly AutomatedWallet[];
  /** `byMiner[m]`: the wallet's index in `wallets`, or -1 (a manual miner). */
  readonly byMiner: Int32Array;
  /** Automated deploys a round has on average. */
  readonly expectedPerRound: number;

  constructor(seed: number, share: number, roundSlots: number, meanDeploys: number, readonly executor: Uint8Array) {
    const r = new Prng(seed ^ 0x5eed_a070);
    const count = Math.round(Math.max(0, Math.min(1, share)) * MINER_POOL);
    // Each wallet is active about meanDeploys / MINER_POOL of the rounds: the automated deploys are `share` of all.
    const duty = Math.min(1, meanDeploys / MINER_POOL);
    const picked = new Set<number>();
    while (picked.size < count) picked.add(r.int(MINER_POOL));
    const wallets: AutomatedWallet[] = [];
    let expected = 0;
    for (const miner of [...picked].sort((a, b) => a - b)) {
      const random = r.next() < RANDOM_SHARE;
      const squares = random ? 1 + r.int(MAX_RANDOM_SQUARES) : r.next() < 0.1 ? SQUARES : 1 + r.int(6);
      const mask = random ? randomMask(squares, r) : preferredMask(squares, r);
      const amount = Math.floor(10 ** (4.5 + r.next() * 3));
      const fee = 5_000 + r.int(45_001);
      const run = MIN_RUN + r.int(MAX_RUN - MIN_RUN + 1);
      const period = Math.max(run + 1, Math.round(((run + 1) / duty) * (0.7 + 0.6 * r.next())));
      expected += (run + 1) / period;
      wallets.push({
        miner,
        strategy: random ? STRATEGY.random : STRATEGY.preferred,
        amount,
        mask,
        squares,
        fee,
        period,
        offset: r.int(period),
        run,
        // Short of the squares asked for (all of them when it asks for one).
        tailSquares: squares === 1 ? 1 : 1 + r.int(squares - 1),
        tailExtra: r.int(amount),
        slotOffset: r.int(roundSlots),
      });
    }
    wallets.sort((a, b) => a.slotOffset - b.slotOffset || a.miner - b.miner);
    this.wallets = wallets;
    this.byMiner = new Int32Array(MINER_POOL).fill(-1);
    wallets.forEach((w, i) => (this.byMiner[w.miner] = i));
    this.expectedPerRound = expected;
  }

  /** Whether `wallets[i]` has its automation open in round `id`. */
  isOpen(i: number, id: number): boolean {
    const w = this.wallets[i]!;
    return (id + w.offset) % w.period <= w.run;
  }

  /** The automation of `wallets[i]` before its deploy in round `id`, or null when it has none open. */
  at(i: number, id: number, authority: Uint8Array): AutomationAt | null {
    const w = this.wallets[i]!;
    const phase = (id + w.offset) % w.period;
    if (phase > w.run) return null;
    const perRound = w.amount * w.squares + w.fee;
    const last = w.fee + w.tailSquares * w.amount + w.tailExtra;
    const account: AutomationV3 = {
      amount: w.amount,
      authority,
      balance: last + (w.run - phase) * perRound,
      executor: this.executor,
      fee: w.fee,
      strategy: w.strategy,
      mask: w.mask,
      reload: 0,
    };
    return { wallet: w, phase, account };
  }
}

/** `squares` squares of the board, as a Preferred automation names them. */
function preferredMask(squares: number, r: Prng): number {
  if (squares === SQUARES) return 2 ** SQUARES - 1;
  let mask = 0;
  let n = 0;
  while (n < squares) {
    const bit = 1 << r.int(SQUARES);
    if ((mask & bit) === 0) {
      mask |= bit;
      n++;
    }
  }
  return mask;
}

/**
 * A Random automation's mask as a wallet sets it: the count in the low byte (v3 reads
 * `mask & 0xFF`), with bits above it added until `count` bits are set (2026-07's program
 * counts the mask's bits, and takes its squares as they are on an automation's first deploy).
 */
function randomMask(count: number, r: Prng): number {
  let mask = count;
  let bits = popcount(count);
  while (bits < count) {
    const bit = 1 << (8 + r.int(SQUARES - 8));
    if ((mask & bit) === 0) {
      mask |= bit;
      bits++;
    }
  }
  return mask;
}

function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

const cache = new Map<string, Automations>();

/** The chain's automated wallets (computed once per settings). */
export function automationsOf(seed: number, share: number, roundSlots: number, meanDeploys: number, executor: Uint8Array): Automations {
  const key = `${seed}:${share}:${roundSlots}:${meanDeploys}`;
  let automations = cache.get(key);
  if (automations === undefined) {
    automations = new Automations(seed, share, roundSlots, meanDeploys, executor);
    if (cache.size > 8) cache.delete(cache.keys().next().value!);
    cache.set(key, automations);
  }
  return automations;
}

/** The executor that deploys for every automation of the devnet (a stable fake wallet). */
export const EXECUTOR_KEY = new Uint8Array(createHash('sha256').update('gridlab-devnet-executor').digest());
