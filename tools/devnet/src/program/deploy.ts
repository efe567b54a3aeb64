/**
 * What a Deploy does to the Miner and Automation accounts and to the round, transcribed
 * from `program/src/deploy.rs` of regolith-labs/ore at 12274aa (2025-12-09), with the
 * changes of the later program named where they apply (`DeployRules`). A deploy names an
 * authority; if that authority has an Automation account the deploy is the automation's,
 * whoever signs it: the signer must be its executor, and the squares and the amount come
 * from the automation, not from the instruction (whose arguments the program then ignores
 * but, until 2025-12-30, logs).
 */
import bs58 from 'bs58';
import { type AutomationV3, STRATEGY, generateRandomMask, randomMaskSeed } from './automation';
import type { DeployFields } from './events';
import { CHECKPOINT_FEE, type MinerV3, newMiner } from './miner';

const SQUARES = 25;
/** `EXECUTOR_ADDRESS` (7d18eda `api/src/consts.rs`): an automation naming it may be run by anyone. */
const EXECUTOR_ADDRESS = bs58.decode('executor11111111111111111111111111111111112');

/** How the program of a round's era treats automated deploys. */
export interface DeployRules {
  /**
   * The executor's fee: on every automated deploy at 12274aa; since 0d2283c (2025-12-16)
   * and 4edf25f only on the miner's first deploy of the round, and only if it deployed anything.
   */
  readonly fee: 'every-deploy' | 'first-deploy';
  /** The DeployEvent's `mask`: the instruction's argument until b92354e (2025-12-30), the squares taken since. */
  readonly eventMask: 'requested' | 'deployed';
  /** Since d076eee (2026-01-05) an automation whose executor is `EXECUTOR_ADDRESS` may be run by any signer. */
  readonly permissionless: boolean;
  /**
   * An automation short of SOL: in v3 the deploy stops after the square past which the
   * balance could not follow; since 659f46d (2026-06-22) a first deploy it cannot pay for
   * in full sends the fee to the executor, closes the automation and deploys nothing.
   */
  readonly shortfall: 'stop-early' | 'close-first';
  /**
   * A Random automation's squares: `mask & 0xFF` of them until c3ee5df (2026-07-27); since,
   * its first deploy ever takes `mask` itself and later ones `popcount(mask)` random squares.
   */
  readonly random: 'low-byte' | 'popcount';
}

/** The rules of the executables the referee runs: 12274aa and 7d18eda. */
export const RULES_2025_12: DeployRules = { fee: 'every-deploy', eventMask: 'requested', permissionless: false, shortfall: 'stop-early', random: 'low-byte' };
export const RULES_2026_01: DeployRules = { fee: 'first-deploy', eventMask: 'deployed', permissionless: true, shortfall: 'stop-early', random: 'low-byte' };

/** The round's fields a deploy changes. */
export interface RoundDeployState {
  readonly id: number;
  readonly deployed: number[];
  readonly count: number[];
  totalDeployed: number;
  totalMiners: number;
}

export interface DeployInput {
  readonly signer: Uint8Array;
  readonly authority: Uint8Array;
  /** The instruction's arguments. */
  readonly amount: number;
  readonly mask: number;
  /** The authority's Miner and Automation accounts (null: empty). */
  readonly miner: MinerV3 | null;
  readonly automation: AutomationV3 | null;
  /** Lamports the automation has deployed so far (`total_sol_spent`, 2026-07-27): 0 on its first deploy. */
  readonly automationSpent?: number;
  readonly round: RoundDeployState;
  readonly unixTimestamp: number;
}

export interface DeployOutcome {
  readonly miner: MinerV3;
  /** The signer paid the new Miner account's rent (a manual deploy of a new miner). */
  readonly minerOpened: boolean;
  /** The automation after the deploy; null when it was closed (its lamports went to the authority). */
  readonly automation: AutomationV3 | null;
  readonly automationClosed: boolean;
  /** Lamports a square got (the automation's amount for an automated deploy). */
  readonly amount: number;
  /** The squares deployed to. */
  readonly squares: number;
  readonly totalAmount: number;
  /** Lamports from the automation to the signer. */
  readonly executorFee: number;
  /** Lamports from the signer into the Miner account (its checkpoint fee was 0). */
  readonly checkpointFee: number;
  /** The DeployEvent (null: a `close-first` shortfall returned before logging). */
  readonly event: DeployFields | null;
}

/** The deploy failed in the program: the transaction fails and changes nothing. */
export class DeployRefused extends Error {}

function popcount(mask: number): number {
  let n = 0;
  for (let m = mask >>> 0; m !== 0; m &= m - 1) n++;
  return n;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The squares and the amount a deploy asks for: the automation's by its strategy, or the instruction's. */
export function automatedRequest(rules: DeployRules, automation: AutomationV3, roundId: number, spent: number): { amount: number; squares: number } {
  if (automation.strategy === STRATEGY.preferred) return { amount: automation.amount, squares: automation.mask % 2 ** SQUARES };
  if (automation.strategy !== STRATEGY.random) throw new DeployRefused(`strategy ${automation.strategy} is not played`);
  if (rules.random === 'popcount' && spent === 0) return { amount: automation.amount, squares: automation.mask % 2 ** SQUARES };
  const count = rules.random === 'low-byte' ? Math.min(automation.mask % 256, SQUARES) : popcount(automation.mask % 2 ** SQUARES);
  return { amount: automation.amount, squares: generateRandomMask(count, randomMaskSeed(automation.authority, roundId)) };
}

/**
 * `process_deploy`'s accounting. Mutates `input.round` (and the Miner/Automation objects
 * passed in); throws `DeployRefused` where the program's transaction would fail.
 */
export function deploy(rules: DeployRules, input: DeployInput): DeployOutcome {
  const { signer, round } = input;
  let automation = input.automation;
  if (automation !== null) {
    const executorOk = same(automation.executor, signer) || (rules.permissionless && same(automation.executor, EXECUTOR_ADDRESS));
    if (!executorOk) throw new DeployRefused('the signer is not the automation executor');
    if (!same(automation.authority, input.authority)) throw new DeployRefused('the automation is not the authority’s');
  }
  const request = automation === null ? { amount: input.amount, squares: input.mask % 2 ** SQUARES } : automatedRequest(rules, automation, round.id, input.automationSpent ?? 0);
  const amount = request.amount;

  // The program opens a missing Miner with the signer's seeds: only a manual deploy can.
  let miner = input.miner;
  const minerOpened = miner === null;
  if (miner === null) {
    if (automation !== null || !same(signer, input.authority)) throw new DeployRefused('a Miner account is opened by its own authority');
    miner = newMiner(signer);
  } else if (!same(miner.authority, automation?.authority ?? signer)) throw new DeployRefused('the Miner is not the signer’s');

  if (miner.roundId !== round.id) {
    if (miner.checkpointId !== miner.roundId) throw new DeployRefused('Miner has not checkpointed');
    miner.deployed = new Array<number>(SQUARES).fill(0);
    miner.cumulative = [...round.deployed];
    miner.roundId = round.id;
  }
  let firstDeploy = true;
  for (let s = 0; s < SQUARES && firstDeploy; s++) firstDeploy = miner.deployed[s] === 0;

  const fee = automation === null ? 0 : automation.fee;
  if (automation !== null && rules.shortfall === 'close-first' && firstDeploy && automation.balance < amount * popcount(request.squares) + fee) {
    return { miner, minerOpened, automation: null, automationClosed: true, amount, squares: 0, totalAmount: 0, executorFee: fee, checkpointFee: 0, event: null };
  }

  let totalAmount = 0;
  let squares = 0;
  for (let s = 0; s < SQUARES; s++) {
    if ((request.squares & (1 << s)) === 0 || miner.deployed[s]! > 0) continue;
    miner.cumulative[s] = round.deployed[s]!;
    miner.deployed[s] = amount;
    round.deployed[s]! += amount;
    round.totalDeployed += amount;
    round.count[s]! += 1;
    totalAmount += amount;
    squares |= 1 << s;
    // v3: stop once the balance could not pay for one more square and the fee.
    if (automation !== null && rules.shortfall === 'stop-early' && totalAmount + fee + amount > automation.balance) break;
  }
  if (firstDeploy && totalAmount > 0) round.totalMiners += 1;
  miner.lifetimeDeployed += totalAmount;
  let checkpointFee = 0;
  if (miner.checkpointFee === 0) {
    miner.checkpointFee = CHECKPOINT_FEE;
    checkpointFee = CHECKPOINT_FEE;
  }

  let executorFee = 0;
  let automationClosed = false;
  if (automation !== null) {
    executorFee = rules.fee === 'every-deploy' || (firstDeploy && totalAmount > 0) ? fee : 0;
    // A balance that cannot pay is an overflow panic in the program (overflow-checks = true).
    if (automation.balance < totalAmount + executorFee) throw new DeployRefused('the automation balance underflows');
    automation.balance -= totalAmount + executorFee;
    if (automation.balance < automation.amount + automation.fee) {
      automation = null;
      automationClosed = true;
    }
  }
  const event: DeployFields = {
    authority: miner.authority,
    amount,
    mask: rules.eventMask === 'requested' ? input.mask >>> 0 : squares,
    roundId: round.id,
    signer,
    strategy: input.automation === null ? null : input.automation.strategy,
    totalSquares: popcount(squares),
    ts: input.unixTimestamp,
  };
  return { miner, minerOpened, automation, automationClosed, amount, squares, totalAmount, executorFee, checkpointFee, event };
}
