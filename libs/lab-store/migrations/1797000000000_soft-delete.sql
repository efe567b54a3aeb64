-- Up Migration
-- Issue 33: deleting a strategy is recoverable. A deleted strategy keeps its row, record
-- and predictions, hidden from every read, the forward test, the leaderboard and the
-- per-owner cap, until its owner restores it or lab-forward purges it
-- LAB_DELETED_RETENTION_DAYS after the deletion. deleted_active: whether its forward
-- session was running when it was deleted (a restore then starts a new one).
ALTER TABLE strategies ADD COLUMN deleted_at timestamptz;
ALTER TABLE strategies ADD COLUMN deleted_active boolean;
ALTER TABLE strategies ADD CONSTRAINT strategies_deleted_check CHECK ((deleted_at IS NULL) = (deleted_active IS NULL));
CREATE INDEX strategies_deleted_idx ON strategies (deleted_at) WHERE deleted_at IS NOT NULL;

-- Down Migration
DELETE FROM strategies WHERE deleted_at IS NOT NULL;
DROP INDEX strategies_deleted_idx;
ALTER TABLE strategies DROP CONSTRAINT strategies_deleted_check;
ALTER TABLE strategies DROP COLUMN deleted_active;
ALTER TABLE strategies DROP COLUMN deleted_at;
