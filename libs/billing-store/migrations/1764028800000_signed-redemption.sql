-- Up Migration
-- Whether the payment nonce was redeemed by a PUT /subscribe signed by the owner's wallet
-- (issue 12): an unsigned redemption may be a front-runner's, a signed one is the owner's.
ALTER TABLE payment_nonces ADD COLUMN consumed_signed boolean;
-- Expired, never-redeemed nonces are deleted by billing's sweep (issue 12): an index to find them.
CREATE INDEX reissue_nonces_expires_idx ON reissue_nonces (expires_at);

-- Down Migration
DROP INDEX reissue_nonces_expires_idx;
ALTER TABLE payment_nonces DROP COLUMN consumed_signed;
