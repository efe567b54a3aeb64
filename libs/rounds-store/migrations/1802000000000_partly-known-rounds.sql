-- Up Migration
-- Rounds rebuilt from transactions that do not show every deploy's squares (automated
-- deploys before 2025-12-30): source 3 (`transactions_partial`). A per-square figure that
-- is not known is stored as u64::MAX (ff x 8) in the packed `deployed` / `count` arrays
-- (no lamport or miner figure reaches it: stored values are below 2^53), and a
-- `total_miners` that is not known as NULL.
ALTER TABLE rounds ALTER COLUMN total_miners DROP NOT NULL;
ALTER TABLE rounds DROP CONSTRAINT rounds_source_check;
ALTER TABLE rounds ADD CONSTRAINT rounds_source_check CHECK (source IN (0, 1, 2, 3));
-- How many of the stored rounds are partly known: the Lab replays the others, and counts
-- what it should have loaded without scanning the table.
ALTER TABLE totals ADD COLUMN partial_rounds bigint NOT NULL DEFAULT 0;

-- Down Migration
-- The earlier schema has no way to store a partly known round; deleting them would leave
-- the aggregates counting rounds that are gone.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM rounds WHERE source = 3) THEN
    RAISE EXCEPTION 'partly known rounds are stored (source 3): the earlier schema cannot hold them';
  END IF;
END $$;
ALTER TABLE rounds DROP CONSTRAINT rounds_source_check;
ALTER TABLE rounds ADD CONSTRAINT rounds_source_check CHECK (source IN (0, 1, 2));
ALTER TABLE totals DROP COLUMN partial_rounds;
ALTER TABLE rounds ALTER COLUMN total_miners SET NOT NULL;
