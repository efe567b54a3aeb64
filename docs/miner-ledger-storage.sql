-- Every miner's ledger, the tables as measured in docs/miner-ledger-storage.md. Not among the
-- indexer's migrations: nothing writes or reads them yet. Written in node-pg-migrate's form
-- (this part creates, the part after "Down Migration" drops).
-- Up Migration
-- Recent rounds are stored one row per miner and round (miner_rounds_recent); each closed
-- UTC day (1,440 rounds) is compacted into one row per wallet (miner_blocks, its rows
-- packed column by column in a compressed bytea), partitioned by round range so that old
-- weeks can be detached and archived. Rollups per wallet and hour, day, all time and
-- top-miner window answer the summary and top-miner queries without reading the ledger.
-- Distribution column for Citus: miner_id everywhere (wallets: reference table).

CREATE TABLE wallets (
  id      int4 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  address bytea NOT NULL UNIQUE CHECK (octet_length(address) = 32)
);

-- One miner-round. Columns widest first (no alignment padding); figures the chain does not
-- prove are null; strategy uses -1 (manual) instead of null so that the common row has no
-- null bitmap.
CREATE TABLE miner_rounds_recent (
  amount          int8,              -- lamports per square when the same on every square; null: per square in amounts, or not known
  sol_back        int8,              -- lamports the checkpoint pays back; null: not known
  ore             int8,              -- ORE base units of the top-miner reward or of a split share (flags say which); null: not known
  ore_motherlode  int8,
  admin_fee       int8,
  protocol_fee    int8,
  round_id        int4 NOT NULL,
  miner_id        int4 NOT NULL REFERENCES wallets (id),
  squares         int4 NOT NULL CHECK (squares >= 0 AND squares < 33554432),
  signer_id       int4 NOT NULL,     -- = miner_id when the wallet signed its deploys
  tx_fee          int4,              -- network + priority lamports the wallet paid for its deploys; null: not known
  slots_left      int2 NOT NULL,     -- slots before the round's end at its first deploy
  slots_left_last int2 NOT NULL,     -- at its last deploy
  deploys         int2 NOT NULL CHECK (deploys > 0),
  strategy        int2 NOT NULL,     -- -1: manual, -2: automated (strategy not logged), >= 0: the automation's strategy
  flags           int2 NOT NULL,     -- 1: top miner, 2: split round, 4: held the winning square
  amounts         bytea,             -- not uniform: a big-endian int8 per set bit of squares, in square order
  PRIMARY KEY (miner_id, round_id)
);

-- A wallet's closed day: rounds entries, in round order, packed column by column (big-endian
-- as int*send writes; -1: null): round offsets from block_start (int2), squares (int4),
-- amount (int8, -2: per square in the exceptions), sol_back, ore, ore_motherlode,
-- admin_fee, protocol_fee (int8), signer_id, tx_fee (int4), slots_left, slots_left_last,
-- deploys, strategy, flags (int2), then the per-square amounts of the entries whose amount is -2.
CREATE TABLE miner_blocks (
  block_start int4 NOT NULL CHECK (block_start % 1440 = 0),
  miner_id    int4 NOT NULL,
  rounds      int2 NOT NULL,
  data        bytea COMPRESSION lz4 NOT NULL,
  PRIMARY KEY (miner_id, block_start)
) PARTITION BY RANGE (block_start);

-- Weekly partitions (10,080 rounds), created ahead by the writer: compressed inline from 128 bytes.
CREATE FUNCTION miner_blocks_partition(week int4) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE IF NOT EXISTS miner_blocks_w%s PARTITION OF miner_blocks FOR VALUES FROM (%s) TO (%s) WITH (toast_tuple_target = 128)',
    week, week * 10080, (week + 1) * 10080);
END $$;

CREATE FUNCTION int4_array_add(a int4[], b int4[]) RETURNS int4[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT array_agg(x + y ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS t(x, y, i) $$;

-- Per wallet and UTC day (hour: the last 48 hours only; totals: all time). Sums leave out the
-- rounds whose amount or outcome is not known (counted in unknown).
CREATE TABLE miner_days (
  miner_id        int4 NOT NULL,
  day             int4 NOT NULL,
  rounds          int4 NOT NULL,
  deploys         int4 NOT NULL,
  wins            int4 NOT NULL,
  top_wins        int4 NOT NULL,
  motherlode_hits int4 NOT NULL,
  first_round     int4 NOT NULL,
  last_round      int4 NOT NULL,
  deployed        int8 NOT NULL,
  sol_back        int8 NOT NULL,
  admin_fee       int8 NOT NULL,
  protocol_fee    int8 NOT NULL,
  tx_fee          int8 NOT NULL,
  ore_top         int8 NOT NULL,
  ore_split       int8 NOT NULL,
  ore_motherlode  int8 NOT NULL,
  unknown         int4 NOT NULL,
  slots_hist      int4[] NOT NULL,  -- deploys per slots-left bucket: 0, 1, 2, 3, 4-5, 6-7, 8-11, 12-15, 16-23, 24-31, 32-47, 48-63, 64-95, 96-127, 128-191, 192+
  PRIMARY KEY (miner_id, day)
);
CREATE TABLE miner_hours (LIKE miner_days INCLUDING ALL);
ALTER TABLE miner_hours RENAME COLUMN day TO hour;
CREATE TABLE miner_totals (LIKE miner_days INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE miner_totals DROP COLUMN day, ADD PRIMARY KEY (miner_id);

-- Top miners per window (1: 24 h, 2: 7 d, 3: 30 d): added to with each round, subtracted
-- from as an hour or a day leaves the window. All time reads miner_totals.
CREATE TABLE miner_windows (
  miner_id int4 NOT NULL,
  win      int2 NOT NULL CHECK (win BETWEEN 1 AND 3),
  rounds   int4 NOT NULL,
  deployed int8 NOT NULL,
  net      int8 NOT NULL,
  ore      int8 NOT NULL,
  PRIMARY KEY (miner_id, win)
) WITH (fillfactor = 80);

-- Down Migration
DROP TABLE miner_windows;
DROP TABLE miner_totals;
DROP TABLE miner_hours;
DROP TABLE miner_days;
DROP FUNCTION int4_array_add(int4[], int4[]);
DROP FUNCTION miner_blocks_partition(int4);
DROP TABLE miner_blocks;
DROP TABLE miner_rounds_recent;
DROP TABLE wallets;
