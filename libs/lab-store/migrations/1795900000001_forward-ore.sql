-- Up Migration
-- Forward figures under the `returns` payout rule (SPEC 7.7): the ORE a strategy earned
-- (base units; numeric, read as a decimal string, since a sum may pass 2^53) and that ORE's
-- value in lamports at each round's production cost, which net_lamports includes
-- (net_lamports - ore_value_lamports is the SOL-only part). Zero for every row so far:
-- nothing earned ORE before this migration.
ALTER TABLE forward_stats
  ADD COLUMN ore_earned         numeric NOT NULL DEFAULT 0 CHECK (ore_earned >= 0),
  ADD COLUMN ore_value_lamports bigint NOT NULL DEFAULT 0 CHECK (ore_value_lamports >= 0);

-- Down Migration
ALTER TABLE forward_stats
  DROP COLUMN ore_value_lamports,
  DROP COLUMN ore_earned;
