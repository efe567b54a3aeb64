/**
 * Every miner's side of a round, as the program keeps and settles it: the deploy
 * handler's accounting of each miner's stake and cumulative position on each square
 * (`program/src/deploy.rs`), and what each miner's checkpoint pays
 * (`program/src/checkpoint.rs`): SOL back, the ORE of a split or of the top miner, the
 * motherlode share, and what the fees took of its stakes.
 */
import type { PayoutRule } from '@gridlab/contracts';
import { ALL_SQUARES, SQUARES } from './ore-layout';
import { lowestBit } from './rebuild-round';
import { settleRound, share } from './settlement';

/** One deploy as the program received it: an amount per square and the squares asked for. */
export interface MinerDeploy {
  readonly amount: number;
  /** Bit s: square s asked for. */
  readonly squares: number;
}

/**
 * A round's wallets numbered 0, 1, ... in the order of their first deploy: every per-wallet
 * figure of a round is then a slot of a flat array instead of an entry of a map.
 */
class WalletNumbers {
  readonly addresses: string[] = [];
  private readonly numbers = new Map<string, number>();

  get size(): number {
    return this.addresses.length;
  }

  /** The wallet's number, numbering it if it is new. */
  of(address: string): number {
    let n = this.numbers.get(address);
    if (n === undefined) {
      n = this.addresses.length;
      this.numbers.set(address, n);
      this.addresses.push(address);
    }
    return n;
  }

  /** The number of a wallet already numbered. */
  find(address: string): number | undefined {
    return this.numbers.get(address);
  }
}

/** Where each of a round's deploys belongs: deploy i's wallet number, and the index of the transaction that carried it (-1: none listed). */
export interface DeployIndex {
  readonly wallets: WalletNumbers;
  readonly wallet: Int32Array;
  readonly transaction: Int32Array;
}

/** Numbers the wallets of `deploys` (in the order they ran) and finds each one's transaction. */
export function indexDeploys(deploys: readonly { readonly authority: string; readonly signature: string }[], transactions: readonly { readonly signature: string }[]): DeployIndex {
  const wallets = new WalletNumbers();
  const wallet = new Int32Array(deploys.length);
  const transaction = new Int32Array(deploys.length);
  // Deploys come in the order their transactions ran: each is found at or after the one
  // before's, without a map of every signature; past one out of that order, by the map.
  let bySignature: Map<string, number> | null = null;
  let t = 0;
  for (let i = 0; i < deploys.length; i++) {
    const d = deploys[i]!;
    wallet[i] = wallets.of(d.authority);
    if (bySignature === null) {
      while (t < transactions.length && transactions[t]!.signature !== d.signature) t++;
      if (t < transactions.length) {
        transaction[i] = t;
        continue;
      }
      bySignature = new Map();
      for (let k = 0; k < transactions.length; k++) bySignature.set(transactions[k]!.signature, k);
    }
    transaction[i] = bySignature.get(d.signature) ?? -1;
  }
  return { wallets, wallet, transaction };
}

/**
 * Every wallet's position in a round, as the program keeps it: the wallet's stake on each
 * square and the round's stake on the square before its own, square `s` of wallet `w` at
 * `w * SQUARES + s`.
 */
export interface PlayedRound {
  readonly deployed: readonly number[];
  readonly count: readonly number[];
  /** How many wallets the round has (numbered by `indexDeploys`). */
  readonly wallets: number;
  readonly stake: Float64Array;
  /** `round.deployed[s]` when the wallet first deployed (on `s`: its range of the top-miner draw starts there). */
  readonly cumulative: Float64Array;
}

/**
 * The deploy handler's accounting (deploy.rs at 70763fc, lines 248-306; the same rule in
 * every era since 4e3ecff): a square is recorded at the miner's first deploy on it in the
 * round and skipped on any later one (`miner.deployed[s] > 0`), its cumulative set to the
 * round's stake on it just before, `round.count[s]` counting the deploys on it. A wallet
 * whose deploys all skipped or moved nothing holds no stake: it never joined the round.
 */
export function playDeploys(deploys: readonly MinerDeploy[], index: Pick<DeployIndex, 'wallets' | 'wallet'>): PlayedRound {
  const wallets = index.wallets.size;
  const deployed = new Float64Array(SQUARES);
  const count = new Array<number>(SQUARES).fill(0);
  const stake = new Float64Array(wallets * SQUARES);
  const cumulative = new Float64Array(wallets * SQUARES);
  const joined = new Uint8Array(wallets);
  for (let i = 0; i < deploys.length; i++) {
    const deploy = deploys[i]!;
    const w = index.wallet[i]!;
    const at = w * SQUARES;
    if (joined[w] === 0) {
      // A new round's miner starts from the board as it stands (`miner.cumulative = round.deployed`).
      joined[w] = 1;
      cumulative.set(deployed, at);
    }
    // A deploy of 0 lamports still counts a miner on each square it names, and leaves the
    // square open to its next deploy (`miner.deployed[s]` stays 0): the program sets no minimum.
    for (let m = deploy.squares & ALL_SQUARES; m !== 0; m &= m - 1) {
      const s = lowestBit(m);
      if (stake[at + s]! > 0) continue;
      cumulative[at + s] = deployed[s]!;
      stake[at + s] = deploy.amount;
      deployed[s]! += deploy.amount;
      count[s]! += 1;
    }
  }
  return { deployed: Array.from(deployed), count, wallets, stake, cumulative };
}

/** Whether wallet `w` holds a stake in the round (it joined it). */
export function holdsStake(played: PlayedRound, w: number): boolean {
  for (let s = w * SQUARES, end = s + SQUARES; s < end; s++) if (played.stake[s]! > 0) return true;
  return false;
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

// An outcome's cells in `MinerOutcomes`.
const SOL_BACK = 0;
const ORE_TOP = 1;
const ORE_SPLIT = 2;
const ORE_MOTHERLODE = 3;
const TOP_MINER = 4;
const ADMIN_FEE = 5;
const PROTOCOL_FEE = 6;
const OUTCOME_CELLS = 7;

/** What each wallet's checkpoint pays, wallet `w`'s figures at `w * 7`: one array a round, not an object a wallet. */
export class MinerOutcomes {
  constructor(private readonly cells: Float64Array) {}

  solBack(w: number): number {
    return this.cells[w * OUTCOME_CELLS + SOL_BACK]!;
  }

  oreTopMiner(w: number): number {
    return this.cells[w * OUTCOME_CELLS + ORE_TOP]!;
  }

  oreSplit(w: number): number {
    return this.cells[w * OUTCOME_CELLS + ORE_SPLIT]!;
  }

  oreMotherlode(w: number): number {
    return this.cells[w * OUTCOME_CELLS + ORE_MOTHERLODE]!;
  }

  topMiner(w: number): boolean {
    return this.cells[w * OUTCOME_CELLS + TOP_MINER] === 1;
  }

  adminFee(w: number): number {
    return this.cells[w * OUTCOME_CELLS + ADMIN_FEE]!;
  }

  protocolFee(w: number): number {
    return this.cells[w * OUTCOME_CELLS + PROTOCOL_FEE]!;
  }

  /** Wallet `w`'s outcome as an object. */
  of(w: number): MinerOutcome {
    return {
      solBack: this.solBack(w),
      oreTopMiner: this.oreTopMiner(w),
      oreSplit: this.oreSplit(w),
      oreMotherlode: this.oreMotherlode(w),
      topMiner: this.topMiner(w),
      adminFee: this.adminFee(w),
      protocolFee: this.protocolFee(w),
    };
  }
}

/**
 * Each wallet's checkpoint (checkpoint.rs at 70763fc for `returns`, at 3112ab7 for
 * `parimutuel`); a wallet holding no stake gets nothing and pays no fee.
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
export function settleMiners(draw: RoundDraw, played: PlayedRound): MinerOutcomes {
  const { winningSquare: w, rule } = draw;
  const { stake, cumulative } = played;
  const cells = new Float64Array(played.wallets * OUTCOME_CELLS);
  const totalWinnings = w !== null && rule === 'parimutuel' ? settleRound(played.deployed, w).totalWinnings : 0;
  const onWinner = w === null ? 0 : played.deployed[w]!;
  for (let m = 0; m < played.wallets; m++) {
    const at = m * SQUARES;
    const end = at + SQUARES;
    const out = m * OUTCOME_CELLS;
    if (w === null) {
      // Voided: every stake comes back.
      let back = 0;
      for (let i = at; i < end; i++) back += stake[i]!;
      cells[out + SOL_BACK] = back;
      continue;
    }
    let solBack = 0;
    let adminFee = 0;
    let protocolFee = 0;
    for (let i = at; i < end; i++) {
      const x = stake[i]!;
      if (x === 0) continue;
      const s = i - at;
      const t = played.deployed[s]!;
      if (rule === 'parimutuel') {
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
    cells[out + SOL_BACK] = solBack;
    cells[out + ADMIN_FEE] = adminFee;
    cells[out + PROTOCOL_FEE] = protocolFee;
    const x = stake[at + w]!;
    if (x > 0) {
      if (draw.split) cells[out + ORE_SPLIT] = share(draw.topMinerReward, x, onWinner);
      else if (draw.topMinerSample !== null && draw.topMinerSample >= cumulative[at + w]! && draw.topMinerSample < cumulative[at + w]! + x) {
        cells[out + TOP_MINER] = 1;
        cells[out + ORE_TOP] = draw.topMinerReward;
      }
      if (draw.motherlode > 0) cells[out + ORE_MOTHERLODE] = share(draw.motherlode, x, onWinner);
    }
  }
  return new MinerOutcomes(cells);
}

/** Lamports a signature costs (the network's `lamports_per_signature`). */
const LAMPORTS_PER_SIGNATURE = 5000;

/** Lamports each wallet (by number) paid the network for the transactions that carried its deploys; NaN where a fee is not known. */
export interface WalletFees {
  /** 5,000 lamports a signature. */
  readonly base: Float64Array;
  /** The rest of the fee: the priority the payer bid. */
  readonly priority: Float64Array;
}

/**
 * What each wallet that deployed paid the network for it: the fee of every transaction
 * that carried one of its deploys and that it paid (it was the fee payer), each
 * transaction once however many deploys it carried. A wallet whose deploys an executor
 * sent paid none. NaN (not known) when a transaction it paid does not say its fee. Failed
 * transactions carry no deploys and are not counted here.
 */
export function networkFees(
  deploys: readonly { readonly authority: string }[],
  index: DeployIndex,
  transactions: readonly { readonly feePayer: string | null; readonly fee: number | null; readonly signatures: number }[],
): WalletFees {
  const base = new Float64Array(index.wallets.size);
  const priority = new Float64Array(index.wallets.size);
  const counted = new Uint8Array(transactions.length);
  for (let i = 0; i < deploys.length; i++) {
    const t = index.transaction[i]!;
    const tx = transactions[t];
    if (tx === undefined || tx.feePayer !== deploys[i]!.authority || counted[t] === 1) continue;
    counted[t] = 1;
    const w = index.wallet[i]!;
    if (tx.fee === null) {
      base[w] = NaN;
      priority[w] = NaN;
      continue;
    }
    const paid = Math.min(tx.fee, LAMPORTS_PER_SIGNATURE * tx.signatures);
    base[w]! += paid;
    priority[w]! += tx.fee - paid;
  }
  return { base, priority };
}
