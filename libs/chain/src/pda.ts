import { PublicKey } from '@solana/web3.js';

const BOARD_SEED = Buffer.from('board');
const ROUND_SEED = Buffer.from('round');
const TREASURY_SEED = Buffer.from('treasury');
const MINER_SEED = Buffer.from('miner');
/** Round addresses remembered per program (the oldest derived is forgotten first). */
const ROUNDS_KEPT = 256;

function u64Le(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(value));
  return b;
}

/** PDAs of the ORE program, computed once per program id (and per round id). */
export class OrePdas {
  readonly programId: PublicKey;
  readonly board: PublicKey;
  readonly treasury: PublicKey;

  constructor(programId: PublicKey | string) {
    this.programId = typeof programId === 'string' ? new PublicKey(programId) : programId;
    this.board = PublicKey.findProgramAddressSync([BOARD_SEED], this.programId)[0];
    this.treasury = PublicKey.findProgramAddressSync([TREASURY_SEED], this.programId)[0];
  }

  /** The round addresses derived last: the live path asks for the current round's on every account update. */
  private readonly rounds = new Map<number, PublicKey>();

  /** `["round", u64 LE id]` under the program id. */
  round(id: number): PublicKey {
    const known = this.rounds.get(id);
    if (known !== undefined) return known;
    // Finding the bump costs a hash and a curve check per try: a few hundred microseconds.
    const address = PublicKey.findProgramAddressSync([ROUND_SEED, u64Le(id)], this.programId)[0];
    if (this.rounds.size >= ROUNDS_KEPT) this.rounds.delete(this.rounds.keys().next().value!);
    this.rounds.set(id, address);
    return address;
  }

  /** A wallet's Miner account: `["miner", authority]` under the program id. */
  miner(authority: PublicKey | string): PublicKey {
    const key = typeof authority === 'string' ? new PublicKey(authority) : authority;
    return PublicKey.findProgramAddressSync([MINER_SEED, key.toBuffer()], this.programId)[0];
  }
}
