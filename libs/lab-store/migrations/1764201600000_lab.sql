-- Up Migration
-- The Strategy Lab's records and forward tests (SPEC 7.10), written only by lab-forward.

-- A strategy and its current (or last) forward session. The writer keeps one runner per
-- active session: a session covers the rounds from session_start_round_id on while
-- active. session_seq changes whenever a session starts, so the writer can tell a new
-- session from the one it is running.
CREATE TABLE strategies (
  id                     text PRIMARY KEY CHECK (id ~ '^stg_[1-9A-HJ-NP-Za-km-z]{22}$'),
  owner                  text NOT NULL,
  name                   text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
  -- json, not jsonb: the normalized DSL is kept as written, so reads show its keys in
  -- the order the API documents (jsonb would reorder them).
  dsl                    json NOT NULL,
  active                 boolean NOT NULL,
  session_seq            integer NOT NULL DEFAULT 1,
  session_start_round_id bigint NOT NULL,
  stopped_reason         text CHECK (stopped_reason IN ('stop_loss_streak', 'take_profit', 'session_stop_loss')),
  stopped_at_round_id    bigint,
  created_at             timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL
);
CREATE INDEX strategies_owner_idx ON strategies (owner, created_at, id);
CREATE INDEX strategies_active_idx ON strategies (id) WHERE active;

-- Running forward figures, updated with each settled round (all lamport integers).
-- fillfactor leaves room for HOT updates: every active row is rewritten every round.
CREATE TABLE forward_stats (
  strategy_id        text PRIMARY KEY REFERENCES strategies (id) ON DELETE CASCADE,
  session_seq        integer NOT NULL DEFAULT 0,
  rounds_observed    integer NOT NULL DEFAULT 0,
  rounds_settled     integer NOT NULL DEFAULT 0,
  rounds_bet         integer NOT NULL DEFAULT 0,
  rounds_won         integer NOT NULL DEFAULT 0,
  squares_bet        integer NOT NULL DEFAULT 0,
  net_lamports       bigint NOT NULL DEFAULT 0,
  stake_lamports     bigint NOT NULL DEFAULT 0,
  peak_lamports      bigint NOT NULL DEFAULT 0,
  min_net_lamports   bigint NOT NULL DEFAULT 0,
  max_drawdown_lamports bigint NOT NULL DEFAULT 0,
  streak             integer NOT NULL DEFAULT 0,
  max_streak         integer NOT NULL DEFAULT 0,
  late_count         integer NOT NULL DEFAULT 0,
  roi_percent        double precision NOT NULL DEFAULT 0,
  last_round_id      bigint
) WITH (fillfactor = 50);

-- One decision per strategy and round, recorded when the round opens (late when it was
-- decided after the round had settled) and settled once, with the round. A strategy's
-- deletion removes its predictions.
CREATE TABLE predictions (
  strategy_id    text NOT NULL REFERENCES strategies (id) ON DELETE CASCADE,
  round_id       bigint NOT NULL,
  squares        smallint[] NOT NULL,
  stakes         bigint[] NOT NULL,
  reason         text NOT NULL,
  late           boolean NOT NULL,
  recorded_at    timestamptz NOT NULL,
  settled_at     timestamptz,
  winning_square smallint,
  stake_lamports bigint,
  pnl_lamports   bigint,
  hit            boolean,
  PRIMARY KEY (strategy_id, round_id)
);
CREATE INDEX predictions_pending_idx ON predictions (round_id) WHERE settled_at IS NULL;

-- The writer's position: every round up to round_id is settled. Command handlers that
-- start or end sessions hold it FOR SHARE, so a session boundary never falls inside a
-- settlement. NULL until the writer first starts (it then begins at the latest stored round).
CREATE TABLE progress (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  round_id   bigint,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO progress DEFAULT VALUES;

-- The board, regenerated after each settled round: qualifying strategies by ROI, then
-- sample size. Deleting a strategy deletes its entry.
CREATE TABLE leaderboard (
  rank           integer PRIMARY KEY,
  strategy_id    text NOT NULL UNIQUE REFERENCES strategies (id) ON DELETE CASCADE,
  roi_percent    double precision NOT NULL,
  rounds_settled integer NOT NULL,
  net_lamports   bigint NOT NULL
);
CREATE TABLE leaderboard_meta (
  singleton              boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  generated_at           timestamptz NOT NULL DEFAULT now(),
  min_rounds_to_qualify  integer NOT NULL DEFAULT 1000
);
INSERT INTO leaderboard_meta DEFAULT VALUES;

-- Down Migration
DROP TABLE leaderboard_meta;
DROP TABLE leaderboard;
DROP TABLE progress;
DROP TABLE predictions;
DROP TABLE forward_stats;
DROP TABLE strategies;
