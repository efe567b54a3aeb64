-- Up Migration
-- The SHA-256 of the wallet signature that last redeemed or reclaimed a payment nonce: a
-- signed PUT /subscribe seen by someone else (a proxy log, a support ticket) cannot be
-- replayed as a reclaim, which needs a signature the nonce has not seen. Null for a
-- redemption that was not signed (then any valid signature of the owner may reclaim).
ALTER TABLE payment_nonces ADD COLUMN redeemed_signature_hash bytea CHECK (octet_length(redeemed_signature_hash) = 32);

-- Down Migration
ALTER TABLE payment_nonces DROP COLUMN redeemed_signature_hash;
