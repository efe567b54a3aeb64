/**
 * The ORE program's own executables, as mainnet ran them around 2025-12-09 (source
 * regolith-labs/ore at 12274aa) and on 2026-04-02 (source 7d18eda), play the rounds of
 * `scenario.ts` in LiteSVM; what they write is held against Gridlab's decoders and
 * settlement, and against a reference written here from the Rust source.
 *
 * The `settleRound` comparisons are what proved libs/chain's settlement fix: before it,
 * it rounded the fee and the vault the other way from the program.
 */
import { PublicKey } from '@solana/web3.js';
import { decodeOreEvent, decodeRound, isSplitByRng, settleRound, slotHashRng, winningSquare, type DeployEvent, type ResetEvent } from '@gridlab/chain';
import { fallbackSlotHash, ix, u64, type Era, type TxOutcome } from '../src';
import { END_1, MINERS, ON_WIN_1, ROUND_1, ROUND_1_DEPLOYED, ROUND_2, START_1, WIN_1, WIN_2, play, type Name, type Played } from './scenario';

// ---------------------------------------------------------------------------------------
// The reference: the program's arithmetic, transcribed from regolith-labs/ore at 12274aa
// (unchanged at 7d18eda for everything below).
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
  const losing = total - deployed[winning]!; // Round::calculate_total_winnings (api/src/state/round.rs)
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

/** `u64::reverse_bits`. */
function reverseBits(v: bigint): bigint {
  let out = 0n;
  for (let i = 0; i < 64; i++) out = (out << 1n) | ((v >> BigInt(i)) & 1n);
  return out;
}

/** `Round::top_miner_sample` (api/src/state/round.rs @ 12274aa): the lamport the top miner holds. */
function topMinerSample(rng: bigint, deployedOnWinning: bigint): bigint {
  return reverseBits(rng) % deployedOnWinning;
}

// ---------------------------------------------------------------------------------------

const big = (values: readonly number[]) => values.map((v) => BigInt(v));
const sum = (values: readonly bigint[]) => values.reduce((a, b) => a + b, 0n);
const NAMES = Object.keys(MINERS) as Name[];
const SPLIT_ADDRESS = 'SpLiT11111111111111111111111111111111111112';

function resetEventOf(outcome: TxOutcome): ResetEvent {
  const events = outcome.events.map((e) => decodeOreEvent(e));
  expect(events).toHaveLength(1);
  expect(events[0]?.kind).toBe('reset');
  return events[0] as ResetEvent;
}

/** The ResetEvent's length: 128 bytes in December 2025, 144 (rng, deployed_winning_square) since 2026-01-13. */
const RESET_EVENT_LENGTH: Record<Era, number> = { '2025-12': 128, '2026-04': 144 };

describe.each<Era>(['2025-12', '2026-04'])('the ORE program of %s', (era) => {
  let played: Played;
  beforeAll(() => {
    played = play(era);
  });

  describe('round 70149: square 7 wins, three miners on it', () => {
    it('is written in the 568-byte layout that decodeRound reads', () => {
      const round = decodeRound(played.round1);
      expect(played.round1).toHaveLength(568);
      expect(round).toMatchObject({ layout: 568, id: Number(ROUND_1), totalMiners: 4, expiresAt: Number(END_1 + 216_000n) });
      expect(big(round.deployed)).toEqual(ROUND_1_DEPLOYED);
      expect([round.count[WIN_1], round.count[0], round.count[24]]).toEqual([3, 1, 2]);
      expect(BigInt(round.totalDeployed)).toBe(sum(ROUND_1_DEPLOYED));
      // The round's randomness is the Var's revealed value, and Gridlab's RNG reads square 7 from it.
      expect(round.slotHash).toEqual(played.varValue1);
      expect(winningSquare(round.slotHash)).toBe(WIN_1);
      expect(played.sampledSlotHash1).toEqual(fallbackSlotHash(END_1));
    });

    it('settles total_winnings and total_vaulted exactly as reset.rs does, and moves that SOL', () => {
      const round = decodeRound(played.round1);
      const ref = referenceReset(ROUND_1_DEPLOYED, WIN_1);
      expect({ vaulted: BigInt(round.totalVaulted), winnings: BigInt(round.totalWinnings) }).toEqual({ vaulted: ref.totalVaulted, winnings: ref.totalWinnings });
      const [roundDelta, feeDelta, treasuryDelta] = played.reset1.deltas;
      expect({ roundDelta, feeDelta, treasuryDelta }).toEqual({ roundDelta: -(ref.adminFee + ref.totalVaulted), feeDelta: ref.adminFee, treasuryDelta: ref.totalVaulted });
      expect(played.treasuryAfter1 - played.treasuryBefore1).toBe(ref.totalVaulted);
    });

    it('agrees with Gridlab settleRound (the fee taken off the losing SOL, then the vault off the rest)', () => {
      const round = decodeRound(played.round1);
      const gridlab = settleRound(round.deployed, WIN_1);
      expect({ vaulted: gridlab.totalVaulted, winnings: gridlab.totalWinnings }).toEqual({ vaulted: round.totalVaulted, winnings: round.totalWinnings });
    });

    it('logs a ResetEvent that decodeOreEvent reads back as the round', () => {
      const round = decodeRound(played.round1);
      const event = resetEventOf(played.reset1.outcome);
      expect(played.reset1.outcome.events[0]).toHaveLength(RESET_EVENT_LENGTH[era]);
      expect(event).toMatchObject({
        length: RESET_EVENT_LENGTH[era],
        roundId: Number(ROUND_1),
        startSlot: Number(START_1),
        endSlot: Number(END_1),
        winningSquare: WIN_1,
        minersField: 3, // num_winners: count[winning_square]
        totalDeployed: round.totalDeployed,
        totalVaulted: round.totalVaulted,
        totalWinnings: round.totalWinnings,
        topMiner: round.topMiner,
        motherlode: round.motherlode,
        rng: era === '2025-12' ? null : slotHashRng(round.slotHash),
        deployedWinningSquare: era === '2025-12' ? null : round.deployed[WIN_1],
      });
      expect(event.totalMinted).toBeGreaterThan(0);
      expect(played.reset1.outcome.logs.some((l) => l.startsWith('Program log: var value: '))).toBe(true);
    });

    it('splits the ORE prize exactly when isSplitByRng says so', () => {
      const round = decodeRound(played.round1);
      expect(round.topMiner === SPLIT_ADDRESS).toBe(isSplitByRng(slotHashRng(round.slotHash)));
    });

    it('logs a DeployEvent per deploy; the mask is the one asked for in 2025-12, the squares taken since', () => {
      const events = played.deploys1.map((d) => {
        expect(d.outcome.events).toHaveLength(1);
        return decodeOreEvent(d.outcome.events[0]!) as DeployEvent;
      });
      expect(events.map((e) => [e.kind, e.authority, e.amount, e.mask, e.totalSquares, e.roundId, e.strategy])).toEqual(
        played.deploys1.map((d) => {
          // alice's second deploy asks for 7 and 20 and gets 20 only: she already holds 7.
          const taken = d.who === 'alice' && d.amount === 999_999n ? [20] : d.squares;
          const mask = era === '2025-12' ? ix.squareMask(d.squares) : ix.squareMask(taken);
          return ['deploy', MINERS[d.who].publicKey.toBase58(), Number(d.amount), mask, taken.length, Number(ROUND_1), null];
        }),
      );
      for (const e of events) expect(e.signer).toBe(e.authority);
    });

    it('pays each miner at checkpoint x - max(1, x/100) + floor(total_winnings * x / deployed[w])', () => {
      const round = decodeRound(played.round1);
      const totalWinnings = BigInt(round.totalWinnings);
      for (const name of NAMES) {
        const expected = referenceReward(ON_WIN_1[name], totalWinnings, ROUND_1_DEPLOYED[WIN_1]!);
        const { moves, miner } = played.checkpoints1[name];
        expect({ name, rewardsSol: miner.rewardsSol, fromRound: -moves.deltas[0]!, toMiner: moves.deltas[1], checkpointId: miner.checkpointId }).toEqual({
          name,
          rewardsSol: expected,
          fromRound: expected,
          toMiner: expected,
          checkpointId: ROUND_1,
        });
      }
      // carol's 1 lamport: the minimum fee of 1 takes her whole stake; she keeps only her share of the winnings.
      expect(played.checkpoints1.carol.miner.rewardsSol).toBe(totalWinnings / ROUND_1_DEPLOYED[WIN_1]!);
      // What stays in the round account past its rent: the winners' 1% fees and the rounding dust.
      const paid = sum(NAMES.map((n) => played.checkpoints1[n].miner.rewardsSol));
      const ref = referenceReset(ROUND_1_DEPLOYED, WIN_1);
      expect(played.roundAfterCheckpoints1 - played.round1Rent).toBe(sum(ROUND_1_DEPLOYED) - ref.adminFee - ref.totalVaulted - paid);
    });

    it('gives the ORE prize at checkpoint pro rata when split, else to the miner holding the sampled lamport', () => {
      const round = decodeRound(played.round1);
      const rng = slotHashRng(round.slotHash);
      const prize = BigInt(round.topMinerReward);
      const onWin = ROUND_1_DEPLOYED[WIN_1]!;
      const sample = topMinerSample(rng, onWin);
      for (const name of NAMES) {
        const { miner } = played.checkpoints1[name];
        const x = miner.deployed[WIN_1]!;
        const holdsSample = x > 0n && sample >= miner.cumulative[WIN_1]! && sample < miner.cumulative[WIN_1]! + x;
        const expected = round.topMiner === SPLIT_ADDRESS ? (prize * x) / onWin : holdsSample ? prize : 0n;
        expect({ name, rewardsOre: miner.rewardsOre - (BigInt(round.motherlode) * x) / onWin }).toEqual({ name, rewardsOre: expected });
      }
    });

    it('moves the checkpointed SOL from the Miner account to the wallet at ClaimSOL', () => {
      for (const name of NAMES) {
        const { moves, before, after } = played.claims1[name];
        expect({ name, miner: moves.deltas[0], wallet: moves.deltas[1], left: after.rewardsSol }).toEqual({ name, miner: -before.rewardsSol, wallet: before.rewardsSol, left: 0n });
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
      expect(played.reset2.deltas).toEqual([-(ref.adminFee + ref.totalVaulted), ref.adminFee, ref.totalVaulted]);
      const event = resetEventOf(played.reset2.outcome);
      expect(event).toMatchObject({
        roundId: Number(ROUND_2),
        winningSquare: WIN_2,
        minersField: 0,
        totalVaulted: round.totalVaulted,
        totalWinnings: 0,
        totalMinted: 0,
        topMiner: PublicKey.default.toBase58(),
        rng: era === '2025-12' ? null : slotHashRng(round.slotHash),
        deployedWinningSquare: era === '2025-12' ? null : 0,
      });
    });

    it('agrees with Gridlab settleRound (total - total/100 vaulted)', () => {
      const round = decodeRound(played.round2);
      const gridlab = settleRound(round.deployed, WIN_2);
      expect({ vaulted: gridlab.totalVaulted, winnings: gridlab.totalWinnings }).toEqual({ vaulted: round.totalVaulted, winnings: round.totalWinnings });
    });

    it('pays nobody at checkpoint', () => {
      for (const name of ['alice', 'dave'] as const) {
        const { moves, miner } = played.checkpoints2[name];
        expect({ name, rewardsSol: miner.rewardsSol, deltas: moves.deltas, checkpointId: miner.checkpointId }).toEqual({ name, rewardsSol: 0n, deltas: [0n, 0n], checkpointId: ROUND_2 });
      }
    });

    it('leaves the board waiting for round 70151', () => {
      expect(played.board2.roundId).toBe(70151n);
      expect(played.board2.endSlot).toBe(0xffff_ffff_ffff_ffffn);
    });
  });

  // Since 2026-01-13 (7d18eda's source): the top-miner check at reset and the ClaimEvent.
  if (era === '2026-04') {
    it('checks the top miner at reset (dry run): alice, named by the reset, holds the sampled lamport', () => {
      const round = decodeRound(played.round1);
      expect(round.topMiner).not.toBe(SPLIT_ADDRESS);
      const alice = played.checkpoints1.alice.miner;
      const sample = topMinerSample(slotHashRng(round.slotHash), ROUND_1_DEPLOYED[WIN_1]!);
      expect(sample >= alice.cumulative[WIN_1]! && sample < alice.cumulative[WIN_1]! + alice.deployed[WIN_1]!).toBe(true);
      expect(played.reset1.outcome.logs).toContain('Program log: Top miner verified');
    });

    it('logs a 64-byte ClaimEvent at ClaimSOL, which Gridlab does not decode', () => {
      for (const name of NAMES) {
        const { moves, before } = played.claims1[name];
        expect(moves.outcome.events).toHaveLength(1);
        const event = moves.outcome.events[0]!;
        expect(event).toHaveLength(64);
        expect({ disc: u64(event, 0), authority: new PublicKey(event.subarray(8, 40)).toBase58(), amount: u64(event, 40), claimType: u64(event, 48) }).toEqual({
          disc: 4n,
          authority: MINERS[name].publicKey.toBase58(),
          amount: before.rewardsSol,
          claimType: 0n,
        });
        expect(decodeOreEvent(event)).toBeNull();
      }
    });
  }
});
