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
  'source',
  'motherlode_pool',
] as const;

/** `payout_rule` codes of the table. */
export const PAYOUT_RULE_CODES = { parimutuel: 0, returns: 1 } as const;

/** `source` codes of the table, and the wire value of each. */
export const SOURCE_CODES = { account: 0, transactions: 1, import: 2, transactions_partial: 3 } as const;
export const SOURCES = ['account', 'transactions', 'import', 'transactions_partial'] as const;
/** A partly known round's per-square figure that is not known: u64::MAX in the packed arrays. */
export const UNKNOWN_SQUARE_WORD = 0xffff_ffff;

/** The board's squares: `deployed` and `count` hold 25 little-endian u64 each. */
export const SQUARES = 25;
/** Binary COPY's signature; a stream's header is it, a flags word and an extension length. */
export const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
export const COPY_HEADER_BYTES = COPY_SIGNATURE.length + 8;
/**
 * The longest tuple of indexer.rounds its CHECKs allow: the field count, 17 lengths, the id,
 * 25 x 8 bytes twice, the winning square, six totals, a 32-byte hash, the time, the rule,
 * the ORE reward, a 44-character address, the split, the production cost, the source and
 * the motherlode pool.
 */
export const MAX_TUPLE_BYTES = 2 + ROUND_COLUMNS.length * 4 + 8 + 2 * SQUARES * 8 + 2 + 6 * 8 + 32 + 8 + 2 + 8 + 44 + 1 + 8 + 2 + 8;
