-- Up Migration
-- Dashboard sign-out: a subscriber's browser sessions carry the epoch they were signed in
-- at; sign-out raises it, and the gateways refuse every session below it. Kept here, in
-- PostgreSQL, so a sign-out outlives any cache (a Redis restart or outage changes nothing).
ALTER TABLE subscribers ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE subscribers DROP COLUMN session_epoch;
