/**
 * Every miner's side of a round, as the program keeps and settles it: the deploy
 * handler's accounting of each miner's stake and cumulative position on each square
 * (`program/src/deploy.rs`), and what each miner's checkpoint pays
 * (`program/src/checkpoint.rs`): SOL back, the ORE of a split or of the top miner, the
 * motherlode share, and what the fees took of its stakes.
 */
import type { PayoutRule } from '@gridlab/contracts';
import { SQUARES } from './ore-layout';
import { settleRound, share } from './settlement';

/** One deploy as the program received it: a miner, an amount per square and the squares asked for. */
export interface MinerDeploy {
  readonly authority: string;
  readonly amount: number;
  readonly squares: readonly number[];
}

/** A miner's position in a round: its stake on each square and the round's stake on the square before its own. */
export interface MinerStake {
  readonly authority: string;
  readonly deployed: readonly number[];
  /** `round.deployed[s]` when the miner deployed on `s`: its range of the top-miner draw starts there. */
  readonly cumulative: readonly number[];
}

export interface PlayedRound {
  readonly deployed: readonly number[];
  readonly count: readonly number[];
  /** One per miner, in the order of its first deploy. */
  readonly miners: readonly MinerStake[];
}

/**
 * The deploy handler's accounting (deploy.rs at 70763fc, lines 248-306; the same rule in
 * every era since 4e3ecff): a square is recorded at the miner's first deploy on it in the
 * round and skipped on any later one (`miner.deployed[s] > 0`), its cumulative set to the
 * round's stake on it just before, `round.count[s]` counting the deploys on it.
 */
export function playDeploys(deploys: Iterable<MinerDeploy>): PlayedRound {
  const deployed = new Array<number>(SQUARES).fill(0);
  const count = new Array<number>(SQUARES).fill(0);
  const byAuthority = new Map<string, { authority: string; deployed: number[]; cumulative: number[] }>();
  for (const deploy of deploys) {
    let miner = byAuthority.get(deploy.authority);
    if (miner === undefined) {
      // A new round's miner starts from the board as it stands (`miner.cumulative = round.deployed`).
      miner = { authority: deploy.authority, deployed: new Array<number>(SQUARES).fill(0), cumulative: deployed.slice() };
      byAuthority.set(deploy.authority, miner);
    }
    // A deploy of 0 lamports still counts a miner on each square it names, and leaves the
    // square open to its next deploy (`miner.deployed[s]` stays 0): the program sets no minimum.
    for (const s of deploy.squares) {
      if (s < 0 || s >= SQUARES || miner.deployed[s]! > 0) continue;
      miner.cumulative[s] = deployed[s]!;
      miner.deployed[s] = deploy.amount;
      deployed[s]! += deploy.amount;
      count[s]! += 1;
    }
  }
  // A miner whose deploys all skipped or moved nothing never joined the round.
  const miners = [...byAuthority.values()].filter((m) => m.deployed.some((d) => d > 0));
  return { deployed, count, miners };
}

/** What the round drew, as the reset wrote it (the rest follows from the stakes). */
export interface RoundDraw {
  readonly rule: PayoutRule;
  /** Null: voided (no randomness), every stake refunded. */
  readonly winningSquare: number | null;
  /** The top miner's draw on the winning square, in `[0, deployed[w])`; null when split, voided or nobody is on it. */
  readonly topMinerSample: number | null;
  /** The ORE reward goes pro rata to the winning square's miners instead of one top miner. */
  readonly split: boolean;
  /** ORE base units of the top-miner reward. */
  readonly topMinerReward: number;
  /** ORE base units the round paid from the motherlode (0: it did not hit). */
  readonly motherlode: number;
}

export interface MinerOutcome {
  readonly authority: string;
  /** Lamports the checkpoint pays back (a voided round: every stake). */
  readonly solBack: number;
  readonly oreTopMiner: number;
  readonly oreSplit: number;
  readonly oreMotherlode: number;
  readonly topMiner: boolean;
  /** Lamports of its stakes the admin fee took. */
  readonly adminFee: number;
  /** Lamports of its stakes the protocol fee took (`returns`; 0 under `parimutuel`). */
  readonly protocolFee: number;
}

/**
 * Each miner's checkpoint (checkpoint.rs at 70763fc for `returns`, at 3112ab7 for
 * `parimutuel`), in the order of `played.miners`.
 * - `returns`: on a square holding `T`, `admin = max(1, T/100)`; the winning square pays
 *   back `floor(x * (T - admin) / T)`, any other also keeps `protocol = max(1, (T - admin)/10)`.
 * - `parimutuel`: only the winning square pays: `x - max(1, x/100)` plus
 *   `floor(total_winnings * x / T)`.
 * - ORE, on the winning square only: split, `floor(reward * x / T)`; else the whole
 *   reward to the miner whose range `[cumulative, cumulative + x)` holds the sample; and
 *   `floor(motherlode * x / T)`.
 * Fees: what the admin fee alone takes of a stake (`x - floor(x * (T - admin) / T)`, under
 * parimutuel `max(1, x/100)` of a winning stake), and what the protocol fee takes beyond
 * it, so that a stake's fees and what comes back add up to what it lost where it won or
 * was returned; a parimutuel losing stake is lost to the winners, not to a fee.
 */
export function settleMiners(draw: RoundDraw, played: PlayedRound): MinerOutcome[] {
  const { winningSquare: w } = draw;
  if (w === null) {
    return played.miners.map((m) => ({ authority: m.authority, solBack: sum(m.deployed), oreTopMiner: 0, oreSplit: 0, oreMotherlode: 0, topMiner: false, adminFee: 0, protocolFee: 0 }));
  }
  const totalWinnings = draw.rule === 'parimutuel' ? settleRound(played.deployed, w).totalWinnings : 0;
  const onWinner = played.deployed[w]!;
  return played.miners.map((m) => {
    let solBack = 0;
    let adminFee = 0;
    let protocolFee = 0;
    for (let s = 0; s < SQUARES; s++) {
      const x = m.deployed[s]!;
      if (x === 0) continue;
      const t = played.deployed[s]!;
      if (draw.rule === 'parimutuel') {
        if (s !== w) continue;
        const admin = Math.max(1, Math.floor(x / 100));
        solBack += x - admin + share(totalWinnings, x, t);
        adminFee += admin;
        continue;
      }
      const admin = Math.max(1, Math.floor(t / 100));
      const afterAdmin = share(x, Math.max(0, t - admin), t);
      adminFee += x - afterAdmin;
      if (s === w) {
        solBack += afterAdmin;
        continue;
      }
      const protocol = Math.max(1, Math.floor(Math.max(0, t - admin) / 10));
      const back = share(x, Math.max(0, t - admin - protocol), t);
      protocolFee += afterAdmin - back;
      solBack += back;
    }
    const x = m.deployed[w]!;
    let oreTopMiner = 0;
    let oreSplit = 0;
    let oreMotherlode = 0;
    let topMiner = false;
    if (x > 0) {
      if (draw.split) oreSplit = share(draw.topMinerReward, x, onWinner);
      else if (draw.topMinerSample !== null && draw.topMinerSample >= m.cumulative[w]! && draw.topMinerSample < m.cumulative[w]! + x) {
        topMiner = true;
        oreTopMiner = draw.topMinerReward;
      }
      if (draw.motherlode > 0) oreMotherlode = share(draw.motherlode, x, onWinner);
    }
    return { authority: m.authority, solBack, oreTopMiner, oreSplit, oreMotherlode, topMiner, adminFee, protocolFee };
  });
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** Lamports a wallet paid the network for the transactions that carried its deploys. */
export interface NetworkFees {
  /** 5,000 lamports a signature. */
  readonly base: number;
  /** The rest of the fee: the priority the payer bid. */
  readonly priority: number;
}

/** Lamports a signature costs (the network's `lamports_per_signature`). */
export const LAMPORTS_PER_SIGNATURE = 5000;

/**
 * What each wallet that deployed paid the network for it: the fee of every transaction
 * that carried one of its deploys and that it paid (it was the fee payer), each
 * transaction once however many deploys it carried. A wallet whose deploys an executor
 * sent paid none. Null when a transaction it paid does not say its fee. Failed
 * transactions carry no deploys and are not counted here.
 */
export function networkFees(
  deploys: readonly { readonly authority: string; readonly signature: string }[],
  transactions: readonly { readonly signature: string; readonly feePayer: string | null; readonly fee: number | null; readonly signatures: number }[],
): Map<string, NetworkFees | null> {
  const bySignature = new Map<string, (typeof transactions)[number]>();
  for (const tx of transactions) bySignature.set(tx.signature, tx);
  const fees = new Map<string, { base: number; priority: number } | null>();
  const counted = new Set<string>();
  for (const d of deploys) {
    if (!fees.has(d.authority)) fees.set(d.authority, { base: 0, priority: 0 });
    const tx = bySignature.get(d.signature);
    if (tx === undefined || tx.feePayer !== d.authority || counted.has(tx.signature)) continue;
    counted.add(tx.signature);
    const sum = fees.get(d.authority)!;
    if (sum === null) continue;
    if (tx.fee === null) {
      fees.set(d.authority, null);
      continue;
    }
    const base = Math.min(tx.fee, LAMPORTS_PER_SIGNATURE * tx.signatures);
    sum.base += base;
    sum.priority += tx.fee - base;
  }
  return fees;
}
