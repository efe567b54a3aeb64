-- Up Migration
-- Corrections. When rounds are stored below the writer's watermark (a history fill after
-- the live rounds), it derives again from a checkpoint at or below them and reconciles:
-- an event that no longer follows from the stored history is withdrawn by appending a
-- `withdrawn` event naming it (the row itself never changes on the wire; withdrawn_by is
-- the writer's bookkeeping), and the event that holds instead is appended. A dedup key
-- is therefore unique among live events only: `drought_broken:105` may be withdrawn and
-- appended again with the drought the full history gives.
ALTER TABLE events DROP CONSTRAINT events_kind_check;
ALTER TABLE events ADD CONSTRAINT events_kind_check
  CHECK (kind IN ('drought_broken', 'big_round', 'tier', 'milestone', 'subscription', 'streak', 'motherlode', 'withdrawn'));
ALTER TABLE events ADD COLUMN round_id bigint;
ALTER TABLE events ADD COLUMN withdrawn_by bigint;
UPDATE events SET round_id = (body->>'roundId')::bigint WHERE body ? 'roundId';
ALTER TABLE events DROP CONSTRAINT events_dedup_key_key;
CREATE UNIQUE INDEX events_live_dedup_key_idx ON events (dedup_key) WHERE withdrawn_by IS NULL;
CREATE INDEX events_live_round_idx ON events (round_id) WHERE withdrawn_by IS NULL AND round_id IS NOT NULL;
-- The kind filter also returns the withdrawals of events of that kind.
CREATE INDEX events_withdrawn_kind_idx ON events ((body->>'eventKind'), id) WHERE kind = 'withdrawn';

-- The deriver's state after every N-th round it processed (N = the writer's checkpoint
-- interval), with how many rounds it had processed by then: a late round rewinds the
-- writer to the newest checkpoint whose count the stored rounds still match.
CREATE TABLE checkpoints (
  round_id    bigint PRIMARY KEY,
  round_count bigint NOT NULL CHECK (round_count > 0),
  state       jsonb NOT NULL
);

-- Down Migration
DROP TABLE checkpoints;
DROP INDEX events_withdrawn_kind_idx;
DROP INDEX events_live_round_idx;
DROP INDEX events_live_dedup_key_idx;
DELETE FROM events WHERE kind = 'withdrawn' OR withdrawn_by IS NOT NULL;
ALTER TABLE events ADD CONSTRAINT events_dedup_key_key UNIQUE (dedup_key);
ALTER TABLE events DROP COLUMN withdrawn_by;
ALTER TABLE events DROP COLUMN round_id;
ALTER TABLE events DROP CONSTRAINT events_kind_check;
ALTER TABLE events ADD CONSTRAINT events_kind_check
  CHECK (kind IN ('drought_broken', 'big_round', 'tier', 'milestone', 'subscription', 'streak', 'motherlode'));
