-- Up Migration
-- The event log. Only the leader appends, one transaction at a time, numbering events
-- max(id) + 1 inside its transaction: ids increase in commit order and have no holes (a
-- rolled-back append leaves none), so a reader can tell a missed event from a skip.
-- Every event has a natural dedup key: replaying a round or a fact never appends twice.
CREATE TABLE events (
  id          bigint PRIMARY KEY CHECK (id > 0),
  dedup_key   text NOT NULL UNIQUE,
  kind        text NOT NULL CHECK (kind IN ('drought_broken', 'big_round', 'tier', 'milestone', 'subscription', 'streak')),
  ts          timestamptz NOT NULL,
  body        jsonb NOT NULL,
  appended_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_kind_id_idx ON events (kind, id);

-- How far the writer has processed each source, and the derivation state at that point.
CREATE TABLE progress (
  singleton       boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  round_id        bigint NOT NULL DEFAULT 0,
  deriver_state   jsonb,
  billing_fact_seq bigint NOT NULL DEFAULT 0,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO progress DEFAULT VALUES;

-- Down Migration
DROP TABLE progress;
DROP TABLE events;
