/**
 * Rounds played on the Referee with real signed instructions, in the order a round
 * goes on mainnet: deploys (the first starts the round and calls entropy `next`), then
 * after the round and its intermission entropy `sample` and `reveal`, ORE `reset`, and
 * each miner's `checkpoint` and `claim_sol`.
 */
import type { Keypair, PublicKey } from '@solana/web3.js';
import { BOARD, TREASURY, automationAddress, decodeBoardFields, decodeMiner, ix, minerAddress, roundAddress, type MinerFields } from '@gridlab/devnet/real';
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

  /** A deploy for `authority` signed by `signer` (an automation's executor), with the instruction's `amount` and `mask` as sent. */
  deployFor(signer: Keypair, authority: PublicKey, roundId: bigint, amount: bigint, mask: number): TxOutcome {
    return this.referee.send([ix.deployFor(signer.publicKey, authority, roundId, amount, mask, this.referee.varAddress)], [signer]);
  }

  /** Automate by `authority`; deltas of the wallet, its Miner and Automation accounts. */
  automate(authority: Keypair, args: ix.AutomateArgs): LamportMoves {
    return this.watch([authority.publicKey, minerAddress(authority.publicKey), automationAddress(authority.publicKey)], () =>
      this.referee.send([ix.automate(authority.publicKey, args)], [authority]),
    );
  }

  /** ClaimORE by the miner itself. */
  claimOre(miner: Keypair): TxOutcome {
    return this.referee.send([ix.claimOre(miner.publicKey, this.referee.era)], [miner]);
  }

  /** Balance changes of `keys` across `run`. */
  watch(keys: readonly PublicKey[], run: () => TxOutcome): LamportMoves {
    const before = keys.map((k) => this.referee.lamports(k));
    const outcome = run();
    return { outcome, deltas: keys.map((k, i) => this.referee.lamports(k) - before[i]!) };
  }

  miner(miner: Keypair): MinerFields {
    return decodeMiner(this.referee.data(minerAddress(miner.publicKey)));
  }
}
