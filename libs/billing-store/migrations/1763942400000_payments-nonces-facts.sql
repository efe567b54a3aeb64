-- Up Migration
-- Payment nonces: the price is locked in at creation (SPEC 5); consumed exactly once.
CREATE TABLE payment_nonces (
  nonce              text PRIMARY KEY CHECK (nonce ~ '^pay-[1-9A-HJ-NP-Za-km-z]{22}$'),
  owner_pubkey       text NOT NULL,
  plan               text NOT NULL CHECK (plan IN ('monthly', 'annual')),
  referral_id        text REFERENCES subscribers (id),
  amount_base_units  numeric(40, 0) NOT NULL CHECK (amount_base_units > 0),
  created_at         timestamptz NOT NULL,
  expires_at         timestamptz NOT NULL,
  consumed_at        timestamptz,
  consumed_tx_sig    text
);
CREATE INDEX payment_nonces_expires_idx ON payment_nonces (expires_at) WHERE consumed_at IS NULL;

-- One row per accepted payment; a transaction signature pays for one subscription period only.
CREATE TABLE payments (
  tx_sig             text PRIMARY KEY,
  nonce              text NOT NULL UNIQUE REFERENCES payment_nonces (nonce),
  subscriber_id      text NOT NULL REFERENCES subscribers (id),
  plan               text NOT NULL,
  amount_base_units  numeric(40, 0) NOT NULL,
  block_time         timestamptz,
  slot               bigint NOT NULL,
  recorded_at        timestamptz NOT NULL
);
CREATE INDEX payments_subscriber_idx ON payments (subscriber_id);

-- Reissue nonces: single use, 10 minutes; the signed message is stored as issued.
CREATE TABLE reissue_nonces (
  nonce         text PRIMARY KEY CHECK (nonce ~ '^rei-[1-9A-HJ-NP-Za-km-z]{22}$'),
  owner_pubkey  text NOT NULL,
  message       text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  consumed_at   timestamptz
);

-- Outbox of subscription and tier facts: written in the transaction that causes them,
-- published to JetStream after commit, re-published by a relay until marked published.
CREATE TABLE facts (
  seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  fact_id       text NOT NULL UNIQUE,
  kind          text NOT NULL CHECK (kind IN ('subscription', 'tier')),
  payload       jsonb NOT NULL,
  created_at    timestamptz NOT NULL,
  published_at  timestamptz
);
CREATE INDEX facts_unpublished_idx ON facts (seq) WHERE published_at IS NULL;

-- The active count last announced, so tier crossings are found once, in order.
CREATE TABLE tier_state (
  singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  active_subs   integer NOT NULL,
  version       bigint NOT NULL
);
INSERT INTO tier_state (active_subs, version) VALUES (0, 0);

-- The paid_until whose expiry has been announced (an `expired` fact), per subscriber.
ALTER TABLE subscribers ADD COLUMN expiry_announced_for timestamptz;

-- Down Migration
ALTER TABLE subscribers DROP COLUMN expiry_announced_for;
DROP TABLE tier_state;
DROP TABLE facts;
DROP TABLE reissue_nonces;
DROP TABLE payments;
DROP TABLE payment_nonces;
