-- Up Migration
-- Sign-In With Solana messages already used (the dashboard's wallet sign-in). The nonce is
-- stateless until then (a MAC the gateway checks); signing in inserts it, and a second
-- insert of the same nonce inserts nothing, so a message signs in once, on any gateway
-- replica. In PostgreSQL rather than Redis: a Redis failover to a replica the nonce had
-- not reached yet would let a captured message sign in again until it expires. Billing's
-- nonce sweep deletes a row an hour after its message expired.
CREATE TABLE siws_used_nonces (
  nonce text PRIMARY KEY,
  -- The signed message's expiry: after it, the message is refused without looking here.
  expires_at timestamptz NOT NULL
);
CREATE INDEX siws_used_nonces_expires_at ON siws_used_nonces (expires_at);

-- The gateway's role, where each service has its own (see 1796000000000_reader-grants.sql),
-- may only insert: INSERT ... ON CONFLICT DO NOTHING without a conflict target needs no more.
DO $$
DECLARE
  prefix text;
BEGIN
  IF current_user NOT LIKE '%billing' THEN RETURN; END IF;
  prefix := left(current_user, length(current_user) - length('billing'));
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = prefix || 'api_gateway') THEN
    EXECUTE format('GRANT USAGE ON SCHEMA billing TO %I', prefix || 'api_gateway');
    EXECUTE format('GRANT INSERT ON billing.siws_used_nonces TO %I', prefix || 'api_gateway');
  END IF;
END $$;

-- Down Migration
DROP TABLE siws_used_nonces;
