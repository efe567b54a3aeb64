/**
 * The program's eras, by round id: which account layout a round has, which rule paid
 * it, and how its transactions show it (which events the program logged then, and in
 * which layout). In `mixed` mode the devnet's history walks through them in the order
 * mainnet did (SPEC 3.2, notes on the ORE program §1): the first third is v3 (568-byte
 * rounds), itself in four quarters — no DeployEvent yet (before 2025-12-08), the
 * DeployEvent with the requested mask (until 2025-12-30), with the deployed mask, and
 * the 144-byte ResetEvent (2026-01-13); the second third is 952-byte parimutuel, whose
 * ResetEvent u64 @72 is `num_winners` in its first half and `total_miners` from
 * 2026-07-24; the last third and the live rounds are the program as it runs today.
 */
import type { PayoutRule } from '@gridlab/contracts';

export interface EraStarts {
  /** First round id of the 952-byte layout. */
  readonly current: number;
  /** First round id paid by the `returns` rule. */
  readonly returns: number;
  /** First round id whose deploys log a DeployEvent. */
  readonly deployEvents: number;
  /** First round id whose DeployEvent mask holds only the squares actually deployed. */
  readonly deployedMask: number;
  /** First round id whose ResetEvent is 144 bytes (else 128). */
  readonly resetEvent144: number;
  /** First round id whose ResetEvent u64 @72 is `total_miners` (else `num_winners`). */
  readonly totalMiners: number;
}

/** Which eras a devnet plays: all of them in turn over its history, or one. */
export type EraSetting = 'mixed' | 'v3' | 'parimutuel-952' | 'returns';

/** How a round's transactions show it. */
export interface EventEra {
  /** none: Deploy instructions only; requested: the mask asked for; deployed: the squares deployed. */
  readonly deployEvent: 'none' | 'requested' | 'deployed';
  readonly resetLength: 128 | 144;
  /** The ResetEvent u64 @72: miners on the winning square, or miners of the round. */
  readonly minersField: 'num_winners' | 'total_miners';
}

/** The Round account's length: v3 (568 bytes, f2c552c) or since the 2026-06-25 migration (952). */
export type RoundLayout = 568 | 952;

/**
 * Era boundaries for a devnet whose history holds rounds `firstId .. firstId + history - 1`.
 * A single-era setting plays that era's layout and rule with today's event layouts.
 */
export function eraStarts(setting: EraSetting, firstId: number, history: number): EraStarts {
  const never = Number.MAX_SAFE_INTEGER;
  const today = { deployEvents: 0, deployedMask: 0, resetEvent144: 0, totalMiners: 0 };
  switch (setting) {
    case 'v3':
      return { current: never, returns: never, ...today };
    case 'parimutuel-952':
      return { current: 0, returns: never, ...today };
    case 'returns':
      return { current: 0, returns: 0, ...today };
    case 'mixed': {
      const current = firstId + Math.floor(history / 3);
      const returns = firstId + Math.floor((2 * history) / 3);
      const v3 = current - firstId;
      return {
        current,
        returns,
        deployEvents: firstId + Math.floor(v3 / 4),
        deployedMask: firstId + Math.floor(v3 / 2),
        resetEvent144: firstId + Math.floor((3 * v3) / 4),
        totalMiners: current + Math.floor((returns - current) / 2),
      };
    }
  }
}

export function layoutOf(eras: EraStarts, roundId: number): RoundLayout {
  return roundId < eras.current ? 568 : 952;
}

export function ruleOf(eras: EraStarts, roundId: number): PayoutRule {
  return roundId < eras.returns ? 'parimutuel' : 'returns';
}

export function eventEraOf(eras: EraStarts, roundId: number): EventEra {
  return {
    deployEvent: roundId < eras.deployEvents ? 'none' : roundId < eras.deployedMask ? 'requested' : 'deployed',
    resetLength: roundId < eras.resetEvent144 ? 128 : 144,
    minersField: roundId < eras.totalMiners ? 'num_winners' : 'total_miners',
  };
}
