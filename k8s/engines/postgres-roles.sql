-- Least privilege in PostgreSQL: one login role per service, each owning the schema it
-- writes; the owners' migrations grant reads to the roles that read their tables
-- (docs/architecture.md, "who reads what"). Run once by a superuser before the services
-- first start (Kubernetes: the CloudNativePG Cluster's bootstrap, k8s/engines); idempotent.
-- Role names: <prefix><service>, prefix from `SET gridlab.role_prefix = '...'` (default
-- 'gridlab_'). Set each role's password with ALTER ROLE (CloudNativePG: managed roles).
-- A deployment with one role for everything (make start, tests) needs none of this.
DO $$
DECLARE
  prefix text := coalesce(nullif(current_setting('gridlab.role_prefix', true), ''), 'gridlab_');
  service text;
  owned constant text[][] := ARRAY[['indexer', 'indexer'], ['billing', 'billing'], ['event_log', 'events'], ['lab_forward', 'lab'], ['notifier', 'alerts']];
  pair text[];
BEGIN
  FOREACH service IN ARRAY ARRAY['indexer', 'api_gateway', 'billing', 'event_log', 'lab_forward', 'lab_backtest', 'notifier'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = prefix || service) THEN
      EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE', prefix || service);
    END IF;
    -- Connecting is all a service may do with the database itself (no new schemas).
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), prefix || service);
  END LOOP;
  EXECUTE 'REVOKE CREATE ON SCHEMA public FROM PUBLIC';
  FOREACH pair SLICE 1 IN ARRAY owned LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = pair[2]) THEN
      EXECUTE format('CREATE SCHEMA %I AUTHORIZATION %I', pair[2], prefix || pair[1]);
    ELSE
      EXECUTE format('ALTER SCHEMA %I OWNER TO %I', pair[2], prefix || pair[1]);
    END IF;
  END LOOP;
END $$;
