-- Up Migration
-- Each stored round's NDJSON line, byte for byte what /api/v1/dump writes for it (without
-- the newline), so a dump of stored history streams these lines as they are instead of
-- encoding every round again. Written by the indexer's leader after rounds are stored
-- (see materializeLines), not by the inserts: an import stays as fast as the rounds'
-- COPY alone, and a dump encodes whatever has no line yet.
-- A line holds digits, base58, hex, an ISO date and fixed keys only: no character that
-- text COPY escapes, so `COPY (SELECT line ...) TO STDOUT` is the NDJSON itself.
CREATE TABLE round_lines (
  id   bigint PRIMARY KEY,
  line text NOT NULL
);

-- Every stored round with id < lined_below has its line. Inserts lower it to their lowest
-- new id and the line writer raises it, both under the totals row's lock, so a reader
-- that sees both tables in one snapshot can trust it.
ALTER TABLE totals ADD COLUMN lined_below bigint NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE totals DROP COLUMN lined_below;
DROP TABLE round_lines;
