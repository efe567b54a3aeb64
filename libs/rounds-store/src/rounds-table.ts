/** Columns of indexer.rounds in table order, as COPY and INSERT list them. */
export const ROUND_COLUMNS = [
  'id',
  'deployed',
  'count',
  'winning_square',
  'total_deployed',
  'total_winnings',
  'total_vaulted',
  'total_miners',
  'motherlode',
  'top_miner_reward',
  'slot_hash',
  'settled_at',
  'payout_rule',
  'ore_reward',
  'top_miner',
  'split',
  'production_cost',
] as const;

/** `payout_rule` codes of the table. */
export const PAYOUT_RULE_CODES = { parimutuel: 0, returns: 1 } as const;
