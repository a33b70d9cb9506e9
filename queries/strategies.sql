-- Strategy tables of solve runs (schema/strategy.py; written by solve/table.py and
-- solve/holdem/table.py): one row per (strategy, information set, action). Paths are relative
-- to the data directory. `strategy_rows` (made by queries/views.py) is every readable stored
-- table as written: a damaged one is left out with a warning instead of failing every query.
-- Numbered as every output of the project (schema/strategy.py): `round` and `player` from 1
-- (the Parquet files store them from 0), `seat` the acting seat's name ("small blind" / "big
-- blind" in holdem, "player 1" / "player 2" elsewhere). `training` (issue 47): 'never trained'
-- where the information set's average-strategy `weight` is 0 (the probabilities are the
-- uniform default, no advice) or, in a holdem table, where its stored average strategy is
-- still exactly the uniform one every information set starts at (all its probabilities equal:
-- at the float32 precision the table stores they are then float32(1/k), the rule of
-- schema.strategy.uniform_default), 'barely trained' below 0.01
-- (schema.strategy.BARELY_TRAINED) of its round's mean weight (`round_mean_weight`),
-- 'trained', or 'unknown' for tables written before weights were stored (their `weight` is
-- NULL). The uniform-start test is a column the Hold'em table writer computes
-- (`uniform_start`, schema.strategy.UNIFORM_START_FIELD: true on every row of an information
-- set whose weight is positive and whose stored probabilities are all float32(1/k)), so the view
-- reads it row by row, with no pass over an information set's other rows: a query over a whole
-- round of a full-size strategy costs what it did before issue 47 (BENCHMARKS.md, "the
-- strategies view's cost"). Only holdem tables have it (the other games' solvers can answer with
-- an exactly uniform strategy); it is NULL for them and for holdem tables written before the
-- column existed, which therefore show only the weight rule here (a still-uniform information
-- set with positive weight reads 'trained' or 'barely trained'; the look-up library, reading
-- the weights, says 'never trained'): `python cli.py strategies --upgrade NAME` adds the column
-- to such a table. The empty SELECT names the newer columns so that the view also works over
-- old tables only.
CREATE OR REPLACE VIEW strategies AS
WITH stored AS (
    SELECT * FROM strategy_rows
    UNION ALL BY NAME
    SELECT NULL::BOOLEAN AS reached, NULL::DOUBLE AS weight, NULL::DOUBLE AS round_mean_weight,
           NULL::BOOLEAN AS uniform_start
    WHERE false
)
SELECT * EXCLUDE (uniform_start)
         REPLACE (CAST(round + 1 AS TINYINT) AS round, CAST(player + 1 AS TINYINT) AS player),
       CASE WHEN game = 'holdem' THEN CASE player WHEN 0 THEN 'small blind' ELSE 'big blind' END
            ELSE 'player ' || CAST(player + 1 AS VARCHAR) END AS seat,
       CASE WHEN reached = false OR weight <= 0 OR uniform_start THEN 'never trained'
            WHEN weight IS NULL THEN 'unknown'
            WHEN weight < 0.01 * coalesce(round_mean_weight, 0) THEN 'barely trained'
            ELSE 'trained' END AS training
FROM stored;
