/**
 * Rounds played on the Referee with real signed instructions, in the order a round
 * goes on mainnet: deploys (the first starts the round and calls entropy `next`), then
 * after the round and its intermission entropy `sample` and `reveal`, ORE `reset`, and
 * each miner's `checkpoint` and `claim_sol`.
 */
import type { Keypair, PublicKey } from '@solana/web3.js';
import { BOARD, TREASURY, decodeBoardFields, decodeMiner, ix, minerAddress, roundAddress, type MinerFields } from '@gridlab/devnet/real';
import type { Referee, TxOutcome } from './referee';

/** `INTERMISSION_SLOTS` (ore `api/src/consts.rs`): reset waits this long after `end_slot`. */
export const INTERMISSION_SLOTS = 35n;

/** Lamports moved by one instruction, as balance changes. */
export interface LamportMoves {
  readonly outcome: TxOutcome;
  /** Change of each watched account's balance, in watch order. */
  readonly deltas: readonly bigint[];
}

export class Game {
  constructor(readonly referee: Referee) {}

  /** One Deploy by `miner` of `amount` lamports per square. */
  deploy(miner: Keypair, roundId: bigint, amount: bigint, squares: readonly number[]): TxOutcome {
    return this.referee.send([ix.deploy(miner.publicKey, roundId, amount, squares, this.referee.varAddress)], [miner]);
  }

  /**
   * Ends the board's current round: moves past its end and intermission, samples and
   * reveals the Var with `seed`, and resets. Returns the reset's outcome and balance
   * changes of the round, fee collector and treasury accounts.
   */
  settle(seed: Uint8Array, topMiner: PublicKey): LamportMoves {
    const ref = this.referee;
    const board = decodeBoardFields(ref.data(BOARD));
    ref.setSlot(board.endSlot + INTERMISSION_SLOTS);
    ref.send([ix.sampleVar(ref.feePayer.publicKey, ref.varAddress)], []);
    ref.send([ix.revealVar(ref.feePayer.publicKey, ref.varAddress, seed)], []);
    return this.watch([roundAddress(board.roundId), ref.feeCollector, TREASURY], () =>
      ref.send([ix.reset(ref.feePayer.publicKey, ref.feeCollector, board.roundId, topMiner, ref.varAddress)], []),
    );
  }

  /** The miner's own Checkpoint of `roundId`; deltas of the round and Miner accounts. */
  checkpoint(miner: Keypair, roundId: bigint): LamportMoves {
    return this.watch([roundAddress(roundId), minerAddress(miner.publicKey)], () =>
      this.referee.send([ix.checkpoint(miner.publicKey, miner.publicKey, roundId)], [miner]),
    );
  }

  /** ClaimSOL; deltas of the Miner account and the miner's wallet. */
  claimSol(miner: Keypair): LamportMoves {
    return this.watch([minerAddress(miner.publicKey), miner.publicKey], () => this.referee.send([ix.claimSol(miner.publicKey, this.referee.era)], [miner]));
  }

  miner(miner: Keypair): MinerFields {
    return decodeMiner(this.referee.data(minerAddress(miner.publicKey)));
  }

  private watch(keys: readonly PublicKey[], run: () => TxOutcome): LamportMoves {
    const before = keys.map((k) => this.referee.lamports(k));
    const outcome = run();
    return { outcome, deltas: keys.map((k, i) => this.referee.lamports(k) - before[i]!) };
  }
}
