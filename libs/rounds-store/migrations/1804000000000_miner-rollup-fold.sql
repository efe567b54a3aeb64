-- Up Migration
-- Rounds whose miner rows are stored but not yet added to the rollups (miner_days,
-- miner_hours, miner_totals): the history fill writes a chunk of rounds at a time and adds
-- a thousand rounds' rows to the rollups at once, each wallet's rows summed once instead of
-- once per chunk. A round is listed in the transaction that writes its rows and unlisted in
-- the one that adds them to the rollups, so a crash between the two leaves it listed and
-- the next fold takes it. A queue of its own rather than a flag on miner_round_sets: the
-- list is empty in steady state, a fold claims it with one DELETE (a second fold waits on
-- the claimed rows and finds them gone), and no round-set row is rewritten.
CREATE TABLE miner_unfolded_rounds (
  round_id int4 PRIMARY KEY
);

-- Down Migration
-- The earlier schema adds every round to the rollups as it is written: rounds still listed
-- would never be counted.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM miner_unfolded_rounds) THEN
    RAISE EXCEPTION 'miner rows not yet added to the rollups are stored: fold them first';
  END IF;
END $$;
DROP TABLE miner_unfolded_rounds;
