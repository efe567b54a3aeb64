-- Up Migration
-- Whether the payment nonce was redeemed by a PUT /subscribe signed by the owner's wallet
-- (issue 12): an unsigned redemption may be a front-runner's, a signed one is the owner's.
ALTER TABLE payment_nonces ADD COLUMN consumed_signed boolean;
-- Expired, never-redeemed nonces are deleted by billing's sweep (issue 12): an index to find them.
CREATE INDEX reissue_nonces_expires_idx ON reissue_nonces (expires_at);

-- Revocation outbox (issue 12): every revoked key hash, written in the revoking
-- transaction; billing writes its Redis tombstone and announces it on NATS
-- (access.key.revoked), retrying until both are done, then sets delivered_at.
CREATE TABLE revocations (
  key_hash      bytea PRIMARY KEY CHECK (octet_length(key_hash) = 32),
  revoked_at    timestamptz NOT NULL,
  delivered_at  timestamptz
);
CREATE INDEX revocations_pending_idx ON revocations (revoked_at) WHERE delivered_at IS NULL;

-- Down Migration
DROP TABLE revocations;
DROP INDEX reissue_nonces_expires_idx;
ALTER TABLE payment_nonces DROP COLUMN consumed_signed;
