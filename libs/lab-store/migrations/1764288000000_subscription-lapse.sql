-- Up Migration
-- Issue 12: strategies of an expired subscription stop being forward-tested until the
-- owner renews (then a new session starts).
ALTER TABLE strategies DROP CONSTRAINT strategies_stopped_reason_check;
ALTER TABLE strategies ADD CONSTRAINT strategies_stopped_reason_check
  CHECK (stopped_reason IN ('stop_loss_streak', 'take_profit', 'session_stop_loss', 'subscription_expired'));

-- Down Migration
UPDATE strategies SET stopped_reason = NULL WHERE stopped_reason = 'subscription_expired';
ALTER TABLE strategies DROP CONSTRAINT strategies_stopped_reason_check;
ALTER TABLE strategies ADD CONSTRAINT strategies_stopped_reason_check
  CHECK (stopped_reason IN ('stop_loss_streak', 'take_profit', 'session_stop_loss'));
