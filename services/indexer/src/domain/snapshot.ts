import type { BoardAccount, RoundAccount } from '@gridlab/chain';
import type { LiveSnapshot, LiveStatus, Round } from '@gridlab/contracts';

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
  };
}
