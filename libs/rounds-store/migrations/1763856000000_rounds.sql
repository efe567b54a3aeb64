-- Up Migration
-- Settled rounds. The 25 per-square values are packed as 200-byte little-endian u64
-- arrays (bytea): one row per round instead of 25, half the size of 25 bigint
-- columns with their null bitmap, and read back in bulk with a single Buffer slice.
CREATE TABLE rounds (
  id               bigint PRIMARY KEY CHECK (id >= 0),
  deployed         bytea NOT NULL CHECK (octet_length(deployed) = 200),
  count            bytea NOT NULL CHECK (octet_length(count) = 200),
  winning_square   smallint CHECK (winning_square BETWEEN 0 AND 24),
  total_deployed   bigint NOT NULL CHECK (total_deployed >= 0),
  total_winnings   bigint NOT NULL CHECK (total_winnings >= 0),
  total_vaulted    bigint NOT NULL CHECK (total_vaulted >= 0),
  total_miners     bigint NOT NULL CHECK (total_miners >= 0),
  motherlode       bigint NOT NULL CHECK (motherlode >= 0),
  top_miner_reward bigint NOT NULL CHECK (top_miner_reward >= 0),
  slot_hash        bytea NOT NULL CHECK (octet_length(slot_hash) = 32),
  settled_at       timestamptz NOT NULL
);

-- Whole-history aggregates, maintained in the same transaction as every insert so
-- that statistics never scan `rounds`. One row (id = 1); writers lock it FOR UPDATE,
-- which also serialises concurrent writers.
CREATE TABLE totals (
  id                 smallint PRIMARY KEY CHECK (id = 1),
  rounds_indexed     bigint NOT NULL DEFAULT 0,
  voided_rounds      bigint NOT NULL DEFAULT 0,
  first_id           bigint,
  last_id            bigint,
  total_deployed     numeric NOT NULL DEFAULT 0,
  total_winnings     numeric NOT NULL DEFAULT 0,
  -- Non-voided rounds only: sum(totalDeployed) and sum(99 * deployed[w] + 100 * totalWinnings),
  -- kept as exact integers (x100) for effectiveHouseEdge.
  settled_deployed   numeric NOT NULL DEFAULT 0,
  winner_return_x100 numeric NOT NULL DEFAULT 0,
  updated_at         timestamptz NOT NULL DEFAULT now()
);
INSERT INTO totals (id) VALUES (1);

-- Per-square aggregates. Droughts count non-voided rounds in id order.
CREATE TABLE square_stats (
  square          smallint PRIMARY KEY CHECK (square BETWEEN 0 AND 24),
  hits            bigint NOT NULL DEFAULT 0,
  deployed        numeric NOT NULL DEFAULT 0,
  last_hit_id     bigint,
  current_drought bigint NOT NULL DEFAULT 0,
  max_drought     bigint NOT NULL DEFAULT 0
);
INSERT INTO square_stats (square) SELECT generate_series(0, 24);

-- Down Migration
DROP TABLE square_stats;
DROP TABLE totals;
DROP TABLE rounds;
