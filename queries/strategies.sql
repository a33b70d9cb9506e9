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
-- NULL). The empty SELECT names the newer columns so that the view also works over old tables
-- only. The uniform test is a window over the information set's rows, holdem rows only (the
-- other games' solvers can answer with an exactly uniform strategy); a query filtering on
-- strategy, round, history and cards has the filters pushed below it and reads only those rows
-- (strategy_at on pa-5min: 0.1 s, as before), but a query over a whole round of a full-size
-- holdem strategy pays for the window: counting pa-5min's turn rows by training took 15 s
-- before it and did not finish in 12 minutes with it (BENCHMARKS.md, "one look-up from the
-- command line"); `evaluate` counts them in one pass over the weights instead.
CREATE OR REPLACE VIEW strategies AS
WITH stored AS (
    SELECT * FROM strategy_rows
    UNION ALL BY NAME
    SELECT NULL::BOOLEAN AS reached, NULL::DOUBLE AS weight, NULL::DOUBLE AS round_mean_weight
    WHERE false
), marked AS (
    SELECT *, NULL::BOOLEAN AS uniform_start FROM stored WHERE game <> 'holdem'
    UNION ALL
    SELECT *, h.weight > 0 AND max(h.probability) OVER infoset = min(h.probability) OVER infoset
        AS uniform_start
    FROM stored AS h WHERE h.game = 'holdem'
    WINDOW infoset AS (PARTITION BY h.strategy, h.round, h.player, h.history, h.cards)
)
SELECT * EXCLUDE (uniform_start)
         REPLACE (CAST(round + 1 AS TINYINT) AS round, CAST(player + 1 AS TINYINT) AS player),
       CASE WHEN game = 'holdem' THEN CASE player WHEN 0 THEN 'small blind' ELSE 'big blind' END
            ELSE 'player ' || CAST(player + 1 AS VARCHAR) END AS seat,
       CASE WHEN reached = false OR weight <= 0 OR uniform_start THEN 'never trained'
            WHEN weight IS NULL THEN 'unknown'
            WHEN weight < 0.01 * coalesce(round_mean_weight, 0) THEN 'barely trained'
            ELSE 'trained' END AS training
FROM marked;
