-- Up Migration
-- The gateway reads the event log (GET /events, /events/stream): a read grant to its role
-- when each service runs as its own (k8s/engines/postgres-roles.sql; see rounds-store's grants).
DO $$
DECLARE
  reader text;
BEGIN
  IF current_user NOT LIKE '%event_log' THEN RETURN; END IF;
  reader := left(current_user, length(current_user) - length('event_log')) || 'api_gateway';
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = reader) THEN
    EXECUTE format('GRANT USAGE ON SCHEMA events TO %I', reader);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA events TO %I', reader);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA events GRANT SELECT ON TABLES TO %I', reader);
  END IF;
END $$;
