-- Up Migration
-- Every miner's ledger (docs/miner-ledger-storage.md): one row per wallet and settled round,
-- written by the indexer and read by the gateway through libs/miners-store. Recent rows stay
-- one per miner-round; closed blocks of 1,440 rounds are packed per wallet into one
-- lz4-compressed bytea (miner_blocks, partitioned weekly by round range so old weeks can be
-- detached and archived). Rollups per wallet and hour / UTC day / all time answer the
-- summary and the top miners without reading the ledger. Every primary key starts with
-- miner_id: the distribution column on Citus (docs/operations.md).

-- Wallet addresses (32 bytes) to the int4 every other table keys on.
CREATE TABLE wallets (
  id      int4 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  address bytea NOT NULL UNIQUE CHECK (octet_length(address) = 32)
);

-- The rounds whose miners are stored, with the wallets in the order of their first deploy:
-- a round's miners are found without scanning the ledger, and a round is written once.
CREATE TABLE miner_round_sets (
  round_id   int4 PRIMARY KEY,
  settled_at timestamptz NOT NULL,
  miner_ids  int4[] NOT NULL
) WITH (toast_tuple_target = 128);
-- The wallet lists (1.6 kB a round on mainnet) compressed or moved out of line: the heap
-- keeps ~40-byte rows, so an export reading the settlement times of a span of rounds reads
-- few pages.

-- Figures widest first (no alignment padding). Lamports and ORE base units; NULL: not proven.
CREATE TABLE miner_rounds_recent (
  amount             int8,          -- lamports per square when the same on every square; NULL: per square in amounts, or not known (squares NULL)
  sol_back           int8,
  ore                int8,          -- top-miner reward or split share (flags say which)
  ore_motherlode     int8,
  admin_fee          int8,
  protocol_fee       int8,
  ore_value          int8,          -- lamports: the row's ORE at the price of its day (0 when unpriced)
  round_id           int4 NOT NULL,
  miner_id           int4 NOT NULL,
  squares            int4,          -- bit s: took square s; NULL: not shown
  signer_id          int4 NOT NULL,
  network_fee        int4,
  priority_fee       int4,
  executor_fee       int4,
  checkpoint_deposit int4,
  slots_left         int2 NOT NULL,
  slots_left_last    int2 NOT NULL,
  deploys            int2 NOT NULL,
  strategy           int2 NOT NULL, -- -1 manual, -2 automated (strategy not logged), >= 0 the automation's strategy
  flags              int2 NOT NULL, -- 1 top miner, 2 split round, 4 held the winning square, 8 outcome known, 16 parimutuel round
  amounts            bytea,         -- amounts not uniform: one big-endian int8 per set bit of squares
  PRIMARY KEY (miner_id, round_id)
);
CREATE INDEX miner_rounds_recent_round ON miner_rounds_recent (round_id);

CREATE TABLE miner_blocks (
  block_start int4 NOT NULL,        -- first round of the block (a multiple of 1,440)
  miner_id    int4 NOT NULL,
  rounds      int2 NOT NULL,        -- rows packed in data
  data        bytea COMPRESSION lz4 NOT NULL,
  PRIMARY KEY (miner_id, block_start)
) PARTITION BY RANGE (block_start);

-- The rollups: the same figures per wallet and UTC hour (the last 48 hours), UTC day, and
-- all time. Sums leave out rounds whose stake or outcome is not known (`unknown` counts them).
CREATE TABLE miner_days (
  day                 int4 NOT NULL,  -- days since 1970-01-01 (UTC) of the round's settlement
  miner_id            int4 NOT NULL,
  rounds              int4 NOT NULL,
  deploys             int4 NOT NULL,
  wins                int4 NOT NULL,
  top_wins            int4 NOT NULL,
  motherlode_hits     int4 NOT NULL,
  unknown             int4 NOT NULL,
  first_round         int4 NOT NULL,
  last_round          int4 NOT NULL,
  deployed            int8 NOT NULL,
  sol_back            int8 NOT NULL,
  admin_fee           int8 NOT NULL,
  protocol_fee        int8 NOT NULL,
  network_fee         int8 NOT NULL,
  priority_fee        int8 NOT NULL,
  executor_fee        int8 NOT NULL,
  checkpoint_deposits int8 NOT NULL,
  ore_top             int8 NOT NULL,
  ore_split           int8 NOT NULL,
  ore_motherlode      int8 NOT NULL,
  ore_value           int8 NOT NULL,
  slots_hist          int4[] NOT NULL, -- deploys per slots-left bucket (16, see libs/miners-store)
  PRIMARY KEY (miner_id, day)
);
CREATE TABLE miner_hours (LIKE miner_days);
ALTER TABLE miner_hours RENAME COLUMN day TO hour;  -- hours since the epoch
ALTER TABLE miner_hours ADD PRIMARY KEY (miner_id, hour);
CREATE TABLE miner_totals (LIKE miner_days);
ALTER TABLE miner_totals DROP COLUMN day;
ALTER TABLE miner_totals ADD PRIMARY KEY (miner_id);
-- Top miners of all time, by each sort, without sorting every wallet.
CREATE INDEX miner_totals_net ON miner_totals ((sol_back - deployed - network_fee - priority_fee - executor_fee));
CREATE INDEX miner_totals_ore ON miner_totals ((ore_top + ore_split + ore_motherlode));
CREATE INDEX miner_totals_deployed ON miner_totals (deployed);
CREATE INDEX miner_totals_rounds ON miner_totals (rounds);
-- The day windows of the top miners read one day range of every wallet.
CREATE INDEX miner_days_day ON miner_days (day);
CREATE INDEX miner_hours_hour ON miner_hours (hour);

-- The top miners of the last 24 hours, 7 and 30 days by each sort, summed from the rollups
-- by the indexer's leader each minute (win 1 24 h, 2 7 d, 3 30 d; sort 1 net, 2 ore,
-- 3 deployed, 4 rounds): a window's top is one index read instead of an aggregate over
-- every wallet of the window (~80 ms for 30 days of mainnet).
CREATE TABLE miner_tops (
  win          int2 NOT NULL,
  sort         int2 NOT NULL,
  rank         int2 NOT NULL,
  miner_id     int4 NOT NULL,
  rounds       int4 NOT NULL,
  deployed     int8 NOT NULL,
  net          int8 NOT NULL,
  ore          int8 NOT NULL,
  refreshed_at timestamptz NOT NULL,
  PRIMARY KEY (win, sort, rank)
);

-- ORE prices an operator supplies (lamports per whole ORE, per UTC day): the value of a day's
-- ORE where given; otherwise the round's production cost.
CREATE TABLE ore_prices (
  day                int4 PRIMARY KEY,
  lamports_per_ore   int8 NOT NULL CHECK (lamports_per_ore >= 0)
);

-- Down Migration
DROP TABLE ore_prices;
DROP TABLE miner_tops;
DROP TABLE miner_totals;
DROP TABLE miner_hours;
DROP TABLE miner_days;
DROP TABLE miner_blocks;
DROP TABLE miner_rounds_recent;
DROP TABLE miner_round_sets;
DROP TABLE wallets;
