/**
 * The automated wallets of the population (population.ts). Each lives in cycles: it
 * Automates (deposits SOL for an executor to deploy), the executor deploys for it every
 * round until the balance runs out — the last deploy stops short (v3) or, in the program
 * of 2026-06 on, closes the automation without deploying — and the wallet then plays by
 * hand or not at all until its next cycle. Its executor deploys in the last slots of the
 * round, as mainnet's executors do. Every setting and each cycle's deposit come from the
 * seed, and a cycle's balance before any of its rounds is closed-form (each round costs
 * the same: `amount * squares + fee`), so any round is derived on its own, as the rest of
 * the game is.
 */
import { createHash } from 'node:crypto';
import { STRATEGY, type AutomationV3 } from '../program/automation';
import type { Population } from './population';
import { Prng } from './prng';

const SQUARES = 25;
/** Random automations take at most this many squares: `mask & 0xFF` then equals the mask's bit count, the count every era reads. */
const MAX_RANDOM_SQUARES = 12;
/** Share of automations with the Random strategy (the rest Preferred). */
const RANDOM_SHARE = 0.2;
/** The smallest amount an automation puts on a square (lamports). */
const MIN_AMOUNT = 10_000;
/**
 * Slots before the end of the round an executor deploys at (a deploy lands before
 * `end_slot`: the last slot leaves 1): of every 20 automated wallets, 12 deploy in the last
 * slot, 7 in the one before, 1 a little earlier. Dealt in turn rather than drawn, so the
 * shares hold for the few dozen automated wallets of a small devnet too.
 */
const TIMING_CYCLE = 20;
const LAST_SLOT = 12;
const SECOND_LAST_SLOT = 7;
const EARLIER_SLOTS = 6;

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

  constructor(population: Population, seed: number, roundSlots: number, readonly executor: Uint8Array) {
    const r = new Prng(seed ^ 0x5eed_a070);
    const wallets: AutomatedWallet[] = [];
    for (const [j, { miner, run, period, offset }] of population.automated.entries()) {
      const random = r.next() < RANDOM_SHARE;
      const habit = population.habit[miner]!;
      const squares = random ? Math.min(habit, MAX_RANDOM_SQUARES) : habit;
      const mask = random ? randomMask(squares, r) : preferredMask(squares, r);
      // The wallet's own stake, spread on its squares.
      const amount = Math.max(MIN_AMOUNT, Math.floor(population.stake[miner]! / squares));
      const fee = 5_000 + r.int(45_001);
      const turn = j % TIMING_CYCLE;
      const before = turn < LAST_SLOT ? 0 : turn < LAST_SLOT + SECOND_LAST_SLOT ? 1 : 2 + r.int(EARLIER_SLOTS);
      wallets.push({
        miner,
        strategy: random ? STRATEGY.random : STRATEGY.preferred,
        amount,
        mask,
        squares,
        fee,
        period,
        offset,
        run,
        // Short of the squares asked for (all of them when it asks for one).
        tailSquares: squares === 1 ? 1 : 1 + r.int(squares - 1),
        tailExtra: r.int(amount),
        slotOffset: Math.max(0, roundSlots - 1 - before),
      });
    }
    wallets.sort((a, b) => a.slotOffset - b.slotOffset || a.miner - b.miner);
    this.wallets = wallets;
    this.byMiner = new Int32Array(population.size).fill(-1);
    wallets.forEach((w, i) => (this.byMiner[w.miner] = i));
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

const cache = new Map<Population, Map<number, Automations>>();

/** The automated wallets of a population, for rounds of `roundSlots` slots (computed once per settings). */
export function automationsOf(population: Population, seed: number, roundSlots: number, executor: Uint8Array): Automations {
  let bySlots = cache.get(population);
  if (bySlots === undefined) {
    bySlots = new Map();
    if (cache.size > 8) cache.delete(cache.keys().next().value!);
    cache.set(population, bySlots);
  }
  let automations = bySlots.get(roundSlots);
  if (automations === undefined) bySlots.set(roundSlots, (automations = new Automations(population, seed, roundSlots, executor)));
  return automations;
}

/** The executor that deploys for every automation of the devnet (a stable fake wallet). */
export const EXECUTOR_KEY = new Uint8Array(createHash('sha256').update('gridlab-devnet-executor').digest());
