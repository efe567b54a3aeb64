/**
 * The devnet's game against the real program: the rounds of `scenario.ts`, played by
 * mainnet's executables of 2025-12 and 2026-04 in LiteSVM, and by the devnet's port of
 * the program (`@gridlab/devnet/program`, written from the Rust source and sharing nothing
 * with libs/chain) from the same deploys and the same randomness. The port must write the
 * round account and log the ResetEvent and every DeployEvent byte for byte as the program
 * did. What the port takes as given is only what the program takes from outside the
 * deploys: the slot hash, the slots and clock, the rent payer, the motherlode draw's payout
 * and the top miner the crank names.
 */
import { PodReader, deployEvent, parimutuelReset, resetEvent, rng, roundV3, winningSquare } from '@gridlab/devnet/program';
import type { Era } from '../src';
import { MINERS, ROUND_1, play, type Name, type Played } from './scenario';

/** A round account's 568 bytes, field by field in the order of `api/src/state/round.rs` at f2c552c. */
function readRoundV3(bytes: Uint8Array) {
  const r = new PodReader(bytes);
  return { id: r.u64(), deployed: r.squares(), slotHash: r.raw(), count: r.squares(), expiresAt: r.u64(), motherlode: r.u64(), rentPayer: r.raw(), topMiner: r.raw(), reward: r.u64() };
}

/** The i64 `ts` of an event: ResetEvent's 16th word, DeployEvent's 15th (api/src/event.rs). */
const tsOf = (event: Uint8Array, word: number): number => Number(new DataView(event.buffer, event.byteOffset, event.length).getBigInt64(8 * word, true));

/** What the program does with a round's deploys, as the devnet applies them: a miner's held square is skipped. */
function applyDeploys(deploys: readonly { who: Name; amount: bigint; squares: readonly number[] }[]) {
  const deployed = new Array<number>(25).fill(0);
  const count = new Array<number>(25).fill(0);
  const held = new Map<Name, number>();
  const taken: number[] = [];
  for (const d of deploys) {
    const asked = d.squares.reduce((m, s) => m | (1 << s), 0);
    const mask = asked & ~(held.get(d.who) ?? 0);
    held.set(d.who, (held.get(d.who) ?? 0) | mask);
    taken.push(mask);
    for (let s = 0; s < 25; s++) {
      if ((mask & (1 << s)) === 0) continue;
      deployed[s]! += Number(d.amount);
      count[s]! += 1;
    }
  }
  return { deployed, count, taken, miners: [...held.values()].filter((m) => m !== 0).length };
}

const popcount = (mask: number): number => mask.toString(2).replace(/0/g, '').length;

describe.each<Era>(['2025-12', '2026-04'])("the devnet's port against the ORE program of %s", (era) => {
  let played: Played;
  beforeAll(() => {
    played = play(era);
  });

  /** The round account the port writes for `deploys`, given what the program took from outside them. */
  function portRound(real: Uint8Array, deploys: readonly { who: Name; amount: bigint; squares: readonly number[] }[]) {
    const given = readRoundV3(real);
    const board = applyDeploys(deploys);
    const w = winningSquare(rng(given.slotHash)!);
    const totals = parimutuelReset(board.deployed, w);
    const bytes = roundV3({ ...given, deployed: board.deployed, count: board.count, totalMiners: board.miners, totalVaulted: totals.totalVaulted, totalWinnings: totals.totalWinnings });
    return { bytes, board, w, totals, given };
  }

  it('round 70149 (square 7, three miners on it): the same account, to the byte', () => {
    expect(Buffer.from(portRound(played.round1, played.deploys1).bytes)).toEqual(Buffer.from(played.round1));
  });

  it('round 70150 (square 13, nobody on it: all but the admin fee vaulted): the same account, to the byte', () => {
    const deploys = [
      { who: 'alice' as const, amount: 777_777n, squares: [0, 1] },
      { who: 'dave' as const, amount: 50_001n, squares: [2] },
    ];
    const port = portRound(played.round2, deploys);
    expect(port.board.deployed[port.w]).toBe(0);
    expect(Buffer.from(port.bytes)).toEqual(Buffer.from(played.round2));
  });

  it('round 70149: the same ResetEvent, to the byte', () => {
    const real = played.reset1.outcome.events[0]!;
    const { board, w, totals, given } = portRound(played.round1, played.deploys1);
    const length = real.length === 144 ? 144 : 128;
    const view = new DataView(real.buffer, real.byteOffset, real.length);
    const port = resetEvent(
      {
        roundId: Number(ROUND_1),
        startSlot: Number(view.getBigUint64(16, true)),
        endSlot: Number(view.getBigUint64(24, true)),
        winningSquare: w,
        topMiner: given.topMiner,
        // `num_winners`: the miners on the winning square (until 2026-07-24).
        miners: board.count[w]!,
        motherlode: given.motherlode,
        totalDeployed: board.deployed.reduce((a, b) => a + b, 0),
        totalVaulted: totals.totalVaulted,
        totalWinnings: totals.totalWinnings,
        // Minted by the mint program (a stand-in here): what the reset was told it minted.
        totalMinted: Number(view.getBigUint64(8 * 14, true)),
        ts: tsOf(real, 15),
        rng: rng(given.slotHash)!,
        deployedWinningSquare: board.deployed[w]!,
      },
      length,
    );
    expect(Buffer.from(port)).toEqual(Buffer.from(real));
  });

  it('round 70149: the same DeployEvent for every deploy, the held square skipped (asked-for mask in 2025-12)', () => {
    const { taken } = applyDeploys(played.deploys1);
    played.deploys1.forEach((d, i) => {
      const real = d.outcome.events[0]!;
      const authority = MINERS[d.who].publicKey.toBytes();
      const asked = d.squares.reduce((m, s) => m | (1 << s), 0);
      const port = deployEvent({
        authority,
        amount: Number(d.amount),
        mask: era === '2025-12' ? asked : taken[i]!,
        roundId: Number(ROUND_1),
        signer: authority,
        strategy: null,
        totalSquares: popcount(taken[i]!),
        ts: tsOf(real, 14),
      });
      expect({ deploy: i, bytes: Buffer.from(port) }).toEqual({ deploy: i, bytes: Buffer.from(real) });
    });
  });
});
