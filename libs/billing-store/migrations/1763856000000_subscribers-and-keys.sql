-- Up Migration
-- Billing owns subscribers and their API keys. Only an HMAC of each key is stored.
CREATE TABLE subscribers (
  id            text PRIMARY KEY CHECK (id ~ '^sub_[1-9A-HJ-NP-Za-km-z]{22}$'),
  owner_pubkey  text NOT NULL UNIQUE,
  plan          text NOT NULL CHECK (plan IN ('monthly', 'annual', 'grant')),
  paid_until    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscribers_paid_until_idx ON subscribers (paid_until);

CREATE TABLE api_keys (
  key_hash       bytea PRIMARY KEY CHECK (octet_length(key_hash) = 32),
  subscriber_id  text NOT NULL REFERENCES subscribers (id),
  issued_at      timestamptz NOT NULL DEFAULT now(),
  issued_by      text NOT NULL CHECK (issued_by IN ('payment', 'reissue', 'admin')),
  revoked_at     timestamptz,
  revoked_reason text
);
-- A subscriber has at most one active key (SPEC 5).
CREATE UNIQUE INDEX api_keys_one_active_idx ON api_keys (subscriber_id) WHERE revoked_at IS NULL;

-- Down Migration
DROP TABLE api_keys;
DROP TABLE subscribers;
