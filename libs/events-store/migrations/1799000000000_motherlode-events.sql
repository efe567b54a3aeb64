-- Up Migration
-- The `motherlode` kind: a round paid out the motherlode pool. Rounds the writer processed
-- before this migration are not re-derived (the watermark is past them).
ALTER TABLE events DROP CONSTRAINT events_kind_check;
ALTER TABLE events ADD CONSTRAINT events_kind_check
  CHECK (kind IN ('drought_broken', 'big_round', 'tier', 'milestone', 'subscription', 'streak', 'motherlode'));

-- Down Migration
DELETE FROM events WHERE kind = 'motherlode';
ALTER TABLE events DROP CONSTRAINT events_kind_check;
ALTER TABLE events ADD CONSTRAINT events_kind_check
  CHECK (kind IN ('drought_broken', 'big_round', 'tier', 'milestone', 'subscription', 'streak'));
