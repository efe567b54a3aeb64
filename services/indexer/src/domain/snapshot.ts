import { boardEv, distributionMask, layout, productionCost, type BoardAccount, type RoundAccount } from '@gridlab/chain';
import { ORE_BASE_UNITS, type LiveGame, type LiveSnapshot, type LiveStatus, type Round } from '@gridlab/contracts';

/** What the live game adds to the accounts: the Treasury's pool and the stake EV is shown for. */
export interface GameInputs {
  /** ORE base units in the motherlode pool, or null before the Treasury is read. */
  readonly motherlodePool: number | null;
  readonly evStakeLamports: number;
}

/** EV per lamport is shown to a millionth. */
const EV_DIGITS = 1e6;

/**
 * The live snapshot of the current round: `waiting` until the first deploy sets an end
 * slot, `active` while deploys are accepted (slot < endSlot), then `intermission` until
 * the reset. `secondsLeft` counts down to the end of deploys while active, is 0 during
 * the intermission and null while waiting (no end is set yet).
 */
export function buildSnapshot(
  board: BoardAccount,
  round: RoundAccount | null,
  slot: number,
  prevRound: Round | null,
  slotSeconds: number,
  now: Date,
  inputs: GameInputs | null = null,
): LiveSnapshot {
  const current = round !== null && round.id === board.roundId ? round : null;
  const deployed = current ? [...current.deployed] : new Array<number>(25).fill(0);
  const count = current ? [...current.count] : new Array<number>(25).fill(0);
  let status: LiveStatus;
  let secondsLeft: number | null;
  if (board.endSlot === null) {
    status = 'waiting';
    secondsLeft = null;
  } else if (slot < board.endSlot) {
    status = 'active';
    secondsLeft = Math.round((board.endSlot - slot) * slotSeconds * 1000) / 1000;
  } else {
    status = 'intermission';
    secondsLeft = 0;
  }
  return {
    roundId: board.roundId,
    status,
    deployed,
    count,
    totalDeployed: current?.totalDeployed ?? 0,
    totalMiners: current ? (current.totalMiners ?? count.reduce((a, b) => a + b, 0)) : 0,
    secondsLeft,
    slot,
    startSlot: board.startSlot,
    endSlot: board.endSlot,
    prevRound,
    updatedAt: now.toISOString(),
    ...(inputs === null ? {} : { game: liveGame(board, current, deployed, prevRound, inputs) }),
  };
}

/**
 * Today's game: the rule and prize of the rounds settling now (the previous round's, 1 ORE
 * before any 952-byte round), the pool, the board's production cost (952-byte rounds), the
 * squares whose prize would split (the distribution mask of the rounds paid by `returns`,
 * which came with it), and the EV per lamport of the configured stake on each square, the
 * ORE at the production cost.
 */
export function liveGame(board: BoardAccount, round: RoundAccount | null, deployed: readonly number[], prevRound: Round | null, inputs: GameInputs): LiveGame {
  const payoutRule = prevRound?.payoutRule ?? 'returns';
  // A voided round minted nothing and records a reward of 0; the round after it still mints 1 ORE.
  const oreReward = prevRound === null || prevRound.winningSquare === null ? ORE_BASE_UNITS : (prevRound.oreReward ?? ORE_BASE_UNITS);
  const roundLayout = round?.layout ?? (prevRound?.oreReward === null ? layout.ROUND_LEN_V3 : layout.ROUND_LEN_CURRENT);
  const cost = productionCost(board, roundLayout);
  const mask = payoutRule === 'returns' ? distributionMask(board.roundId) : null;
  const price = cost ?? 0;
  const splitSquares = mask === null ? null : Array.from({ length: 25 }, (_, s) => (mask & (1 << s)) === 0);
  const evs = boardEv({ deployed, payoutRule, oreReward, motherlodePool: inputs.motherlodePool ?? 0, splitSquares }, inputs.evStakeLamports, price);
  return {
    payoutRule,
    oreReward,
    motherlodePool: inputs.motherlodePool,
    productionCost: cost,
    splitSquares,
    evStakeLamports: inputs.evStakeLamports,
    evOrePriceLamports: price,
    evPerSol: evs.map((e) => Math.round(e.evPerSol * EV_DIGITS) / EV_DIGITS),
  };
}
