-- The river equity key 2*wins + ties of every [2,5] hand (idx = canonical [2,5] index), the
-- key the Texas Hold'em river buckets are found by (cards_buckets.sql). Needs equity_river:
-- without it cards_buckets.sql's empty stand-in stays.
CREATE OR REPLACE VIEW holdem_river_keys AS
SELECT idx, 2 * wins + ties AS key FROM equity_river;
