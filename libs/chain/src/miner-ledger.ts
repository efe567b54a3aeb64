/**
 * Every wallet's side of a settled round, from the round as its transactions rebuilt it:
 * the deploys each wallet made (in the order they ran), what its checkpoint pays and what
 * the fees took (./miner-settlement.ts), and what its deploys' transactions cost it
 * (network and priority fees, the automation's executor fee, the checkpoint deposit).
 */
import type { MinerRound, PayoutRule } from '@gridlab/contracts';
import { playDeploys, settleMiners, networkFees, type MinerOutcome, type NetworkFees, type PlayedRound, type RoundDraw } from './miner-settlement';
import { MinerRows } from './miner-rows';
import { SPLIT_ADDRESS, SQUARES } from './ore-layout';
import { popcount, type RoundDeploy, type UnknownFigures } from './rebuild-round';
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


interface WalletDeploys {
  readonly address: string;
  readonly deploys: RoundDeploy[];
}

/**
 * What a round's transactions say of its wallets before a payout rule settles them:
 * their deploys, the stakes the program took (null when a deploy hides its squares),
 * and what their transactions cost them. Small next to the transactions it is read
 * from, which need not be kept once it is.
 */
export interface MinerFacts {
  readonly account: RoundAccount;
  readonly wallets: ReadonlyMap<string, WalletDeploys>;
  /** Every deploy replayed under the program's rules; null when one hides its squares or the replay disagrees with the account. */
  readonly played: PlayedRound | null;
  readonly fees: ReadonlyMap<string, NetworkFees | null>;
  readonly paid: ReadonlyMap<string, TransactionCosts>;
}

/**
 * Reads a round's wallets from its deploys and transactions (./miner-settlement.ts
 * replays the deploys). Where a deploy does not show its squares (automated deploys
 * before 2025-12-30) the round's per-square stakes are not all known, so no wallet's
 * outcome is: `played` is null and so are those figures of every wallet, never estimated.
 */
export function minerFacts(input: Omit<LedgerInput, 'settledAt' | 'payoutRule'>): MinerFacts {
  const wallets = new Map<string, WalletDeploys>();
  for (const d of input.applied) {
    let w = wallets.get(d.authority);
    if (w === undefined) wallets.set(d.authority, (w = { address: d.authority, deploys: [] }));
    w.deploys.push(d);
  }
  const partial = input.unknown.deployed !== 0 || input.unknown.count !== 0 || input.applied.some((d) => d.squares === null || d.amount === null);
  let played: PlayedRound | null = null;
  if (!partial) {
    played = playDeploys(input.applied.map((d) => ({ authority: d.authority, amount: d.amount!, squares: squaresOf(d.squares!) })));
    const voided = winningSquare(input.account.slotHash) === null;
    // The program's own figures must be what the deploys add up to (a voided 952-byte round's are zeroed).
    if (!voided && !played.deployed.every((v, s) => v === input.account.deployed[s])) played = null;
  }
  return { account: input.account, wallets, played, fees: networkFees(input.applied, input.transactions), paid: transactionCosts(input) };
}

/** The ledger rows of a settled round, one per wallet in the order of its first deploy. */
export function minerRounds(input: LedgerInput): MinerRound[] {
  return settleMinerFacts(minerFacts(input), input).rows();
}

/** The ledger rows of a round read by `minerFacts`, settled under its payout rule, packed. */
export function settleMinerFacts(facts: MinerFacts, settled: { readonly settledAt: string; readonly payoutRule: PayoutRule }): MinerRows {
  const { account, played, fees, paid } = facts;
  const outcomes = new Map<string, MinerOutcome>();
  const stakes = new Map<string, readonly number[]>();
  if (played !== null) {
    for (const o of settleMiners(roundDraw(account, settled.payoutRule), played)) outcomes.set(o.authority, o);
    for (const m of played.miners) stakes.set(m.authority, m.deployed);
  }
  const winner = winningSquare(account.slotHash);
  const rows = MinerRows.builder({ roundId: account.id, settledAt: settled.settledAt, payoutRule: settled.payoutRule }, facts.wallets.size);
  for (const w of facts.wallets.values()) {
    const first = w.deploys[0]!;
    const last = w.deploys[w.deploys.length - 1]!;
    const stake = played === null ? null : (stakes.get(w.address) ?? NO_STAKE);
    const perSquare = stake ?? stakeShown(w.deploys);
    let squares: number | null = null;
    let deployed: number | null = null;
    if (perSquare !== null) {
      squares = 0;
      deployed = 0;
      for (let s = 0; s < SQUARES; s++) {
        const v = perSquare[s]!;
        if (v <= 0) continue;
        squares |= 1 << s;
        deployed += v;
      }
    }
    const outcome = played === null ? null : (outcomes.get(w.address) ?? ZERO_OUTCOME);
    const network = fees.get(w.address) ?? null;
    const cost = paid.get(w.address);
    let automated = false;
    let strategy: number | null = null;
    for (const d of w.deploys) {
      if (d.strategy !== null) automated = true;
      if (strategy === null && typeof d.strategy === 'number') strategy = d.strategy;
    }
    // A wallet none of whose transactions touched the round's deploys paid nothing; null stays null.
    const executorFee = cost === undefined ? 0 : cost.executorFee;
    const net =
      outcome === null || deployed === null || network === null || executorFee === null ? null : outcome.solBack - deployed - network.base - network.priority - executorFee;
    rows.push({
      address: w.address,
      squares,
      stake: perSquare,
      deployed,
      deploys: w.deploys.length,
      signer: first.signer,
      automated,
      automationStrategy: strategy,
      slotsLeft: first.slotsLeft,
      slotsLeftLast: last.slotsLeft,
      solBack: outcome?.solBack ?? null,
      oreTopMiner: outcome?.oreTopMiner ?? null,
      oreSplit: outcome?.oreSplit ?? null,
      oreMotherlode: outcome?.oreMotherlode ?? null,
      topMiner: outcome?.topMiner ?? null,
      heldWinningSquare: outcome === null || perSquare === null ? null : winner !== null && perSquare[winner]! > 0,
      adminFee: outcome?.adminFee ?? null,
      protocolFee: outcome?.protocolFee ?? null,
      networkFee: network?.base ?? null,
      priorityFee: network?.priority ?? null,
      executorFee,
      checkpointDeposit: cost === undefined ? 0 : cost.checkpointDeposit,
      net,
    });
  }
  return rows.finish();
}

/** A wallet whose deploys all took nothing. */
const NO_STAKE: readonly number[] = new Array<number>(SQUARES).fill(0);

const ZERO_OUTCOME: Omit<MinerOutcome, 'authority'> = { solBack: 0, oreTopMiner: 0, oreSplit: 0, oreMotherlode: 0, topMiner: false, adminFee: 0, protocolFee: 0 };

/** Squares of a mask, kept per mask: a round's deploys use few masks (all 25, one square, a handful of patterns) many times. */
const SQUARE_LISTS = new Map<number, readonly number[]>();

function squaresOf(mask: number): readonly number[] {
  const known = SQUARE_LISTS.get(mask);
  if (known !== undefined) return known;
  const list: number[] = [];
  for (let s = 0; s < SQUARES; s++) if ((mask & (1 << s)) !== 0) list.push(s);
  // Bounded: a mask of the 2^25 possible is an entry at most once; a flood of rare ones is dropped.
  if (SQUARE_LISTS.size < 65_536) SQUARE_LISTS.set(mask, list);
  return list;
}

/** A wallet's stake per square from its deploys that show their squares (a square at its first deploy only); null when one does not. */
function stakeShown(deploys: readonly RoundDeploy[]): number[] | null {
  const stake = new Array<number>(SQUARES).fill(0);
  for (const d of deploys) {
    if (d.squares === null || d.amount === null) return null;
    for (let s = 0; s < SQUARES; s++) if ((d.squares & (1 << s)) !== 0 && stake[s] === 0) stake[s] = d.amount;
  }
  return stake;
}

interface TransactionCosts {
  /** Lamports the wallet's Automation paid an executor other than the wallet; null when the balances do not show it. */
  executorFee: number | null;
  /** Lamports put into the wallet's Miner account for its checkpoint; null when not shown. */
  checkpointDeposit: number | null;
}

/**
 * From each transaction's balances: what the wallet's Miner account gained beyond its rent
 * (deploy.rs: `miner_info.collect(CHECKPOINT_FEE, signer)` when the account holds none),
 * and what its Automation lost beyond the stake it moved into the round and the balance a
 * closing automation returned to the wallet (deploy.rs: `automation_info.send(fee, signer)`).
 */
function transactionCosts(input: Pick<LedgerInput, 'applied' | 'transactions' | 'roundAddress'>): Map<string, TransactionCosts> {
  const costs = new Map<string, TransactionCosts>();
  // The stake each executor-sent transaction moved for a wallet (the only ones an executor fee is read from), by transaction and wallet.
  const stakeIn = new Map<string, Map<string, number | null>>();
  for (const d of input.applied) {
    if (d.signer === d.authority) continue;
    let moved = stakeIn.get(d.signature);
    if (moved === undefined) stakeIn.set(d.signature, (moved = new Map<string, number | null>()));
    const prior = moved.has(d.authority) ? moved.get(d.authority)! : 0;
    moved.set(d.authority, prior === null || d.squares === null || d.amount === null ? null : prior + d.amount * popcount(d.squares));
  }
  for (const tx of input.transactions) {
    if (tx.failed) continue;
    // A transaction carries one deploy or a few: a list is cheaper than a set to make and search.
    const minersSeen: string[] = [];
    const automationsSeen: string[] = [];
    for (const call of tx.deploys) {
      const at = call.rounds.indexOf(input.roundAddress);
      if (at < 0) continue;
      let cost = costs.get(call.authority);
      if (cost === undefined) costs.set(call.authority, (cost = { executorFee: 0, checkpointDeposit: 0 }));
      if (!minersSeen.includes(call.authority)) {
        minersSeen.push(call.authority);
        const gain = call.minerGains[at] ?? null;
        const created = tx.created.find((c) => c.address === call.miners[at]);
        const rent = created === undefined ? 0 : created.lamports;
        cost.checkpointDeposit = cost.checkpointDeposit === null || gain === null || rent === null ? null : cost.checkpointDeposit + Math.max(0, gain - rent);
      }
      if (call.automated && call.signer !== call.authority && !automationsSeen.includes(call.authority)) {
        automationsSeen.push(call.authority);
        const stake = stakeIn.get(tx.signature)?.get(call.authority) ?? null;
        const lost = call.automationGain === null ? null : -call.automationGain;
        const returned = call.authorityGain === null ? null : Math.max(0, call.authorityGain);
        const fee = lost === null || stake === null || returned === null ? null : lost - stake - returned;
        cost.executorFee = cost.executorFee === null || fee === null || fee < 0 ? null : cost.executorFee + fee;
      }
    }
  }
  return costs;
}
