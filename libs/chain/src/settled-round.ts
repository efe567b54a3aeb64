import type { Round } from '@gridlab/contracts';
import { toHex } from './bytes';
import type { RoundAccount } from './round.codec';
import { winningSquare } from './rng';

/**
 * The stored and wire form of a settled round, from its account after the reset.
 * `totalMiners` falls back to the sum of per-square counts for the 560-byte layout.
 */
export function toSettledRound(account: RoundAccount, settledAt: Date): Round {
  return {
    id: account.id,
    deployed: [...account.deployed],
    count: [...account.count],
    winningSquare: winningSquare(account.slotHash),
    totalDeployed: account.totalDeployed,
    totalWinnings: account.totalWinnings,
    totalVaulted: account.totalVaulted,
    totalMiners: account.totalMiners ?? account.count.reduce((a, b) => a + b, 0),
    motherlode: account.motherlode,
    topMinerReward: account.topMinerReward,
    slotHash: toHex(account.slotHash),
    settledAt: settledAt.toISOString(),
  };
}
