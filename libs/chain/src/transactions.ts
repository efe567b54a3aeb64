/**
 * What an ORE transaction says about a round, read from `getTransaction`'s `json` (or
 * `jsonParsed`) encoding: the program's events, the Deploy instructions it was called
 * with, the randomness `reset` logged, and the accounts the transaction created.
 *
 * A transaction is read a part at a time: an instruction or event that does not decode is
 * skipped and counted, the rest read. Anyone can list up to ~256 round addresses in a
 * successful transaction of theirs, so a transaction that failed to decode as a whole
 * would take every round it lists with it.
 *
 * Only events the program itself logged count: a `Log` instruction is accepted when it
 * is an inner instruction of the ORE program whose only account is the board PDA (the
 * program's `log` requires the board's signature, which only the program can give, so a
 * successful transaction cannot carry one otherwise). Anyone can put the same bytes in
 * an instruction of their own; those are ignored, and so is everything in a failed
 * transaction.
 */
import { DecodeError } from '@gridlab/errors';
import { decodeBase58, encodeBase58 } from './base58';
import { decodeDeployArgs, decodeOreEvent, ORE_IX, varValueFromLogs, type DeployArgs, type OreEvent } from './events';

/** An instruction as `getTransaction` (`json`) shows it: indexes into the account keys, data in base58. */
export interface InstructionJson {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  readonly data: string;
  readonly stackHeight?: number | null;
}

/**
 * An instruction as `getTransaction` (`jsonParsed`) shows it: addresses instead of
 * indexes; an instruction of a program the node knows (the system program's CreateAccount)
 * carries `parsed` instead of `accounts` and `data`.
 */
interface ParsedInstructionJson {
  readonly programId: string;
  readonly accounts?: readonly string[];
  readonly data?: string;
  readonly parsed?: unknown;
  readonly program?: string;
  readonly stackHeight?: number | null;
}

/** An account key as `jsonParsed` shows it. */
interface ParsedAccountKeyJson {
  readonly pubkey: string;
  readonly signer?: boolean;
  readonly writable?: boolean;
  readonly source?: string;
}

/** The parts of a `getTransaction` result read here, in the `json` or the `jsonParsed` encoding. */
export interface TransactionJson {
  readonly slot: number;
  readonly blockTime?: number | null;
  readonly transaction: {
    readonly signatures: readonly string[];
    readonly message: {
      readonly accountKeys: readonly (string | ParsedAccountKeyJson)[];
      readonly instructions: readonly (InstructionJson | ParsedInstructionJson)[];
    };
  };
  readonly meta: {
    readonly err: unknown;
    /** Lamports the fee payer paid: 5,000 per signature and any priority fee. */
    readonly fee?: number | null;
    readonly innerInstructions?: readonly { readonly index: number; readonly instructions: readonly (InstructionJson | ParsedInstructionJson)[] }[] | null;
    readonly logMessages?: readonly string[] | null;
    /** Lamports of every account before and after, in account-key order (loaded addresses last). */
    readonly preBalances?: readonly number[] | null;
    readonly postBalances?: readonly number[] | null;
    readonly loadedAddresses?: { readonly writable: readonly string[]; readonly readonly: readonly string[] } | null;
  } | null;
}

/** A Deploy instruction, the miner it deploys for (its second account) and the accounts where the program may read its round. */
interface DeployCall {
  readonly authority: string;
  /** Who signed the call: the authority, or an automation's executor. */
  readonly signer: string;
  readonly args: DeployArgs;
  /**
   * The miner's Automation deployed, not the instruction: the signer is not the authority
   * (only an automation's executor may sign for another wallet), or the automation
   * account (the third) paid lamports in the transaction (an executor may be the
   * authority itself). The program then takes the squares and amount from the
   * automation, which the transaction does not show (`program/src/deploy.rs`, 12274aa).
   */
  readonly automated: boolean;
  /**
   * The accounts at the positions the program reads its round from, whichever account
   * order the call used (see DEPLOY_ROUND_POSITIONS); not every account the call names.
   */
  readonly rounds: readonly string[];
  /**
   * Lamports each of `rounds` gained in the transaction (by position), or null when the
   * node gave no balances: what the deploys to it staked (nothing else pays a round before
   * its reset).
   */
  readonly roundGains: readonly (number | null)[];
  /**
   * Lamports the account just before each of `rounds` gained: the miner's PDA where that
   * position holds the round (its checkpoint deposit, and its rent when created here).
   */
  readonly minerGains: readonly (number | null)[];
  /** The accounts whose gains `minerGains` are. */
  readonly miners: readonly string[];
  /** Lamports the authority (second account) and the automation (third) gained; null without balances or the account. */
  readonly authorityGain: number | null;
  readonly automationGain: number | null;
}

/** An account a transaction created through the system program. */
interface CreatedAccount {
  readonly address: string;
  readonly space: number;
  readonly owner: string;
  /** Lamports it was funded with (its rent); null when the parsed form did not say. */
  readonly lamports: number | null;
}

/** Why part of a transaction was not read. */
export type SkipReason =
  /** An instruction names an account index the transaction does not have, or its data is not base58. */
  | 'bad_instruction'
  /** A Deploy instruction whose amount is no lamport figure (above 2^53 - 1, such as u64::MAX). */
  | 'bad_deploy_args'
  /** A program event whose values are no real figures (a DeployEvent of u64::MAX lamports). */
  | 'bad_event';

/** A part of a transaction that was skipped, and why. */
interface Skipped {
  readonly reason: SkipReason;
  readonly detail: string;
}

/** What one transaction says about the ORE program's rounds. */
export interface OreTransaction {
  readonly signature: string;
  readonly slot: number;
  readonly blockTime: number | null;
  readonly failed: boolean;
  /** The account that paid its fee (the first account key, always a signer). */
  readonly feePayer: string | null;
  /** Lamports the fee payer paid, failed or not (null: the node did not say). */
  readonly fee: number | null;
  /** Signatures on it: the network's base fee is 5,000 lamports each, the rest of `fee` was priority. */
  readonly signatures: number;
  /** Events the program logged, in order. */
  readonly events: readonly OreEvent[];
  /** Deploy instructions of the program (top level or inner), in order. */
  readonly deploys: readonly DeployCall[];
  /** The randomness `reset` logged (`var value:`) in the ORE program's own invocation, if any. */
  readonly varValue: Uint8Array | null;
  readonly created: readonly CreatedAccount[];
  /** Instructions and events that did not decode: skipped, the rest of the transaction read. */
  readonly skipped: readonly Skipped[];
}

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
/** System instruction 0, CreateAccount: `u32 0 ++ lamports u64 ++ space u64 ++ owner [32]`. */
const CREATE_ACCOUNT_LENGTH = 52;
/**
 * Base58 of 52 bytes has at least 52 characters (one per leading zero byte); a transfer's
 * 12 bytes at most 17: system data shorter than this is not a CreateAccount, and is not
 * decoded.
 */
const CREATE_ACCOUNT_MIN_TEXT = 40;
/**
 * Where `deploy` reads its round (program/src/deploy.rs): 5 in
 * `[signer, authority, automation, board, miner, round, system_program, ...entropy]`
 * (2025-09-20 to 2025-12-08, and calls of 9 accounts or fewer until 2025-12-09), 6 in
 * `[signer, authority, automation, board, config, miner, round, system_program, ore_program, ...]`
 * (calls of more than 9 accounts since 2025-12-08, every call since 2025-12-09). Either
 * position is safe to read whatever the call's order: where the round is at 5, the program
 * checks that 6 is the system program; where it is at 6, that 5 is the miner's PDA. No
 * other account of the call is the round, however many round addresses it lists.
 */
const DEPLOY_ROUND_POSITIONS = [5, 6] as const;

export interface OreIds {
  readonly programId: string;
  readonly board: string;
}

/** Array.isArray without its narrowing to any[]: a readonly string[] stays one. */
const isList = (value: unknown): value is readonly unknown[] => Array.isArray(value);

/**
 * Reads an ORE transaction, in the `json` or `jsonParsed` encoding. Throws a DecodeError
 * only when `tx` is not a transaction at all; an instruction or event that does not decode
 * is skipped (and listed in `skipped`), never the whole transaction, so nobody can hide
 * the rounds a transaction names by adding something unreadable to it.
 */
export function readOreTransaction(tx: TransactionJson, ids: OreIds): OreTransaction {
  const message = tx?.transaction?.message;
  const signature = tx?.transaction?.signatures?.[0];
  if (typeof signature !== 'string' || !isList(message?.accountKeys) || !isList(message?.instructions) || typeof tx.slot !== 'number') {
    throw new DecodeError('bad_transaction', 'not a getTransaction result in the json or jsonParsed encoding');
  }
  const meta = tx.meta;
  const slot = tx.slot;
  const blockTime = typeof tx.blockTime === 'number' ? tx.blockTime : null;
  const payer: unknown = message.accountKeys[0];
  const feePayer = typeof payer === 'string' ? payer : typeof (payer as ParsedAccountKeyJson | undefined)?.pubkey === 'string' ? (payer as ParsedAccountKeyJson).pubkey : null;
  const fee = typeof meta?.fee === 'number' && Number.isSafeInteger(meta.fee) && meta.fee >= 0 ? meta.fee : null;
  const signatures = tx.transaction.signatures.length;
  // A failed transaction changes no round, but its fee was paid all the same.
  if (meta === null || meta === undefined || (meta.err !== null && meta.err !== undefined)) {
    return { signature, slot, blockTime, failed: true, feePayer, fee, signatures, events: [], deploys: [], varValue: null, created: [], skipped: [] };
  }
  const writable = meta.loadedAddresses?.writable ?? [];
  const readOnly = meta.loadedAddresses?.readonly ?? [];
  const own = message.accountKeys.some((k) => typeof k !== 'string') ? message.accountKeys.map((k) => (typeof k === 'string' ? k : k?.pubkey)) : message.accountKeys;
  // A legacy transaction loads no addresses: its own keys are all of them, no copy needed.
  const keys = (writable.length === 0 && readOnly.length === 0 ? own : [...own, ...writable, ...readOnly]) as readonly unknown[];
  const balances = isList(meta.preBalances) && isList(meta.postBalances) ? { pre: meta.preBalances, post: meta.postBalances } : null;
  const read = new Reader(keys, ids, signature, balances);
  const groups = meta.innerInstructions ?? [];
  // Inner instructions run inside the top-level instruction they follow: keep that order.
  const innerByIndex = new Map<number, readonly (InstructionJson | ParsedInstructionJson)[]>();
  for (const group of groups) innerByIndex.set(group.index, group.instructions);
  const top = message.instructions;
  for (let index = 0; index < top.length; index++) {
    read.visit(top[index]!, false);
    const inner = innerByIndex.get(index);
    if (inner !== undefined) for (const innerIx of inner) read.visit(innerIx, true);
  }
  return {
    signature,
    slot,
    blockTime,
    failed: false,
    feePayer,
    fee,
    signatures,
    events: read.events,
    deploys: read.deploys,
    varValue: varValueFromLogs(meta.logMessages, ids.programId),
    created: read.created,
    skipped: read.skipped,
  };
}

/** An instruction with its program and accounts as addresses (either encoding). */
interface Resolved {
  readonly program: string;
  readonly accounts: readonly string[];
  readonly data: unknown;
  readonly parsed: unknown;
}

/** What the instructions of one successful transaction say, visited in the order they ran. */
class Reader {
  readonly events: OreEvent[] = [];
  readonly deploys: DeployCall[] = [];
  readonly created: CreatedAccount[] = [];
  readonly skipped: Skipped[] = [];

  constructor(
    private readonly keys: readonly unknown[],
    private readonly ids: OreIds,
    private readonly signature: string,
    /** Every account's lamports before and after, in account-key order; null when the node gave none. */
    private readonly balances: { readonly pre: readonly number[]; readonly post: readonly number[] } | null,
  ) {}

  visit(ix: InstructionJson | ParsedInstructionJson, inner: boolean): void {
    const resolved = this.resolve(ix);
    if (resolved === null) return;
    const { program, accounts } = resolved;
    if (program === SYSTEM_PROGRAM) {
      const account = createdAccount(resolved);
      if (account !== null) this.created.push(account);
      return;
    }
    if (program !== this.ids.programId) return;
    if (typeof resolved.data !== 'string') return this.skip('bad_instruction', 'an ORE instruction carries no data');
    let data: Uint8Array;
    try {
      data = decodeBase58(resolved.data);
    } catch {
      return this.skip('bad_instruction', 'an ORE instruction\'s data is not base58');
    }
    if (data[0] === ORE_IX.log) {
      if (inner && accounts.length === 1 && accounts[0] === this.ids.board) this.readEvent(data.subarray(1));
      return;
    }
    let args: DeployArgs | null;
    try {
      args = decodeDeployArgs(data);
    } catch (error) {
      return this.skip('bad_deploy_args', messageOf(error));
    }
    if (args !== null && accounts.length >= 2) {
      const rounds: string[] = [];
      for (const at of DEPLOY_ROUND_POSITIONS) if (at < accounts.length) rounds.push(accounts[at]!);
      const automated = accounts[0] !== accounts[1] || (accounts.length > 2 && (this.gain(accounts[2]!) ?? 0) < 0);
      const miners = DEPLOY_ROUND_POSITIONS.filter((at) => at < accounts.length).map((at) => accounts[at - 1]!);
      const minerGains = miners.map((m) => this.gain(m));
      const automationGain = accounts.length > 2 ? this.gain(accounts[2]!) : null;
      this.deploys.push({ authority: accounts[1]!, signer: accounts[0]!, args, rounds, roundGains: rounds.map((r) => this.gain(r)), miners, minerGains, authorityGain: this.gain(accounts[1]!), automationGain, automated });
    }
  }

  private readEvent(bytes: Uint8Array): void {
    try {
      const event = decodeOreEvent(bytes);
      if (event !== null) this.events.push(event);
    } catch (error) {
      this.skip('bad_event', messageOf(error));
    }
  }

  /** The instruction's program and accounts as addresses; null (skipped) when it names an account the transaction lacks. */
  private resolve(ix: InstructionJson | ParsedInstructionJson): Resolved | null {
    if (ix === null || typeof ix !== 'object') {
      this.skip('bad_instruction', 'an instruction is not an object');
      return null;
    }
    if ('programId' in ix && typeof ix.programId === 'string') {
      const accounts = ix.accounts ?? [];
      if (!isList(accounts) || !accounts.every((a) => typeof a === 'string')) {
        this.skip('bad_instruction', 'an instruction\'s accounts are not addresses');
        return null;
      }
      return { program: ix.programId, accounts, data: ix.data, parsed: ix.parsed };
    }
    const compiled = ix as InstructionJson;
    const program = this.keys[compiled.programIdIndex];
    const indexes: unknown = compiled.accounts;
    if (typeof program !== 'string' || !isList(indexes)) {
      this.skip('bad_instruction', `program index ${String(compiled.programIdIndex)} is not an account of the transaction`);
      return null;
    }
    const accounts = new Array<string>(indexes.length);
    for (let i = 0; i < indexes.length; i++) {
      const k = this.keys[indexes[i] as number];
      if (typeof k !== 'string') {
        this.skip('bad_instruction', `account index ${String(indexes[i])} is not an account of the transaction`);
        return null;
      }
      accounts[i] = k;
    }
    return { program, accounts, data: compiled.data, parsed: undefined };
  }

  /** Lamports `address` gained (negative: lost) in the transaction; null without balances. Deploys only: a linear search of the keys. */
  private gain(address: string): number | null {
    if (this.balances === null) return null;
    const i = this.keys.indexOf(address);
    const before = this.balances.pre[i];
    const after = this.balances.post[i];
    return typeof before === 'number' && typeof after === 'number' ? after - before : 0;
  }

  private skip(reason: SkipReason, detail: string): void {
    this.skipped.push({ reason, detail: `transaction ${this.signature}: ${detail}` });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function createdAccount(ix: Resolved): CreatedAccount | null {
  if (ix.parsed !== undefined) return parsedCreatedAccount(ix.parsed);
  if (typeof ix.data !== 'string' || ix.data.length < CREATE_ACCOUNT_MIN_TEXT) return null;
  let data: Uint8Array;
  try {
    data = decodeBase58(ix.data);
  } catch {
    return null;
  }
  if (data.length !== CREATE_ACCOUNT_LENGTH || ix.accounts.length < 2) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(0, true) !== 0) return null;
  return { address: ix.accounts[1]!, space: Number(view.getBigUint64(12, true)), owner: encodeBase58(data.subarray(20, 52)), lamports: Number(view.getBigUint64(4, true)) };
}

/** `jsonParsed`'s CreateAccount: `{ type: 'createAccount', info: { newAccount, space, owner, ... } }`. */
function parsedCreatedAccount(parsed: unknown): CreatedAccount | null {
  if (parsed === null || typeof parsed !== 'object') return null;
  const { type, info } = parsed as { type?: unknown; info?: { newAccount?: unknown; space?: unknown; owner?: unknown; lamports?: unknown } };
  if (type !== 'createAccount' || info === undefined || info === null) return null;
  const { newAccount, space, owner, lamports } = info;
  if (typeof newAccount !== 'string' || typeof space !== 'number' || typeof owner !== 'string') return null;
  return { address: newAccount, space, owner, lamports: typeof lamports === 'number' ? lamports : null };
}

/** The system program's CreateAccount data (for the devnet and tests). */
export function createAccountData(lamports: number, space: number, owner: Uint8Array): Uint8Array {
  const data = new Uint8Array(CREATE_ACCOUNT_LENGTH);
  const view = new DataView(data.buffer);
  view.setUint32(0, 0, true);
  view.setBigUint64(4, BigInt(lamports), true);
  view.setBigUint64(12, BigInt(space), true);
  data.set(owner.subarray(0, 32), 20);
  return data;
}
