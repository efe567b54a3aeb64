/**
 * The ORE program's own executable in LiteSVM, set up with the mainnet accounts of
 * `fixtures/mainnet/program-2025-12/`, for tests that play rounds with real signed
 * instructions and read back what the program wrote.
 */
import { getTransactionDecoder, address, lamports as toLamports } from '@solana/kit';
import { Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { Clock, FailedTransactionMetadata, LiteSVM } from 'litesvm';
import {
  BOARD,
  ORE_MINT,
  ORE_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  TREASURY,
  TREASURY_TOKENS,
  encodeBoard,
  fixture,
  installOre,
  openRound,
  roundAddress,
  upgradeTreasury,
  type Era,
} from '@gridlab/devnet/real';

const LOG_IX = 8;
/** A fixed, deterministic clock: unix time advances 400 ms a slot from this origin. */
const ORIGIN_SLOT = 383_000_000n;
const ORIGIN_UNIX = 1_765_000_000n;

/** What one transaction did. */
export interface TxOutcome {
  readonly logs: readonly string[];
  /** Payloads of the ORE program's self-CPI `Log` instructions (the bytes after `[8]`), in order. */
  readonly events: readonly Uint8Array[];
}

export class TransactionFailed extends Error {
  constructor(
    message: string,
    readonly logs: readonly string[],
  ) {
    super(`${message}\n${logs.join('\n')}`);
  }
}

/** Initial state of the game: the board waits for the first deploy of `roundId`. */
export interface GameSetup {
  /** Which ORE executable: `fixtures/mainnet/program-<era>/ore.so`. */
  readonly era: Era;
  readonly roundId: bigint;
  readonly slot: bigint;
  /** The Var's revealed seed before the round, which `next` turns into the commitment. */
  readonly commitment: Uint8Array;
}

export class Referee {
  readonly svm = new LiteSVM();
  /** Pays every transaction fee, so the miners' balances move only by what the program moves. */
  readonly feePayer = Keypair.fromSeed(new Uint8Array(32).fill(7));
  readonly varAddress: PublicKey;
  readonly feeCollector: PublicKey;
  readonly era: Era;
  private readonly decoder = getTransactionDecoder();
  private slotNow = 0n;

  constructor(setup: GameSetup) {
    this.era = setup.era;
    const previousEnd = setup.slot - 100n;
    const installed = installOre(this.svm, setup.era, (key, data, owner) => this.put(key, data, owner), {
      seed: setup.commitment,
      slotHash: new Uint8Array(32).fill(1),
      value: new Uint8Array(32).fill(2),
      endAt: previousEnd,
    });
    this.feeCollector = installed.feeCollector;
    this.varAddress = installed.varAddress;
    this.put(BOARD, encodeBoard({ roundId: setup.roundId, startSlot: setup.slot - 10n, endSlot: 0xffff_ffff_ffff_ffffn }), ORE_PROGRAM_ID);
    this.put(roundAddress(setup.roundId), openRound(setup.roundId, this.feePayer.publicKey.toBytes()), ORE_PROGRAM_ID);
    this.put(TREASURY, upgradeTreasury(fixture('treasury.account.bin')), ORE_PROGRAM_ID);
    this.put(ORE_MINT, fixture('mint.account.bin'), TOKEN_PROGRAM_ID);
    this.put(TREASURY_TOKENS, fixture('treasury_at.account.bin'), TOKEN_PROGRAM_ID);
    this.fund(this.feePayer.publicKey, 100_000_000_000n);
    this.fund(this.feeCollector, 1_000_000_000n);
    this.setSlot(setup.slot);
  }

  get slot(): bigint {
    return this.slotNow;
  }

  /** The clock's `unix_timestamp` (what the program writes as `ts` and `last_claim_*_at`). */
  get unixTimestamp(): bigint {
    return this.svm.getClock().unixTimestamp;
  }

  /** Moves the clock to `slot` (and its unix time) and expires the blockhash. */
  setSlot(slot: bigint): void {
    this.slotNow = slot;
    this.svm.setClock(new Clock(slot, ORIGIN_UNIX, 0n, 0n, ORIGIN_UNIX + ((slot - ORIGIN_SLOT) * 2n) / 5n));
    this.svm.expireBlockhash();
  }

  /** Writes an account, rent-exempt plus `extra` lamports. */
  put(key: PublicKey, data: Uint8Array, owner: PublicKey, extra = 0n): void {
    this.svm.setAccount({
      address: address(key.toBase58()),
      data,
      executable: false,
      lamports: toLamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length)) + extra),
      programAddress: address(owner.toBase58()),
      space: BigInt(data.length),
    });
  }

  fund(key: PublicKey, lamports: bigint): void {
    this.put(key, new Uint8Array(0), SYSTEM_PROGRAM_ID, lamports);
  }

  lamports(key: PublicKey): bigint {
    return this.svm.getBalance(address(key.toBase58())) ?? 0n;
  }

  data(key: PublicKey): Uint8Array {
    const account = this.svm.getAccount(address(key.toBase58()));
    if (!account.exists) throw new Error(`no account ${key.toBase58()}`);
    return account.data;
  }

  /** The account's data, or null when it does not exist (never opened, or closed). */
  dataOrNull(key: PublicKey): Uint8Array | null {
    const account = this.svm.getAccount(address(key.toBase58()));
    return account.exists ? account.data : null;
  }

  rent(length: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(length));
  }

  /** Signs and runs one transaction (fees paid by `feePayer`); throws with the logs when it fails. */
  send(instructions: readonly TransactionInstruction[], signers: readonly Keypair[]): TxOutcome {
    const tx = new Transaction({ feePayer: this.feePayer.publicKey, recentBlockhash: this.svm.latestBlockhash() });
    tx.add(...instructions);
    tx.sign(this.feePayer, ...signers);
    const keys = tx.compileMessage().accountKeys;
    const result = this.svm.sendTransaction(this.decoder.decode(tx.serialize()));
    // A second identical transaction would be refused as already processed.
    this.svm.expireBlockhash();
    if (result instanceof FailedTransactionMetadata) throw new TransactionFailed(`transaction failed: ${result.err().toString()}`, result.meta().logs());
    const events: Uint8Array[] = [];
    for (const inner of result.innerInstructions().flat()) {
      const ix = inner.instruction();
      const data = ix.data();
      if (keys[ix.programIdIndex()]?.equals(ORE_PROGRAM_ID) && data[0] === LOG_IX) events.push(data.slice(1));
    }
    return { logs: result.logs(), events };
  }
}
