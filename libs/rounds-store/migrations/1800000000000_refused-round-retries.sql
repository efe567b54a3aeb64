-- Up Migration
-- A round the indexer could not rebuild from its transactions is no longer given up on:
-- it is tried again, with back-off, from minutes after its first refusal up to a day
-- between tries (the rows of unrecoverable_rounds are now "refused, until a retry stores
-- it"). A refusal can be anyone's doing (a transaction that does not decode used to take
-- every round it listed with it) or a node's (a transaction it lacked), and neither is
-- final. attempts: how many times the round was refused; next_attempt_at: when a fill
-- takes it again.
ALTER TABLE unrecoverable_rounds ADD COLUMN attempts integer NOT NULL DEFAULT 1 CHECK (attempts >= 1);
-- Rounds refused before this migration are due at once: most were refused by what is
-- now read past (an undecodable transaction, a deploy of another round).
ALTER TABLE unrecoverable_rounds ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX unrecoverable_rounds_next_attempt_at ON unrecoverable_rounds (next_attempt_at);

-- Down Migration
DROP INDEX unrecoverable_rounds_next_attempt_at;
ALTER TABLE unrecoverable_rounds DROP COLUMN next_attempt_at;
ALTER TABLE unrecoverable_rounds DROP COLUMN attempts;
