-- Up Migration
-- The payout arithmetic the stored forward figures were priced with. Rows settled before
-- this migration used `p1` (SPEC 7.7's former floating-point parimutuel payout, a lamport
-- or two off the program); lab-forward re-prices them to the program's integer
-- arithmetic on start and records the revision it wrote (`p2`).
ALTER TABLE progress ADD COLUMN payout_revision text NOT NULL DEFAULT 'p1';

-- Down Migration
ALTER TABLE progress DROP COLUMN payout_revision;
