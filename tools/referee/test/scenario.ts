/**
 * The game both eras' tests play (no assertions here): two rounds of the ORE program in
 * LiteSVM with real signed instructions, and everything the tests read back.
 *
 * Round 70149: four miners, square 7 wins (three miners on it, one with 1 lamport).
 * Round 70150: square 13 wins and nobody is on it: everything after the admin fee is vaulted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSplitByRng } from '@gridlab/chain';
import { Keypair } from '@solana/web3.js';
import {
  BOARD,
  FIXTURES,
  Game,
  INTERMISSION_SLOTS,
  Referee,
  TREASURY,
  decodeBoardFields,
  decodeTreasuryFields,
  decodeVar,
  fallbackSlotHash,
  grindSeedChain,
  roundAddress,
  type BoardFields,
  type Era,
  type LamportMoves,
  type MinerFields,
  type TxOutcome,
} from '../src';

export const ROUND_1 = 70149n;
export const ROUND_2 = 70150n;
export const WIN_1 = 7;
export const WIN_2 = 13;
export const START_1 = 383_500_000n;
export const END_1 = START_1 + 150n;
/** Round 2's first deploy: after round 1's reset (END_1 + 35) and the checkpoints. */
const START_2 = END_1 + 40n;
const END_2 = START_2 + 150n;

const wallet = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n));
const alice = wallet(11);
const bob = wallet(12);
const carol = wallet(13);
const dave = wallet(14);
export const MINERS = { alice, bob, carol, dave };
export type Name = keyof typeof MINERS;

/** What each deploy of round 1 should put on the board, square by square. */
export const ROUND_1_DEPLOYED: readonly bigint[] = (() => {
  const d = new Array<bigint>(25).fill(0n);
  d[0] = 1n; // bob, 1 lamport
  d[3] = 1_234_567n; // alice
  d[4] = 333_333_337n; // dave
  d[7] = 1_234_567n + 2_500_001n + 1n; // alice (once: her second deploy skips it), bob, carol (1 lamport)
  d[9] = 333_333_337n; // dave
  d[12] = 1_234_567n; // alice
  d[20] = 999_999n; // alice's second deploy
  d[24] = 1n + 333_333_337n; // bob (1 lamport), dave
  return d;
})();
export const ON_WIN_1: Record<Name, bigint> = { alice: 1_234_567n, bob: 2_500_001n, carol: 1n, dave: 0n };

export interface Played {
  readonly era: Era;
  readonly deploys1: { readonly who: Name; readonly amount: bigint; readonly squares: readonly number[]; readonly outcome: TxOutcome }[];
  readonly reset1: LamportMoves;
  readonly round1: Uint8Array;
  readonly varValue1: Uint8Array;
  readonly treasuryBefore1: bigint;
  readonly treasuryAfter1: bigint;
  readonly checkpoints1: Record<Name, { moves: LamportMoves; miner: MinerFields }>;
  readonly claims1: Record<Name, { moves: LamportMoves; before: MinerFields; after: MinerFields }>;
  readonly roundAfterCheckpoints1: bigint;
  readonly round1Rent: bigint;
  readonly reset2: LamportMoves;
  readonly round2: Uint8Array;
  readonly checkpoints2: Record<'alice' | 'dave', { moves: LamportMoves; miner: MinerFields }>;
  readonly sampledSlotHash1: Uint8Array;
  readonly board2: BoardFields;
}

/** `Round::top_miner_sample` of round 1 (`reverse_bits(rng) % deployed[w]`, ore api/src/state/round.rs). */
function topMinerSample(rng: bigint): bigint {
  let reversed = 0n;
  for (let i = 0n; i < 64n; i++) reversed = (reversed << 1n) | ((rng >> i) & 1n);
  return reversed % ROUND_1_DEPLOYED[WIN_1]!;
}

/** Plays both rounds on the executable of `era`. */
export function play(era: Era): Played {
  const fixtureVar = decodeVar(new Uint8Array(readFileSync(join(FIXTURES, 'program-2025-12/entropy_var.account.bin'))));
  // Each round's `next` spends one sample; `sample` finds no slot hash in LiteSVM and hashes end_at.
  const chain = grindSeedChain(
    [
      // Not split, and the sampled lamport is alice's (her 1_234_567 came first on square 7):
      // the top-miner paths of reset and checkpoint run, and alice is the true top miner.
      { slotHash: fallbackSlotHash(END_1), samples: fixtureVar.samples - 1n, square: WIN_1, accept: (rng) => !isSplitByRng(rng) && topMinerSample(rng) < ON_WIN_1.alice },
      { slotHash: fallbackSlotHash(END_2), samples: fixtureVar.samples - 2n, square: WIN_2 },
    ],
    'gridlab referee',
  );
  const referee = new Referee({ era, roundId: ROUND_1, slot: START_1, commitment: chain.commitment });
  for (const m of Object.values(MINERS)) referee.fund(m.publicKey, 10_000_000_000n);
  const game = new Game(referee);

  const deploys1: Played['deploys1'] = [];
  const deploy = (who: Name, amount: bigint, squares: readonly number[]) =>
    deploys1.push({ who, amount, squares, outcome: game.deploy(MINERS[who], ROUND_1, amount, squares) });
  deploy('alice', 1_234_567n, [3, 7, 12]);
  deploy('bob', 2_500_001n, [7]);
  deploy('alice', 999_999n, [7, 20]); // 7 is held already: skipped, only 20 is deployed
  deploy('bob', 1n, [0, 24]);
  deploy('carol', 1n, [7]);
  referee.setSlot(START_1 + 100n);
  deploy('dave', 333_333_337n, [4, 9, 24]);

  const treasuryBefore1 = decodeTreasuryFields(referee.data(TREASURY)).balance;
  const reset1 = game.settle(chain.seeds[0]!, alice.publicKey);
  const round1 = referee.data(roundAddress(ROUND_1));
  const var1 = decodeVar(referee.data(referee.varAddress));
  const treasuryAfter1 = decodeTreasuryFields(referee.data(TREASURY)).balance;

  referee.setSlot(END_1 + INTERMISSION_SLOTS + 2n);
  const checkpoints1 = {} as Played['checkpoints1'];
  const claims1 = {} as Played['claims1'];
  for (const [name, m] of Object.entries(MINERS) as [Name, Keypair][]) {
    const moves = game.checkpoint(m, ROUND_1);
    checkpoints1[name] = { moves, miner: game.miner(m) };
  }
  const roundAfterCheckpoints1 = referee.lamports(roundAddress(ROUND_1));
  for (const [name, m] of Object.entries(MINERS) as [Name, Keypair][]) {
    const before = game.miner(m);
    const moves = game.claimSol(m);
    claims1[name] = { moves, before, after: game.miner(m) };
  }

  referee.setSlot(START_2);
  game.deploy(alice, ROUND_2, 777_777n, [0, 1]);
  game.deploy(dave, ROUND_2, 50_001n, [2]);
  const reset2 = game.settle(chain.seeds[1]!, alice.publicKey);
  const round2 = referee.data(roundAddress(ROUND_2));
  const checkpoints2 = {} as Played['checkpoints2'];
  for (const name of ['alice', 'dave'] as const) {
    const moves = game.checkpoint(MINERS[name], ROUND_2);
    checkpoints2[name] = { moves, miner: game.miner(MINERS[name]) };
  }
  return {
    era,
    deploys1,
    reset1,
    round1,
    varValue1: var1.value,
    treasuryBefore1,
    treasuryAfter1,
    checkpoints1,
    claims1,
    roundAfterCheckpoints1,
    round1Rent: referee.rent(round1.length),
    reset2,
    round2,
    checkpoints2,
    sampledSlotHash1: var1.slotHash,
    board2: decodeBoardFields(referee.data(BOARD)),
  };
}
