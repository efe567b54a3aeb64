-- Up Migration
-- The ORE program's 952-byte rounds (2026-06-25) and its `returns` payout rule
-- (2026-08-12). Every round stored before this migration is a v3 round, paid
-- parimutuel: the defaults describe them exactly.
--   payout_rule:     0 = parimutuel, 1 = returns (a smallint keeps bulk COPY cheap)
--   ore_reward:      952-byte rounds: the round's ORE reward (sum of `rewards`, base units)
--   top_miner:       952-byte rounds: the top miner's address, base58 as served (the split
--                    address when split); text, so a dump copies it without encoding
--   split:           952-byte rounds: the ORE reward was split pro rata on the winning square
--   production_cost: 952-byte rounds: the board's production cost at settlement (lamports per ORE)
ALTER TABLE rounds
  ADD COLUMN payout_rule     smallint NOT NULL DEFAULT 0 CHECK (payout_rule IN (0, 1)),
  ADD COLUMN ore_reward      bigint CHECK (ore_reward >= 0),
  ADD COLUMN top_miner       text CHECK (top_miner ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$'),
  ADD COLUMN split           boolean,
  ADD COLUMN production_cost bigint CHECK (production_cost >= 0);

-- Per-rule aggregates of non-voided rounds, maintained with `totals` in the same
-- transaction: what miners put in and got back under each rule, for /stats.
--   returned_x100: parimutuel: 99 * deployed[w] + 100 * total_winnings (the winners'
--                  stake back less 1% plus what they shared); returns: 100 * total_winnings
--   ore_reward:    ORE base units rewarded (ore_reward + motherlode)
--   ore_value:     that ORE valued at each round's production cost, lamports
CREATE TABLE rule_totals (
  payout_rule      smallint PRIMARY KEY CHECK (payout_rule IN (0, 1)),
  rounds           bigint NOT NULL DEFAULT 0,
  settled_deployed numeric NOT NULL DEFAULT 0,
  returned_x100    numeric NOT NULL DEFAULT 0,
  ore_reward       numeric NOT NULL DEFAULT 0,
  ore_value        numeric NOT NULL DEFAULT 0
);
INSERT INTO rule_totals (payout_rule, rounds, settled_deployed, returned_x100)
  SELECT 0, rounds_indexed - voided_rounds, settled_deployed, winner_return_x100 FROM totals WHERE id = 1;
INSERT INTO rule_totals (payout_rule) VALUES (1);

-- Down Migration
DROP TABLE rule_totals;
ALTER TABLE rounds
  DROP COLUMN production_cost,
  DROP COLUMN split,
  DROP COLUMN top_miner,
  DROP COLUMN ore_reward,
  DROP COLUMN payout_rule;
