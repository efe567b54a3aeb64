/**
 * Every wallet's side of a settled round, from the round as its transactions rebuilt it:
 * the deploys each wallet made (in the order they ran), what its checkpoint pays and what
 * the fees took (./miner-settlement.ts), and what its deploys' transactions cost it
 * (network and priority fees, the automation's executor fee, the checkpoint deposit).
 */
import type { MinerRound, PayoutRule } from '@gridlab/contracts';
import { indexDeploys, networkFees, playDeploys, settleMiners, type DeployIndex, type MinerDeploy, type PlayedRound, type RoundDraw, type WalletFees } from './miner-settlement';
import { MinerRows, type MinerRowInput } from './miner-rows';
import { ALL_SQUARES, SPLIT_ADDRESS, SQUARES } from './ore-layout';
import { lowestBit, popcount, type RoundDeploy, type UnknownFigures } from './rebuild-round';
import { slotHashRng, winningSquare } from './rng';
import type { RoundAccount } from './round.codec';
import type { OreTransaction } from './transactions';

export interface LedgerInput {
  readonly account: RoundAccount;
  readonly roundAddress: string;
  readonly settledAt: string;
  readonly payoutRule: PayoutRule;
  readonly unknown: UnknownFigures;
  /** Every deploy of the round in the order it ran (`rebuildRound(..., listDeploys: true)`). */
  readonly applied: readonly RoundDeploy[];
  /** The round's successful transactions. */
  readonly transactions: readonly OreTransaction[];
}

/** `reverse_bits` of a u64. */
function reverseBits(v: bigint): bigint {
  let out = 0n;
  let x = v;
  for (let i = 0; i < 64; i++) {
    out = (out << 1n) | (x & 1n);
    x >>= 1n;
  }
  return out;
}

/** What the reset drew (round.rs: `top_miner_sample = reverse_bits(rng) % deployed[w]`). */
export function roundDraw(account: RoundAccount, rule: PayoutRule): RoundDraw {
  const w = winningSquare(account.slotHash);
  const split = account.split ?? account.topMiner === SPLIT_ADDRESS;
  const onWinner = w === null ? 0 : account.deployed[w]!;
  const sample = w === null || split || onWinner === 0 ? null : Number(reverseBits(slotHashRng(account.slotHash)) % BigInt(onWinner));
  return { rule, winningSquare: w, topMinerSample: sample, split, topMinerReward: account.topMinerReward, motherlode: account.motherlode };
}

/**
 * What a round's transactions say of its wallets before a payout rule settles them: each
 * wallet's deploys in brief, the stakes the program took (not shown when a deploy hides
 * its squares), and what their transactions cost them; wallet `w` (numbered in the
 * order of its first deploy) at index `w` of every array. Small next to the transactions
 * it is read from, which need not be kept once it is.
 */
export interface MinerFacts {
  readonly account: RoundAccount;
  readonly wallets: readonly string[];
  /** Who signed each wallet's first deploy. */
  readonly signers: readonly string[];
  readonly deploys: Int32Array;
  /** Slots left at each wallet's first and last deploy. */
  readonly slotsLeft: Float64Array;
  readonly slotsLeftLast: Float64Array;
  /** 1: an automation deployed for the wallet. */
  readonly automated: Uint8Array;
  /** The strategy logged by the wallet's first deploy that logged one; NaN: none did. */
  readonly strategy: Float64Array;
  /** Every deploy replayed under the program's rules; null when one hides its squares or the replay disagrees with the account. */
  readonly played: PlayedRound | null;
  /** Each wallet's lamports per square (`w * SQUARES + s`): the replay's, or else what its deploys show. */
  readonly stake: Float64Array;
  /** 1: the wallet's stake is known (`stake` holds it). */
  readonly stakeKnown: Uint8Array;
  readonly fees: WalletFees;
  /** NaN: not shown. */
  readonly executorFee: Float64Array;
  readonly checkpointDeposit: Float64Array;
}

/** Whether every deploy shows its squares and amount. */
function allShown(deploys: readonly RoundDeploy[]): deploys is readonly (RoundDeploy & MinerDeploy)[] {
  for (const d of deploys) if (d.squares === null || d.amount === null) return false;
  return true;
}

/**
 * Reads a round's wallets from its deploys and transactions (./miner-settlement.ts
 * replays the deploys). Where a deploy does not show its squares (automated deploys
 * before 2025-12-30) the round's per-square stakes are not all known, so no wallet's
 * outcome is: `played` is null and so are those figures of every wallet, never estimated.
 */
export function minerFacts(input: Omit<LedgerInput, 'settledAt' | 'payoutRule'>): MinerFacts {
  const { applied } = input;
  const index = indexDeploys(applied, input.transactions);
  const n = index.wallets.size;
  const signers = new Array<string>(n);
  const deploys = new Int32Array(n);
  const slotsLeft = new Float64Array(n);
  const slotsLeftLast = new Float64Array(n);
  const automated = new Uint8Array(n);
  const strategy = new Float64Array(n).fill(NaN);
  for (let i = 0; i < applied.length; i++) {
    const d = applied[i]!;
    const w = index.wallet[i]!;
    if (deploys[w] === 0) {
      signers[w] = d.signer;
      slotsLeft[w] = d.slotsLeft;
    }
    deploys[w]! += 1;
    slotsLeftLast[w] = d.slotsLeft;
    if (d.strategy !== null) automated[w] = 1;
    if (Number.isNaN(strategy[w]) && typeof d.strategy === 'number') strategy[w] = d.strategy;
  }
  let played: PlayedRound | null = null;
  if (input.unknown.deployed === 0 && input.unknown.count === 0 && allShown(applied)) {
    played = playDeploys(applied, index);
    const voided = winningSquare(input.account.slotHash) === null;
    // The program's own figures must be what the deploys add up to (a voided 952-byte round's are zeroed).
    if (!voided && !played.deployed.every((v, s) => v === input.account.deployed[s])) played = null;
  }
  const shown = played === null ? stakeShown(applied, index) : { stake: played.stake, known: new Uint8Array(n).fill(1) };
  const costs = transactionCosts(input, index);
  return {
    account: input.account,
    wallets: index.wallets.addresses,
    signers,
    deploys,
    slotsLeft,
    slotsLeftLast,
    automated,
    strategy,
    played,
    stake: shown.stake,
    stakeKnown: shown.known,
    fees: networkFees(applied, index, input.transactions),
    executorFee: costs.executorFee,
    checkpointDeposit: costs.checkpointDeposit,
  };
}

/** The ledger rows of a settled round, one per wallet in the order of its first deploy. */
export function minerRounds(input: LedgerInput): MinerRound[] {
  return settleMinerFacts(minerFacts(input), input).rows();
}

/** The ledger rows of a round read by `minerFacts`, settled under its payout rule, packed. */
export function settleMinerFacts(facts: MinerFacts, settled: { readonly settledAt: string; readonly payoutRule: PayoutRule }): MinerRows {
  const { account, played, fees, stake } = facts;
  const outcomes = played === null ? null : settleMiners(roundDraw(account, settled.payoutRule), played);
  const winner = winningSquare(account.slotHash);
  const n = facts.wallets.length;
  const rows = MinerRows.builder({ roundId: account.id, settledAt: settled.settledAt, payoutRule: settled.payoutRule }, n);
  // One row object for all the wallets: the builder copies its figures as it is pushed.
  const row: { -readonly [K in keyof MinerRowInput]: MinerRowInput[K] } = { ...EMPTY_ROW };
  for (let w = 0; w < n; w++) {
    const at = w * SQUARES;
    let squares: number | null = null;
    let deployed: number | null = null;
    if (facts.stakeKnown[w] === 1) {
      squares = 0;
      deployed = 0;
      for (let i = at, end = at + SQUARES; i < end; i++) {
        const v = stake[i]!;
        if (v <= 0) continue;
        squares |= 1 << (i - at);
        deployed += v;
      }
    }
    const known = outcomes !== null;
    const network = nullIfNaN(fees.base[w]!);
    const priority = nullIfNaN(fees.priority[w]!);
    const executorFee = nullIfNaN(facts.executorFee[w]!);
    const solBack = known ? outcomes.solBack(w) : null;
    row.address = facts.wallets[w]!;
    row.squares = squares;
    row.stake = squares === null ? null : stake;
    row.stakeAt = at;
    row.deployed = deployed;
    row.deploys = facts.deploys[w]!;
    row.signer = facts.signers[w]!;
    row.automated = facts.automated[w] === 1;
    row.automationStrategy = nullIfNaN(facts.strategy[w]!);
    row.slotsLeft = facts.slotsLeft[w]!;
    row.slotsLeftLast = facts.slotsLeftLast[w]!;
    row.solBack = solBack;
    row.oreTopMiner = known ? outcomes.oreTopMiner(w) : null;
    row.oreSplit = known ? outcomes.oreSplit(w) : null;
    row.oreMotherlode = known ? outcomes.oreMotherlode(w) : null;
    row.topMiner = known ? outcomes.topMiner(w) : null;
    row.heldWinningSquare = !known || squares === null ? null : winner !== null && stake[at + winner]! > 0;
    row.adminFee = known ? outcomes.adminFee(w) : null;
    row.protocolFee = known ? outcomes.protocolFee(w) : null;
    row.networkFee = network;
    row.priorityFee = priority;
    row.executorFee = executorFee;
    row.checkpointDeposit = nullIfNaN(facts.checkpointDeposit[w]!);
    row.net = solBack === null || deployed === null || network === null || priority === null || executorFee === null ? null : solBack - deployed - network - priority - executorFee;
    rows.push(row);
  }
  return rows.finish();
}

const nullIfNaN = (v: number): number | null => (Number.isNaN(v) ? null : v);

const EMPTY_ROW: MinerRowInput = {
  address: '', squares: null, stake: null, stakeAt: 0, deployed: null, deploys: 0, signer: '', automated: false, automationStrategy: null, slotsLeft: 0,
  slotsLeftLast: 0, solBack: null, oreTopMiner: null, oreSplit: null, oreMotherlode: null, topMiner: null, heldWinningSquare: null, adminFee: null,
  protocolFee: null, networkFee: null, priorityFee: null, executorFee: null, checkpointDeposit: null, net: null,
};

/** Each wallet's stake per square from its deploys that show their squares (a square at its first deploy only); not known for a wallet with one that does not. */
function stakeShown(deploys: readonly RoundDeploy[], index: DeployIndex): { stake: Float64Array; known: Uint8Array } {
  const stake = new Float64Array(index.wallets.size * SQUARES);
  const known = new Uint8Array(index.wallets.size).fill(1);
  for (let i = 0; i < deploys.length; i++) {
    const d = deploys[i]!;
    const w = index.wallet[i]!;
    if (d.squares === null || d.amount === null) {
      known[w] = 0;
      continue;
    }
    const at = w * SQUARES;
    for (let m = d.squares & ALL_SQUARES; m !== 0; m &= m - 1) {
      const i = at + lowestBit(m);
      if (stake[i] === 0) stake[i] = d.amount;
    }
  }
  return { stake, known };
}

/**
 * From each transaction's balances: what the wallet's Miner account gained beyond its rent
 * (deploy.rs: `miner_info.collect(CHECKPOINT_FEE, signer)` when the account holds none),
 * and what its Automation lost beyond the stake it moved into the round and the balance a
 * closing automation returned to the wallet (deploy.rs: `automation_info.send(fee, signer)`).
 * NaN where the balances do not show it; 0 for a wallet none of whose transactions touched
 * the round's deploys.
 */
function transactionCosts(input: Pick<LedgerInput, 'applied' | 'transactions' | 'roundAddress'>, index: DeployIndex): { executorFee: Float64Array; checkpointDeposit: Float64Array } {
  const n = index.wallets.size;
  const executorFee = new Float64Array(n);
  const checkpointDeposit = new Float64Array(n);
  // The stake each executor-sent transaction moved for a wallet (the only ones an executor fee is read from), keyed by transaction and wallet; NaN: not shown.
  const stakeIn = new Map<number, number>();
  for (let i = 0; i < input.applied.length; i++) {
    const d = input.applied[i]!;
    if (d.signer === d.authority) continue;
    const key = index.transaction[i]! * n + index.wallet[i]!;
    const moved = d.squares === null || d.amount === null ? NaN : d.amount * popcount(d.squares);
    stakeIn.set(key, (stakeIn.get(key) ?? 0) + moved);
  }
  // The last transaction (index + 1) whose deploys counted each wallet's checkpoint deposit, and its executor fee: each once a transaction.
  const depositSeen = new Int32Array(n);
  const feeSeen = new Int32Array(n);
  for (let t = 0; t < input.transactions.length; t++) {
    const tx = input.transactions[t]!;
    if (tx.failed) continue;
    for (const call of tx.deploys) {
      const at = call.rounds.indexOf(input.roundAddress);
      if (at < 0) continue;
      const w = index.wallets.find(call.authority);
      // A wallet none of whose deploys the round applied has no row.
      if (w === undefined) continue;
      if (depositSeen[w] !== t + 1) {
        depositSeen[w] = t + 1;
        const gain = call.minerGains[at] ?? null;
        const rent = rentOf(tx.created, call.miners[at]);
        checkpointDeposit[w] = gain === null || rent === null ? NaN : checkpointDeposit[w]! + Math.max(0, gain - rent);
      }
      if (call.automated && call.signer !== call.authority && feeSeen[w] !== t + 1) {
        feeSeen[w] = t + 1;
        const stake = stakeIn.get(t * n + w) ?? NaN;
        const lost = call.automationGain === null ? NaN : -call.automationGain;
        const returned = call.authorityGain === null ? NaN : Math.max(0, call.authorityGain);
        const fee = lost - stake - returned;
        // A negative fee is not one the program takes: the balances do not show it.
        executorFee[w] = fee < 0 ? NaN : executorFee[w]! + fee;
      }
    }
  }
  return { executorFee, checkpointDeposit };
}

/** The rent of the account `address` the transaction created (0 when it created none); null when not shown. */
function rentOf(created: OreTransaction['created'], address: string | undefined): number | null {
  for (const c of created) if (c.address === address) return c.lamports;
  return 0;
}
