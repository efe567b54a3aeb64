/**
 * The ORE program as mainnet ran it around 2025-12-09 (`fixtures/mainnet/program-2025-12/ore.so`,
 * source regolith-labs/ore at 12274aa) plays two rounds in LiteSVM with real signed
 * instructions, and what it writes is held against Gridlab's decoders and settlement and
 * against a reference written here from the Rust source.
 *
 * Round 70149: four miners, square 7 wins (three miners on it, one with 1 lamport).
 * Round 70150: square 13 wins and nobody is on it: everything after the admin fee is vaulted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { decodeOreEvent, decodeRound, settleRound, winningSquare, type DeployEvent, type ResetEvent } from '@gridlab/chain';
import {
  BOARD,
  FIXTURES,
  Game,
  Referee,
  TREASURY,
  decodeBoardFields,
  decodeTreasuryFields,
  decodeVar,
  fallbackSlotHash,
  grindSeedChain,
  ix,
  roundAddress,
  type BoardFields,
  type LamportMoves,
  type MinerFields,
  type TxOutcome,
} from '../src';

// ---------------------------------------------------------------------------------------
// The reference: the program's arithmetic, transcribed from regolith-labs/ore at 12274aa.
// ---------------------------------------------------------------------------------------

interface ReferenceTotals {
  /** Sent to the fee collector: `total_deployed / 100` (reset.rs:128). */
  readonly adminFee: bigint;
  readonly totalVaulted: bigint;
  readonly totalWinnings: bigint;
}

/** `program/src/reset.rs` @ 12274aa, lines 128-182. */
function referenceReset(deployed: readonly bigint[], winning: number): ReferenceTotals {
  const total = deployed.reduce((a, b) => a + b, 0n);
  const adminFee = total / 100n; // reset.rs:128
  if (deployed[winning] === 0n) {
    // reset.rs:134-136: nobody on the winning square, everything after the admin fee is vaulted.
    return { adminFee, totalVaulted: total - adminFee, totalWinnings: 0n };
  }
  const losing = total - deployed[winning]!; // calculate_total_winnings (api/src/state/round.rs)
  const fee = losing / 100n; // reset.rs:173
  const afterFee = losing - fee; // reset.rs:174
  const vault = afterFee / 10n; // reset.rs:177
  return { adminFee, totalVaulted: vault, totalWinnings: afterFee - vault }; // reset.rs:178-180
}

/** A winning miner's SOL: `program/src/checkpoint.rs` @ 12274aa, lines 77-81. */
function referenceReward(onWinning: bigint, totalWinnings: bigint, deployedOnWinning: bigint): bigint {
  if (onWinning === 0n) return 0n;
  const fee = onWinning / 100n > 1n ? onWinning / 100n : 1n;
  return onWinning - fee + (totalWinnings * onWinning) / deployedOnWinning;
}

// ---------------------------------------------------------------------------------------
// The game.
// ---------------------------------------------------------------------------------------

const ROUND_1 = 70149n;
const ROUND_2 = 70150n;
const WIN_1 = 7;
const WIN_2 = 13;
const START_1 = 383_500_000n;
const END_1 = START_1 + 150n;
/** Round 2's first deploy: after round 1's reset (END_1 + 35) and the checkpoints. */
const START_2 = END_1 + 40n;
const END_2 = START_2 + 150n;

const wallet = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n));
const alice = wallet(11);
const bob = wallet(12);
const carol = wallet(13);
const dave = wallet(14);
const MINERS = { alice, bob, carol, dave };
type Name = keyof typeof MINERS;

/** What each deploy of round 1 should put on the board, square by square. */
const ROUND_1_DEPLOYED: readonly bigint[] = (() => {
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
const ON_WIN_1: Record<Name, bigint> = { alice: 1_234_567n, bob: 2_500_001n, carol: 1n, dave: 0n };

interface Played {
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

function play(): Played {
  const fixtureVar = decodeVar(new Uint8Array(readFileSync(join(FIXTURES, 'program-2025-12/entropy_var.account.bin'))));
  // Each round's `next` spends one sample; `sample` finds no slot hash in LiteSVM and hashes end_at.
  const chain = grindSeedChain(
    [
      { slotHash: fallbackSlotHash(END_1), samples: fixtureVar.samples - 1n, square: WIN_1 },
      { slotHash: fallbackSlotHash(END_2), samples: fixtureVar.samples - 2n, square: WIN_2 },
    ],
    'gridlab referee 2025-12',
  );
  const referee = new Referee({ program: 'program-2025-12/ore.so', roundId: ROUND_1, slot: START_1, commitment: chain.commitment });
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

  referee.setSlot(END_1 + INTERMISSION + 2n);
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

const INTERMISSION = 35n;
let played: Played;
beforeAll(() => {
  played = play();
});

const big = (values: readonly number[]) => values.map((v) => BigInt(v));
const resetEventOf = (outcome: TxOutcome): ResetEvent => {
  const events = outcome.events.map((e) => decodeOreEvent(e));
  expect(events).toHaveLength(1);
  expect(events[0]?.kind).toBe('reset');
  return events[0] as ResetEvent;
};

describe('round 70149: square 7 wins, three miners on it', () => {
  it('is written by the program in the 568-byte layout that decodeRound reads', () => {
    const round = decodeRound(played.round1);
    expect(played.round1).toHaveLength(568);
    expect(round.layout).toBe(568);
    expect(round.id).toBe(70149);
    expect(big(round.deployed)).toEqual(ROUND_1_DEPLOYED);
    expect(round.count[WIN_1]).toBe(3);
    expect(round.count[0]).toBe(1);
    expect(round.count[24]).toBe(2);
    expect(round.totalMiners).toBe(4);
    expect(BigInt(round.totalDeployed)).toBe(ROUND_1_DEPLOYED.reduce((a, b) => a + b, 0n));
    // The round's randomness is the Var's revealed value, and Gridlab's RNG reads square 7 from it.
    expect(round.slotHash).toEqual(played.varValue1);
    expect(winningSquare(round.slotHash)).toBe(WIN_1);
    expect(played.sampledSlotHash1).toEqual(fallbackSlotHash(END_1));
    expect(round.expiresAt).toBe(Number(END_1 + 216_000n));
  });

  it('settles total_winnings and total_vaulted exactly as reset.rs does', () => {
    const round = decodeRound(played.round1);
    const ref = referenceReset(ROUND_1_DEPLOYED, WIN_1);
    expect({ vaulted: BigInt(round.totalVaulted), winnings: BigInt(round.totalWinnings) }).toEqual({ vaulted: ref.totalVaulted, winnings: ref.totalWinnings });
    // The SOL that moved: admin fee to the fee collector, the vault to the treasury (account and balance field).
    const [roundDelta, feeDelta, treasuryDelta] = played.reset1.deltas;
    expect(feeDelta).toBe(ref.adminFee);
    expect(treasuryDelta).toBe(ref.totalVaulted);
    expect(roundDelta).toBe(-(ref.adminFee + ref.totalVaulted));
    expect(played.treasuryAfter1 - played.treasuryBefore1).toBe(ref.totalVaulted);
  });

  it('agrees with Gridlab settleRound (fails until settlement takes the fee off the losing SOL as the program does)', () => {
    const round = decodeRound(played.round1);
    const gridlab = settleRound(round.deployed, WIN_1);
    expect({ vaulted: gridlab.totalVaulted, winnings: gridlab.totalWinnings }).toEqual({ vaulted: round.totalVaulted, winnings: round.totalWinnings });
  });

  it('logs a 128-byte ResetEvent that decodeOreEvent reads back as the round', () => {
    const round = decodeRound(played.round1);
    const event = resetEventOf(played.reset1.outcome);
    expect(played.reset1.outcome.events[0]).toHaveLength(128);
    expect(event).toMatchObject({
      length: 128,
      roundId: 70149,
      startSlot: Number(START_1),
      endSlot: Number(END_1),
      winningSquare: WIN_1,
      minersField: 3, // num_winners: count[winning_square]
      totalDeployed: round.totalDeployed,
      totalVaulted: round.totalVaulted,
      totalWinnings: round.totalWinnings,
      topMiner: round.topMiner,
      motherlode: round.motherlode,
    });
    expect(event.totalMinted).toBeGreaterThan(0);
    // The var value the reset logs is the round's randomness.
    expect(played.reset1.outcome.logs.some((l) => l.startsWith('Program log: var value: '))).toBe(true);
  });

  it('logs a DeployEvent per deploy with the mask asked for and the squares actually taken', () => {
    const events = played.deploys1.map((d) => {
      expect(d.outcome.events).toHaveLength(1);
      return decodeOreEvent(d.outcome.events[0]!) as DeployEvent;
    });
    expect(events.map((e) => [e.kind, e.authority, e.amount, e.mask, e.totalSquares, e.roundId, e.strategy])).toEqual(
      played.deploys1.map((d) => {
        const taken = d.who === 'alice' && d.amount === 999_999n ? 1 : d.squares.length;
        return ['deploy', MINERS[d.who].publicKey.toBase58(), Number(d.amount), ix.squareMask(d.squares), taken, 70149, null];
      }),
    );
    // The signer of a manual deploy is its authority.
    for (const e of events) expect(e.signer).toBe(e.authority);
  });

  it('pays each miner at checkpoint x - max(1, x/100) + floor(total_winnings * x / deployed[w])', () => {
    const round = decodeRound(played.round1);
    const totalWinnings = BigInt(round.totalWinnings);
    for (const name of Object.keys(MINERS) as Name[]) {
      const expected = referenceReward(ON_WIN_1[name], totalWinnings, ROUND_1_DEPLOYED[WIN_1]!);
      const { moves, miner } = played.checkpoints1[name];
      expect({ name, rewardsSol: miner.rewardsSol, fromRound: -moves.deltas[0]!, toMiner: moves.deltas[1] }).toEqual({
        name,
        rewardsSol: expected,
        fromRound: expected,
        toMiner: expected,
      });
      expect(miner.checkpointId).toBe(ROUND_1);
    }
    // carol's 1 lamport: the minimum fee of 1 takes her whole stake; she keeps only her share of the winnings.
    expect(played.checkpoints1.carol.miner.rewardsSol).toBe(totalWinnings / ROUND_1_DEPLOYED[WIN_1]!);
    // What stays in the round account: rent, plus the winners' 1% fees and the rounding dust.
    const paid = (Object.keys(MINERS) as Name[]).reduce((sum, n) => sum + played.checkpoints1[n].miner.rewardsSol, 0n);
    const ref = referenceReset(ROUND_1_DEPLOYED, WIN_1);
    const total = ROUND_1_DEPLOYED.reduce((a, b) => a + b, 0n);
    expect(played.roundAfterCheckpoints1 - played.round1Rent).toBe(total - ref.adminFee - ref.totalVaulted - paid);
  });

  it('moves the checkpointed SOL from the Miner account to the wallet at ClaimSOL', () => {
    for (const name of Object.keys(MINERS) as Name[]) {
      const { moves, before, after } = played.claims1[name];
      expect({ name, miner: moves.deltas[0], wallet: moves.deltas[1], left: after.rewardsSol }).toEqual({
        name,
        miner: -before.rewardsSol,
        wallet: before.rewardsSol,
        left: 0n,
      });
    }
  });
});

describe('round 70150: square 13 wins and nobody is on it', () => {
  const deployed = (() => {
    const d = new Array<bigint>(25).fill(0n);
    d[0] = 777_777n;
    d[1] = 777_777n;
    d[2] = 50_001n;
    return d;
  })();

  it('vaults total - total/100 and pays no winnings', () => {
    const round = decodeRound(played.round2);
    expect(big(round.deployed)).toEqual(deployed);
    expect(winningSquare(round.slotHash)).toBe(WIN_2);
    const ref = referenceReset(deployed, WIN_2);
    expect(ref.totalVaulted).toBe(1_605_555n - 16_055n);
    expect({ vaulted: BigInt(round.totalVaulted), winnings: BigInt(round.totalWinnings) }).toEqual({ vaulted: ref.totalVaulted, winnings: 0n });
    const [roundDelta, feeDelta, treasuryDelta] = played.reset2.deltas;
    expect([roundDelta, feeDelta, treasuryDelta]).toEqual([-(ref.adminFee + ref.totalVaulted), ref.adminFee, ref.totalVaulted]);
    const event = resetEventOf(played.reset2.outcome);
    expect(event).toMatchObject({ roundId: 70150, winningSquare: WIN_2, minersField: 0, totalVaulted: round.totalVaulted, totalWinnings: 0, totalMinted: 0 });
    expect(event.topMiner).toBe(PublicKey.default.toBase58());
  });

  it('agrees with Gridlab settleRound (fails until settlement vaults total - total/100)', () => {
    const round = decodeRound(played.round2);
    const gridlab = settleRound(round.deployed, WIN_2);
    expect({ vaulted: gridlab.totalVaulted, winnings: gridlab.totalWinnings }).toEqual({ vaulted: round.totalVaulted, winnings: round.totalWinnings });
  });

  it('pays nobody at checkpoint', () => {
    for (const name of ['alice', 'dave'] as const) {
      const { moves, miner } = played.checkpoints2[name];
      expect({ name, rewardsSol: miner.rewardsSol, deltas: moves.deltas }).toEqual({ name, rewardsSol: 0n, deltas: [0n, 0n] });
      expect(miner.checkpointId).toBe(ROUND_2);
    }
  });

  it('leaves the board waiting for round 70151', () => {
    const board = played.board2;
    expect(board.roundId).toBe(70151n);
    expect(board.endSlot).toBe(0xffff_ffff_ffff_ffffn);
  });
});

