-- Strategy tables of solve runs (schema/strategy.py; written by solve/table.py and
-- solve/holdem/table.py): one row per (strategy, information set, action). Paths are relative
-- to the data directory. `strategy_rows` (made by queries/views.py) is every readable stored
-- table as written: a damaged one is left out with a warning instead of failing every query.
-- Numbered as every output of the project (schema/strategy.py): `round` and `player` from 1
-- (the Parquet files store them from 0), `seat` the acting seat's name ("small blind" / "big
-- blind" in holdem, "player 1" / "player 2" elsewhere). `training` (issue 47): 'never trained'
-- where the information set's average-strategy `weight` is 0 (the probabilities are the
-- uniform default, no advice), 'barely trained' below 0.01 (schema.strategy.BARELY_TRAINED) of
-- its round's mean weight (`round_mean_weight`), 'trained', or 'unknown' for tables written
-- before weights were stored (their `weight` is NULL). The empty SELECT names the newer
-- columns so that the view also works over old tables only.
CREATE OR REPLACE VIEW strategies AS
WITH stored AS (
    SELECT * FROM strategy_rows
    UNION ALL BY NAME
    SELECT NULL::BOOLEAN AS reached, NULL::DOUBLE AS weight, NULL::DOUBLE AS round_mean_weight
    WHERE false
)
SELECT * REPLACE (CAST(round + 1 AS TINYINT) AS round, CAST(player + 1 AS TINYINT) AS player),
       CASE WHEN game = 'holdem' THEN CASE player WHEN 0 THEN 'small blind' ELSE 'big blind' END
            ELSE 'player ' || CAST(player + 1 AS VARCHAR) END AS seat,
       CASE WHEN reached = false OR weight <= 0 THEN 'never trained'
            WHEN weight IS NULL THEN 'unknown'
            WHEN weight < 0.01 * coalesce(round_mean_weight, 0) THEN 'barely trained'
            ELSE 'trained' END AS training
FROM stored;
