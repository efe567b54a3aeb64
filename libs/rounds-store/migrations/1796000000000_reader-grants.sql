-- Up Migration
-- Reads of the indexer's schema for the services that read rounds, when each service runs
-- as its own role (k8s/engines/postgres-roles.sql): their roles share this role's prefix
-- (<prefix>indexer → <prefix>api_gateway, ...). With one role for everything there is
-- nobody to grant to. Default privileges cover the tables later migrations add.
DO $$
DECLARE
  prefix text;
  reader text;
BEGIN
  IF current_user NOT LIKE '%indexer' THEN RETURN; END IF;
  prefix := left(current_user, length(current_user) - length('indexer'));
  FOREACH reader IN ARRAY ARRAY['api_gateway', 'event_log', 'lab_forward', 'lab_backtest'] LOOP
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = prefix || reader) THEN
      EXECUTE format('GRANT USAGE ON SCHEMA indexer TO %I', prefix || reader);
      EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA indexer TO %I', prefix || reader);
      EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA indexer GRANT SELECT ON TABLES TO %I', prefix || reader);
    END IF;
  END LOOP;
END $$;
