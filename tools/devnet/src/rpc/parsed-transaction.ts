/**
 * The `jsonParsed` encoding of a transaction (what `getParsedTransaction` asks for),
 * from its `json` form: account keys with their signer and writable flags, system
 * transfers and account creations parsed as a node parses them, every other instruction
 * as program id, account addresses and base58 data.
 */
import bs58 from 'bs58';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

interface CompiledInstruction {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  readonly data: string;
  readonly stackHeight?: number | null;
}

interface JsonTransaction {
  readonly transaction: {
    readonly signatures: readonly string[];
    readonly message: {
      readonly accountKeys: readonly string[];
      readonly header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
      readonly recentBlockhash: string;
      readonly instructions: readonly CompiledInstruction[];
      readonly addressTableLookups?: readonly unknown[];
    };
  };
  readonly meta: Record<string, unknown> | null;
}

export function toJsonParsed<T extends JsonTransaction>(tx: T): object {
  const { message } = tx.transaction;
  const keys = message.accountKeys;
  const { numRequiredSignatures: signers, numReadonlySignedAccounts: roSigned, numReadonlyUnsignedAccounts: roUnsigned } = message.header;
  const writable = (i: number): boolean => (i < signers ? i < signers - roSigned : i < keys.length - roUnsigned);
  const parse = (ix: CompiledInstruction): Record<string, unknown> => parseInstruction(ix, keys);
  const meta = tx.meta;
  const inner = meta?.['innerInstructions'] as { index: number; instructions: CompiledInstruction[] }[] | null | undefined;
  return {
    ...tx,
    transaction: {
      signatures: tx.transaction.signatures,
      message: {
        accountKeys: keys.map((pubkey, i) => ({ pubkey, signer: i < signers, writable: writable(i), source: 'transaction' })),
        recentBlockhash: message.recentBlockhash,
        instructions: message.instructions.map(parse),
        ...(message.addressTableLookups === undefined ? {} : { addressTableLookups: message.addressTableLookups }),
      },
    },
    meta: meta === null ? null : { ...meta, innerInstructions: inner?.map((g) => ({ index: g.index, instructions: g.instructions.map(parse) })) ?? [] },
  };
}

function parseInstruction(ix: CompiledInstruction, keys: readonly string[]): Record<string, unknown> {
  const programId = keys[ix.programIdIndex]!;
  const stackHeight = ix.stackHeight ?? null;
  const accounts = ix.accounts.map((i) => keys[i]!);
  if (programId === SYSTEM_PROGRAM) {
    const parsed = parseSystem(bs58.decode(ix.data), accounts);
    if (parsed !== null) return { parsed, program: 'system', programId, stackHeight };
  }
  return { accounts, data: ix.data, programId, stackHeight };
}

function parseSystem(data: Uint8Array, accounts: readonly string[]): Record<string, unknown> | null {
  if (data.length < 4) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const kind = view.getUint32(0, true);
  if (kind === 2 && data.length === 12 && accounts.length >= 2) {
    return { type: 'transfer', info: { source: accounts[0], destination: accounts[1], lamports: Number(view.getBigUint64(4, true)) } };
  }
  if (kind === 0 && data.length === 52 && accounts.length >= 2) {
    return {
      type: 'createAccount',
      info: {
        source: accounts[0],
        newAccount: accounts[1],
        lamports: Number(view.getBigUint64(4, true)),
        space: Number(view.getBigUint64(12, true)),
        owner: bs58.encode(data.subarray(20, 52)),
      },
    };
  }
  return null;
}
