/**
 * The fixed parts of a round's NDJSON line, in order: the exact text `/api/v1/dump` writes
 * (BinaryRoundsToNdjson) and the import reads back from bytes (CanonicalRoundReader), which
 * is `JSON.stringify` of a round. Each value's closing quote belongs to the next key.
 */
const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');

export const K_ID = ascii('{"id":');
export const K_DEPLOYED = ascii(',"deployed":[');
export const K_COUNT = ascii('],"count":[');
export const K_WINNING = ascii('],"winningSquare":');
export const K_TOTAL_DEPLOYED = ascii(',"totalDeployed":');
export const K_TOTAL_WINNINGS = ascii(',"totalWinnings":');
export const K_TOTAL_VAULTED = ascii(',"totalVaulted":');
export const K_TOTAL_MINERS = ascii(',"totalMiners":');
export const K_MOTHERLODE = ascii(',"motherlode":');
export const K_TOP_MINER_REWARD = ascii(',"topMinerReward":');
export const K_SLOT_HASH = ascii(',"slotHash":"');
export const K_SETTLED_AT = ascii('","settledAt":"');
export const K_PAYOUT_RULE = ascii('","payoutRule":"');
export const K_ORE_REWARD = ascii('","oreReward":');
export const K_TOP_MINER = ascii(',"topMiner":');
export const K_SPLIT = ascii(',"split":');
export const K_PRODUCTION_COST = ascii(',"productionCost":');
export const K_SOURCE = ascii(',"source":"');
export const K_MOTHERLODE_POOL = ascii('","motherlodePool":');
export const K_END = ascii('}');
export const V_NULL = ascii('null');
export const V_TRUE = ascii('true');
export const V_FALSE = ascii('false');
export const V_PARIMUTUEL = ascii('parimutuel');
export const V_RETURNS = ascii('returns');
/** `source` values, by SOURCE_CODES code. */
export const V_SOURCES = [ascii('account'), ascii('transactions'), ascii('import'), ascii('transactions_partial')] as const;
