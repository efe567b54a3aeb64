-- Up Migration
-- Reads of billing's tables, table by table (billing-store's read-only exports), when each
-- service runs as its own role (k8s/engines/postgres-roles.sql; see rounds-store's grants):
-- the gateway checks keys (api_keys, subscribers), the event log derives subscription
-- events (facts), lab-forward stops strategies of lapsed subscriptions (subscribers).
DO $$
DECLARE
  prefix text;
  grant_ text[];
BEGIN
  IF current_user NOT LIKE '%billing' THEN RETURN; END IF;
  prefix := left(current_user, length(current_user) - length('billing'));
  FOREACH grant_ SLICE 1 IN ARRAY ARRAY[['api_gateway', 'billing.api_keys, billing.subscribers'], ['event_log', 'billing.facts'], ['lab_forward', 'billing.subscribers']] LOOP
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = prefix || grant_[1]) THEN
      EXECUTE format('GRANT USAGE ON SCHEMA billing TO %I', prefix || grant_[1]);
      EXECUTE format('GRANT SELECT ON %s TO %I', grant_[2], prefix || grant_[1]);
    END IF;
  END LOOP;
END $$;
