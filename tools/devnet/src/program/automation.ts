/**
 * The Automation account and the `automate` instruction, transcribed from
 * regolith-labs/ore at 12274aa (`api/src/state/automation.rs`, `program/src/automate.rs`;
 * the same at 7d18eda but for the Discretionary strategy, which the devnet does not play).
 * An automation holds SOL its authority deposited; an executor then deploys it round after
 * round (deploy.ts), taking a fee each time, until the balance no longer covers a square.
 */
import { keccak256Of40 } from './keccak40';
import { CHECKPOINT_FEE, type MinerV3, newMiner } from './miner';
import { Pod, PodReader } from './pod';

const AUTOMATION_DISCRIMINATOR = 100;
/** `8 + size_of::<Automation>()` of v3 (12274aa): amount, authority, balance, executor, fee, strategy, mask, reload. */
export const AUTOMATION_V3_LENGTH = 120;
/** `AutomationStrategy` (`api/src/state/automation.rs`). */
export const STRATEGY = { random: 0, preferred: 1 } as const;

/** An `Automation` (12274aa), field by field. */
export interface AutomationV3 {
  amount: number;
  authority: Uint8Array;
  balance: number;
  executor: Uint8Array;
  fee: number;
  strategy: number;
  mask: number;
  reload: number;
}

export function automationV3(a: AutomationV3): Uint8Array {
  return new Pod(AUTOMATION_V3_LENGTH)
    .header(AUTOMATION_DISCRIMINATOR)
    .u64(a.amount)
    .raw(a.authority)
    .u64(a.balance)
    .raw(a.executor)
    .u64(a.fee)
    .u64(a.strategy)
    .u64(a.mask)
    .u64(a.reload)
    .done();
}

export function readAutomationV3(bytes: Uint8Array): AutomationV3 {
  if (bytes.length !== AUTOMATION_V3_LENGTH || bytes[0] !== AUTOMATION_DISCRIMINATOR) throw new RangeError(`not a ${AUTOMATION_V3_LENGTH}-byte Automation account`);
  const r = new PodReader(bytes);
  return { amount: r.u64(), authority: r.raw(), balance: r.u64(), executor: r.raw(), fee: r.u64(), strategy: r.u64(), mask: r.u64(), reload: r.u64() };
}

/**
 * `generate_random_mask` (`program/src/deploy.rs`): selection sampling over the 25
 * squares, one byte of `r` each: square i is taken when `r[i] * (25 - i) < needed * 256`.
 * It always takes exactly `count` squares (when `needed` equals the squares left, every
 * byte passes).
 */
export function generateRandomMask(count: number, r: Uint8Array): number {
  let mask = 0;
  let selected = 0;
  for (let i = 0; i < 25; i++) {
    const needed = count - selected;
    if (needed > 0 && r[i]! * (25 - i) < needed * 256) {
      mask |= 1 << i;
      selected++;
    }
  }
  return mask;
}

/** `keccak(authority ++ round_id LE)`: the bytes a Random automation's squares are drawn from in a round. */
export function randomMaskSeed(authority: Uint8Array, roundId: number): Uint8Array {
  ROUND_ID_VIEW.setUint32(0, roundId % 2 ** 32, true);
  ROUND_ID_VIEW.setUint32(4, Math.floor(roundId / 2 ** 32), true);
  return keccak256Of40(authority, ROUND_ID);
}
const ROUND_ID = new Uint8Array(8);
const ROUND_ID_VIEW = new DataView(ROUND_ID.buffer);

/** What `automate` moved, in lamports. */
export interface AutomateOutcome {
  /** The automation after (null: closed). */
  readonly automation: AutomationV3 | null;
  readonly miner: MinerV3;
  /** Rent-exempt lamports the signer paid to open the Miner / Automation account (0: it existed). */
  readonly minerOpened: boolean;
  readonly automationOpened: boolean;
  /** Lamports from the signer into the Miner account for its checkpoint fee. */
  readonly checkpointFee: number;
  /** Lamports from the signer into the automation (its deposit). */
  readonly deposit: number;
  /** The closed automation's lamports went back to the signer. */
  readonly closed: boolean;
}

/** `Automate` instruction arguments (`api/src/instruction.rs`). */
export interface AutomateArgs {
  readonly amount: number;
  readonly deposit: number;
  readonly fee: number;
  readonly mask: number;
  readonly strategy: number;
  readonly reload: boolean;
  /** The executor account; all zero closes the automation. */
  readonly executor: Uint8Array;
}

/**
 * `process_automate` (12274aa): opens the signer's Miner if it has none, then closes the
 * automation (executor = the default key) or opens/updates it: the settings are replaced,
 * the deposit added to the balance, and the checkpoint fee topped up if the Miner has none.
 */
export function automate(signer: Uint8Array, miner: MinerV3 | null, automation: AutomationV3 | null, args: AutomateArgs): AutomateOutcome {
  const minerOpened = miner === null;
  const m = miner ?? newMiner(signer);
  if (args.executor.every((b) => b === 0)) {
    if (automation === null) throw new Error('no automation to close');
    return { automation: null, miner: m, minerOpened, automationOpened: false, checkpointFee: 0, deposit: 0, closed: true };
  }
  const automationOpened = automation === null;
  const a: AutomationV3 = automation ?? { amount: 0, authority: signer, balance: 0, executor: new Uint8Array(32), fee: 0, strategy: 0, mask: 0, reload: 0 };
  a.amount = args.amount;
  a.balance += args.deposit;
  a.executor = args.executor;
  a.fee = args.fee;
  a.mask = args.mask;
  a.strategy = args.strategy;
  a.reload = args.reload ? 1 : 0;
  let checkpointFee = 0;
  if (m.checkpointFee === 0) {
    m.checkpointFee = CHECKPOINT_FEE;
    checkpointFee = CHECKPOINT_FEE;
  }
  return { automation: a, miner: m, minerOpened, automationOpened, checkpointFee, deposit: args.deposit, closed: false };
}

/** `Automate` instruction data: `[0] ++ amount ++ deposit ++ fee ++ mask (u64 LE each) ++ strategy u8 ++ reload u64 LE`. */
export function automateData(args: Omit<AutomateArgs, 'executor'>): Uint8Array {
  const data = new Uint8Array(1 + 8 * 4 + 1 + 8);
  const view = new DataView(data.buffer);
  data[0] = 0;
  view.setBigUint64(1, BigInt(args.amount), true);
  view.setBigUint64(9, BigInt(args.deposit), true);
  view.setBigUint64(17, BigInt(args.fee), true);
  view.setBigUint64(25, BigInt(args.mask), true);
  data[33] = args.strategy;
  view.setBigUint64(34, args.reload ? 1n : 0n, true);
  return data;
}
