-- One row per (abstraction, evaluated strategy of it): the abstraction (method, buckets
-- asked and built, last-round buckets = granularity, the last round's allocation IP
-- objective, build seconds) joined with its strategy's results: exploitability (abstract and
-- real), against the equilibrium, value error, mean head-to-head against all evaluated
-- strategies and against the other abstractions with the same buckets and the same board
-- visibility (board = 'public': played with the public cards visible, as lossless always is;
-- 'hidden': the bucket is all a player knows of the cards).
CREATE OR REPLACE VIEW abstraction_summary AS
WITH boards AS (
    SELECT name,
           CASE WHEN method = 'lossless'
                  OR coalesce(TRY_CAST(json_extract(params, '$.public_board') AS BOOLEAN), false)
                THEN 'public' ELSE 'hidden' END AS board
    FROM abstractions
), same_granularity AS (
    SELECT h.strategy, avg(h.value) AS h2h_same_granularity, count(*) AS rivals
    FROM head_to_head AS h
    JOIN solve_runs AS r1 ON r1.name = h.strategy
    JOIN solve_runs AS r2 ON r2.name = h.opponent
    JOIN abstractions AS a1 ON a1.name = r1.abstraction
    JOIN abstractions AS a2 ON a2.name = r2.abstraction
    JOIN boards AS b1 ON b1.name = a1.name
    JOIN boards AS b2 ON b2.name = a2.name
    WHERE a1.buckets = a2.buckets AND b1.board = b2.board AND a1.name <> a2.name
    GROUP BY h.strategy
)
SELECT a.name AS abstraction, a.game, a.method, a.buckets, a.built, b.board,
       CAST(string_split(a.buckets, ',')[-1] AS BIGINT) AS granularity,
       TRY_CAST(json_extract(a.errors, '$[' || (len(string_split(a.built, ',')) - 1)
                                       || '].ip_objective') AS DOUBLE) AS ip_objective,
       TRY_CAST(json_extract(a.timings, '$.total') AS DOUBLE) AS build_seconds,
       x.strategy, x.abstract_exploitability, x.exploitability,
       q.value AS vs_equilibrium, v.value_estimate, v.error AS value_error,
       m.mean_value AS h2h_mean, g.h2h_same_granularity
FROM abstractions AS a
JOIN boards AS b ON b.name = a.name
JOIN exploitability AS x ON x.abstraction = a.name AND x.game = a.game
LEFT JOIN vs_equilibrium AS q ON q.strategy = x.strategy
LEFT JOIN value_error AS v ON v.strategy = x.strategy
LEFT JOIN head_to_head_matrix AS m ON m.strategy = x.strategy
LEFT JOIN same_granularity AS g ON g.strategy = x.strategy;
