-- Up Migration
-- Issue 33: a payment nonce may ask that only a PUT /subscribe signed by the owner's
-- wallet redeems it (POST /subscribe requireSignature); every Gridlab client asks.
ALTER TABLE payment_nonces ADD COLUMN require_signature boolean NOT NULL DEFAULT false;
-- When the payment's reclaim window closed early, and why: its key was taken back once
-- ('reclaim'), or the owner rotated the key with /reissue since ('reissue').
ALTER TABLE payment_nonces ADD COLUMN reclaim_closed_at timestamptz;
ALTER TABLE payment_nonces ADD COLUMN reclaim_closed_by text CHECK (reclaim_closed_by IN ('reclaim', 'reissue'));
-- A /reissue closes the windows of the owner's redeemed, still open payments: found by owner.
CREATE INDEX payment_nonces_owner_open_idx ON payment_nonces (owner_pubkey) WHERE consumed_at IS NOT NULL AND reclaim_closed_at IS NULL;

-- Down Migration
DROP INDEX payment_nonces_owner_open_idx;
ALTER TABLE payment_nonces DROP COLUMN reclaim_closed_by;
ALTER TABLE payment_nonces DROP COLUMN reclaim_closed_at;
ALTER TABLE payment_nonces DROP COLUMN require_signature;
