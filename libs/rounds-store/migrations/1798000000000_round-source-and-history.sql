-- Up Migration
-- Where each stored round came from, and how far the indexer rebuilds history.
--   source: 0 = its account on chain, 1 = its transactions (the account was closed; the
--           program lets anyone close a round a day after it ended), 2 = an imported
--           history file that did not say. Every round stored before this migration was
--           read from its account or imported from a file that predates the field: 0.
ALTER TABLE rounds ADD COLUMN source smallint NOT NULL DEFAULT 0 CHECK (source IN (0, 1, 2));

-- The stored NDJSON lines predate the field: the leader writes them again.
DELETE FROM round_lines;
UPDATE totals SET lined_below = 0 WHERE id = 1;

-- The lowest round id the indexer rebuilds history down to (HISTORY_FROM_ROUND; null: it
-- rebuilds none). Readers that take rounds in id order (the event log) wait for a missing
-- id at or above it, which the indexer is still filling, unless it is unrecoverable.
CREATE TABLE history (
  id       smallint PRIMARY KEY CHECK (id = 1),
  floor_id bigint CHECK (floor_id >= 0)
);
INSERT INTO history (id, floor_id) VALUES (1, NULL);

-- Round ids the indexer could not rebuild, and why: a round that never existed (no
-- transaction touched its address), one whose transactions do not add up to its
-- ResetEvent, or one whose randomness was not logged. Never stored under a guess.
CREATE TABLE unrecoverable_rounds (
  id     bigint PRIMARY KEY CHECK (id >= 0),
  reason text NOT NULL,
  detail text NOT NULL,
  at     timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE unrecoverable_rounds;
DROP TABLE history;
ALTER TABLE rounds DROP COLUMN source;
DELETE FROM round_lines;
UPDATE totals SET lined_below = 0 WHERE id = 1;
