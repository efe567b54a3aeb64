-- Up Migration
-- The motherlode pool each round played for (the Treasury's `motherlode` while the round
-- was live, ORE base units). Null where the indexer did not watch the round live: rounds
-- stored before this migration, rebuilt from transactions, or imported without it.
ALTER TABLE rounds ADD COLUMN motherlode_pool bigint CHECK (motherlode_pool >= 0);

-- A round that hit the motherlode paid out exactly the pool it played for.
UPDATE rounds SET motherlode_pool = motherlode WHERE motherlode > 0;

-- The stored NDJSON lines predate the field: the leader writes them again.
DELETE FROM round_lines;
UPDATE totals SET lined_below = 0 WHERE id = 1;

-- Down Migration
ALTER TABLE rounds DROP COLUMN motherlode_pool;
DELETE FROM round_lines;
UPDATE totals SET lined_below = 0 WHERE id = 1;
