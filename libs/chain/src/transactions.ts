/**
 * What an ORE transaction says about a round, read from `getTransaction`'s `json`
 * encoding: the program's events, the Deploy instructions it was called with, the
 * randomness `reset` logged, and the accounts the transaction created.
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

/** The parts of a `getTransaction` (`json`) result read here. */
export interface TransactionJson {
  readonly slot: number;
  readonly blockTime?: number | null;
  readonly transaction: {
    readonly signatures: readonly string[];
    readonly message: { readonly accountKeys: readonly string[]; readonly instructions: readonly InstructionJson[] };
  };
  readonly meta: {
    readonly err: unknown;
    readonly innerInstructions?: readonly { readonly index: number; readonly instructions: readonly InstructionJson[] }[] | null;
    readonly logMessages?: readonly string[] | null;
    readonly loadedAddresses?: { readonly writable: readonly string[]; readonly readonly: readonly string[] } | null;
  } | null;
}

/** A Deploy instruction, the miner it deploys for (its second account) and every account it names (its round among them). */
interface DeployCall {
  readonly authority: string;
  readonly args: DeployArgs;
  readonly accounts: readonly string[];
}

/** An account a transaction created through the system program. */
interface CreatedAccount {
  readonly address: string;
  readonly space: number;
  readonly owner: string;
}

/** What one transaction says about the ORE program's rounds. */
export interface OreTransaction {
  readonly signature: string;
  readonly slot: number;
  readonly blockTime: number | null;
  readonly failed: boolean;
  /** Events the program logged, in order. */
  readonly events: readonly OreEvent[];
  /** Deploy instructions of the program (top level or inner), in order. */
  readonly deploys: readonly DeployCall[];
  /** The randomness `reset` logged (`var value:`), if any. */
  readonly varValue: Uint8Array | null;
  readonly created: readonly CreatedAccount[];
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

export interface OreIds {
  readonly programId: string;
  readonly board: string;
}

/** Reads an ORE transaction; throws a DecodeError when `tx` is not a transaction in the `json` encoding. */
/** Array.isArray without its narrowing to any[]: a readonly string[] stays one. */
const isList = (value: unknown): value is readonly unknown[] => Array.isArray(value);

export function readOreTransaction(tx: TransactionJson, ids: OreIds): OreTransaction {
  const message = tx?.transaction?.message;
  const signature = tx?.transaction?.signatures?.[0];
  if (typeof signature !== 'string' || !isList(message?.accountKeys) || !isList(message?.instructions) || typeof tx.slot !== 'number') {
    throw new DecodeError('bad_transaction', 'not a getTransaction result in the json encoding');
  }
  const meta = tx.meta;
  const slot = tx.slot;
  const blockTime = typeof tx.blockTime === 'number' ? tx.blockTime : null;
  if (meta === null || meta === undefined || (meta.err !== null && meta.err !== undefined)) {
    return { signature, slot, blockTime, failed: true, events: [], deploys: [], varValue: null, created: [] };
  }
  const writable = meta.loadedAddresses?.writable ?? [];
  const readOnly = meta.loadedAddresses?.readonly ?? [];
  // A legacy transaction loads no addresses: its own keys are all of them, no copy needed.
  const keys = writable.length === 0 && readOnly.length === 0 ? message.accountKeys : [...message.accountKeys, ...writable, ...readOnly];
  const read = new Reader(keys, ids, signature);
  const groups = meta.innerInstructions ?? [];
  // Inner instructions run inside the top-level instruction they follow: keep that order.
  const innerByIndex = new Map<number, readonly InstructionJson[]>();
  for (const group of groups) innerByIndex.set(group.index, group.instructions);
  const top = message.instructions;
  for (let index = 0; index < top.length; index++) {
    read.visit(top[index]!, false);
    const inner = innerByIndex.get(index);
    if (inner !== undefined) for (const innerIx of inner) read.visit(innerIx, true);
  }
  return { signature, slot, blockTime, failed: false, events: read.events, deploys: read.deploys, varValue: varValueFromLogs(meta.logMessages), created: read.created };
}

/** What the instructions of one successful transaction say, visited in the order they ran. */
class Reader {
  readonly events: OreEvent[] = [];
  readonly deploys: DeployCall[] = [];
  readonly created: CreatedAccount[] = [];

  constructor(
    private readonly keys: readonly string[],
    private readonly ids: OreIds,
    private readonly signature: string,
  ) {}

  key(index: number): string {
    const k = this.keys[index];
    if (typeof k !== 'string') throw new DecodeError('bad_transaction', `transaction ${this.signature}: account index ${index} out of range`);
    return k;
  }

  visit(ix: InstructionJson, inner: boolean): void {
    const program = this.key(ix.programIdIndex);
    if (program === SYSTEM_PROGRAM) {
      const account = createdAccount(ix, (i) => this.key(i));
      if (account !== null) this.created.push(account);
      return;
    }
    if (program !== this.ids.programId) return;
    const data = decodeData(ix.data, this.signature);
    if (data[0] === ORE_IX.log) {
      if (inner && ix.accounts.length === 1 && this.key(ix.accounts[0]!) === this.ids.board) {
        const event = decodeOreEvent(data.subarray(1));
        if (event !== null) this.events.push(event);
      }
      return;
    }
    const args = decodeDeployArgs(data);
    if (args !== null && ix.accounts.length >= 2) {
      const authority = this.key(ix.accounts[1]!);
      const accounts = new Array<string>(ix.accounts.length);
      for (let i = 0; i < accounts.length; i++) accounts[i] = this.key(ix.accounts[i]!);
      this.deploys.push({ authority, args, accounts });
    }
  }
}

function decodeData(data: unknown, signature: string): Uint8Array {
  if (typeof data !== 'string') throw new DecodeError('bad_transaction', `transaction ${signature}: instruction data is not a string`);
  try {
    return decodeBase58(data);
  } catch (error) {
    throw new DecodeError('bad_transaction', `transaction ${signature}: instruction data is not base58`, { cause: error });
  }
}

function createdAccount(ix: InstructionJson, key: (index: number) => string): CreatedAccount | null {
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
  return { address: key(ix.accounts[1]!), space: Number(view.getBigUint64(12, true)), owner: encodeBase58(data.subarray(20, 52)) };
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
