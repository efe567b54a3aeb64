-- Up Migration
-- The chain the stored rounds come from, by its genesis hash: recorded by the first
-- indexer that reads the chain; an indexer whose RPC serves another chain refuses to
-- store or publish anything (see docs/decisions.md, "Chain identity").
CREATE TABLE chain (
  id           smallint PRIMARY KEY CHECK (id = 1),
  genesis_hash text NOT NULL CHECK (genesis_hash ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$'),
  recorded_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE chain;
