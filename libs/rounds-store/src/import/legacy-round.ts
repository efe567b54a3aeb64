import { ruleFromTotals } from '@gridlab/chain';
import { InputError } from '@gridlab/errors';

/** Fields a round gained with the 952-byte rounds and the `returns` rule (2026). */
const ORE_FIELDS = ['oreReward', 'topMiner', 'split', 'productionCost'] as const;

/**
 * Completes a round of a dump written before rounds carried their payout rule (an older
 * Gridlab, or a compatible service): such a round has none of the new fields. Its rule
 * is `returns` when only that rule reproduces its totals, else `parimutuel` (the only
 * rule before 2026-08-12); its ORE fields are null, as for v3 rounds. A round with any
 * ORE field must name its `payoutRule`; a round with a rule lacks nothing else but the
 * ORE fields it may omit (null). A round that does not say where it came from (`source`)
 * came from the file: `import`; one without `motherlodePool` has it null. Anything else is left to validation.
 */
export function completeLegacyRound(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const round = value as Record<string, unknown>;
  // The common case, a round of a current dump: nothing to complete (no allocation).
  if ('payoutRule' in round && 'oreReward' in round && 'topMiner' in round && 'split' in round && 'productionCost' in round && 'source' in round && 'motherlodePool' in round) {
    return value;
  }
  // A file that does not say where its rounds came from: they came from it. A pool it does not give was not seen.
  const source: Record<string, unknown> = {
    ...('source' in round ? {} : { source: 'import' }),
    ...('motherlodePool' in round ? {} : { motherlodePool: null }),
  };
  const missing = ORE_FIELDS.filter((f) => !(f in round));
  if ('payoutRule' in round) {
    const completed: Record<string, unknown> = { ...round, ...source };
    for (const f of missing) completed[f] = null;
    return completed;
  }
  if (missing.length < ORE_FIELDS.length) throw new InputError('a round with ORE fields must name its payoutRule');
  return { ...round, payoutRule: legacyRule(round), oreReward: null, topMiner: null, split: null, productionCost: null, ...source };
}

function legacyRule(round: Record<string, unknown>): 'parimutuel' | 'returns' {
  const { deployed, winningSquare, totalWinnings, totalVaulted } = round;
  if (
    !Array.isArray(deployed) ||
    deployed.length !== 25 ||
    !deployed.every((d) => Number.isSafeInteger(d) && (d as number) >= 0) ||
    typeof winningSquare !== 'number' ||
    typeof totalWinnings !== 'number' ||
    typeof totalVaulted !== 'number'
  ) {
    return 'parimutuel'; // voided or malformed: validation judges the rest
  }
  // Nothing deployed: both rules write zeros, and such a round pays nothing either way.
  if ((deployed as number[]).every((d) => d === 0)) return 'parimutuel';
  return ruleFromTotals(deployed as number[], winningSquare, totalWinnings, totalVaulted) === 'returns' ? 'returns' : 'parimutuel';
}
