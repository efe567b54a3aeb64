/**
 * The addresses the game's transactions name. Board, treasury, config, rounds and the
 * entropy var are the real PDAs of the configured program; the wallets of the miner
 * model, their miner and automation accounts, and the ore-mint program are stable fakes
 * (nothing reads them back).
 */
import { createHash } from 'node:crypto';
import { OrePdas, SYSTEM_PROGRAM } from '@gridlab/chain';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { EXECUTOR_KEY } from '../game/automations';
import { CRANK_KEY, minerKey } from '../game/derive-round';

export const ENTROPY_PROGRAM = '3jSkUuYBoJzQPMEzTvkDFXCZUBksPamrVhrnHR9igu2X';
export const ADMIN_FEE_COLLECTOR = 'DyB4Kv6V613gp2LWQTq1dwDYHGKuUEoDHnCouGUtxFiX';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const SLOT_HASHES_SYSVAR = 'SysvarS1otHashes111111111111111111111111111';
/** Rounds whose PDAs one background step computes (each costs a fifth of a millisecond: a step stays near 10 ms). */
const INDEX_CHUNK = 50;

function fake(label: string): string {
  return bs58.encode(createHash('sha256').update(`gridlab-devnet:${label}`).digest());
}

/** A miner of the model: its wallet and the accounts a deploy names for it. */
export interface MinerAccounts {
  readonly authority: string;
  readonly authorityBytes: Uint8Array;
  readonly miner: string;
  readonly automation: string;
}

export class GameKeys {
  readonly program: string;
  readonly programBytes: Uint8Array;
  readonly board: string;
  readonly treasury: string;
  readonly config: string;
  readonly entropyVar: string;
  readonly crank = bs58.encode(CRANK_KEY);
  /** The executor that signs every automated deploy. */
  readonly executor = bs58.encode(EXECUTOR_KEY);
  readonly executorBytes = EXECUTOR_KEY;
  readonly system = SYSTEM_PROGRAM;
  readonly oreMintProgram = fake('ore-mint-program');
  readonly oreMintAuthority = fake('ore-mint-authority');
  private readonly pdas: OrePdas;
  private readonly rounds = new Map<number, string>();
  private readonly roundIds = new Map<string, number>();
  /** Rounds 1..indexedUpTo have their PDA in `roundIds`. */
  private indexedUpTo = 0;
  private readonly miners = new Map<number, MinerAccounts>();

  constructor(
    programId: string,
    /** The ORE mint (the devnet's payment mint) and the treasury's token account of it. */
    readonly mint: string,
    readonly treasuryTokens: string,
    /** Rent-exempt minimum of an account of `length` bytes. */
    readonly rent: (length: number) => number,
  ) {
    this.pdas = new OrePdas(programId);
    this.program = this.pdas.programId.toBase58();
    this.programBytes = this.pdas.programId.toBytes();
    this.board = this.pdas.board.toBase58();
    this.treasury = this.pdas.treasury.toBase58();
    this.config = PublicKey.findProgramAddressSync([Buffer.from('config')], this.pdas.programId)[0].toBase58();
    this.entropyVar = PublicKey.findProgramAddressSync(
      [Buffer.from('var'), this.pdas.board.toBuffer(), Buffer.alloc(8)],
      new PublicKey(ENTROPY_PROGRAM),
    )[0].toBase58();
  }

  /** The round's PDA `["round", id]`. */
  round(id: number): string {
    let address = this.rounds.get(id);
    if (address === undefined) {
      address = this.pdas.round(id).toBase58();
      this.rounds.set(id, address);
      this.roundIds.set(address, id);
    }
    return address;
  }

  /**
   * The round whose PDA `address` is, among rounds 1..lastId (null: none). Computes the
   * PDAs not indexed yet first, which `indexStep` does ahead in the background.
   */
  roundIdOf(address: string, lastId: number): number | null {
    const known = this.roundIds.get(address);
    if (known !== undefined || this.indexedUpTo >= lastId) return known ?? null;
    while (this.indexedUpTo < lastId) this.round(++this.indexedUpTo);
    return this.roundIds.get(address) ?? null;
  }

  /** Indexes the next chunk of round PDAs; false once rounds 1..lastId all are. */
  indexStep(lastId: number): boolean {
    const until = Math.min(lastId, this.indexedUpTo + INDEX_CHUNK);
    while (this.indexedUpTo < until) this.round(++this.indexedUpTo);
    return this.indexedUpTo < lastId;
  }

  miner(n: number): MinerAccounts {
    let accounts = this.miners.get(n);
    if (accounts === undefined) {
      const authorityBytes = minerKey(n);
      const authority = bs58.encode(authorityBytes);
      accounts = { authority, authorityBytes, miner: fake(`miner-pda:${authority}`), automation: fake(`automation-pda:${authority}`) };
      this.miners.set(n, accounts);
    }
    return accounts;
  }
}
