-- Up Migration
-- Alert rules, owned by a subscriber (the API key's owner). `params` is the kind's own
-- settings, checked by the notifier before they are stored. A rule with no target is
-- read from the alert stream only. A rule whose endpoint fails for a day is disabled
-- (`disabled_reason`), not deleted: its owner sees why and enables it again.
CREATE TABLE rules (
  id              text PRIMARY KEY,
  owner           text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('motherlode', 'square_ev', 'wallet', 'event', 'strategy_signal')),
  name            text,
  params          jsonb NOT NULL,
  target_url      text,
  target_format   text CHECK (target_format IN ('standard', 'discord', 'slack')),
  enabled         boolean NOT NULL DEFAULT true,
  disabled_reason text,
  -- The first failed attempt since the endpoint last answered 2xx; null while it answers.
  failing_since   timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((target_url IS NULL) = (target_format IS NULL))
);
CREATE INDEX rules_owner_idx ON rules (owner, created_at, id);
CREATE INDEX rules_enabled_kind_idx ON rules (kind) WHERE enabled;

-- A rule's signing secrets. The newest signs; a rotated one keeps signing beside it until
-- `retires_at`, so a receiver can switch secrets without missing a delivery. Never read
-- by any other service (no grant).
CREATE TABLE rule_secrets (
  rule_id    text NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  secret     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  retires_at timestamptz,
  PRIMARY KEY (rule_id, created_at)
);

-- What rules fired. `dedup_key` names the condition and the round it held in: replicas
-- that evaluate the same message insert the same key, and one insert wins. `id` orders an
-- owner's firings for the alert stream (Last-Event-ID); `webhook_id` is what every
-- attempt of its delivery carries.
CREATE TABLE firings (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  rule_id    text NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  owner      text NOT NULL,
  dedup_key  text NOT NULL UNIQUE,
  webhook_id text NOT NULL UNIQUE,
  payload    jsonb NOT NULL,
  fired_at   timestamptz NOT NULL
);
CREATE INDEX firings_owner_idx ON firings (owner, id);
CREATE INDEX firings_rule_idx ON firings (rule_id, id);

-- The delivery queue: one row per firing of a rule with a target. A replica takes due rows
-- with FOR UPDATE SKIP LOCKED and holds them by a lease (`leased_until`): another replica
-- skips them while it runs, and takes them again if the lease ends without an outcome
-- (the replica died): at least once, under the same webhook id.
CREATE TABLE deliveries (
  firing_id    bigint PRIMARY KEY REFERENCES firings (id) ON DELETE CASCADE,
  rule_id      text NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'expired')),
  attempts     int NOT NULL DEFAULT 0,
  next_at      timestamptz NOT NULL,
  leased_until timestamptz,
  delivered_at timestamptz
);
CREATE INDEX deliveries_due_idx ON deliveries (next_at) WHERE state = 'pending';
CREATE INDEX deliveries_rule_idx ON deliveries (rule_id) WHERE state = 'pending';

-- The delivery log: every attempt, with what came back (a capped excerpt).
CREATE TABLE attempts (
  firing_id  bigint NOT NULL REFERENCES firings (id) ON DELETE CASCADE,
  attempt    int NOT NULL,
  at         timestamptz NOT NULL DEFAULT now(),
  status     int,
  latency_ms int NOT NULL,
  excerpt    text NOT NULL,
  error      text,
  PRIMARY KEY (firing_id, attempt)
);

-- The gateway serves the alert stream from the firings: a read grant to its role when each
-- service runs as its own (k8s/engines/postgres-roles.sql). Secrets and the queue stay the
-- notifier's.
DO $$
DECLARE
  reader text;
BEGIN
  IF current_user NOT LIKE '%notifier' THEN RETURN; END IF;
  reader := left(current_user, length(current_user) - length('notifier')) || 'api_gateway';
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = reader) THEN
    EXECUTE format('GRANT USAGE ON SCHEMA alerts TO %I', reader);
    EXECUTE format('GRANT SELECT ON alerts.firings TO %I', reader);
  END IF;
END $$;

-- Down Migration
DROP TABLE attempts;
DROP TABLE deliveries;
DROP TABLE firings;
DROP TABLE rule_secrets;
DROP TABLE rules;
