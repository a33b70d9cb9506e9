-- One row per (abstraction, evaluated strategy of it): the abstraction (method, buckets
-- asked and built, last-round buckets = granularity, the last round's allocation IP
-- objective, build seconds) joined with its strategy's results: exploitability (abstract and
-- real), against the equilibrium, value error, mean head-to-head against all evaluated
-- strategies and against the other abstractions with the same buckets.
CREATE OR REPLACE VIEW abstraction_summary AS
WITH same_granularity AS (
    SELECT h.strategy, avg(h.value) AS h2h_same_granularity, count(*) AS rivals
    FROM head_to_head AS h
    JOIN solve_runs AS r1 ON r1.name = h.strategy
    JOIN solve_runs AS r2 ON r2.name = h.opponent
    JOIN abstractions AS a1 ON a1.name = r1.abstraction
    JOIN abstractions AS a2 ON a2.name = r2.abstraction
    WHERE a1.buckets = a2.buckets AND a1.name <> a2.name
    GROUP BY h.strategy
)
SELECT a.name AS abstraction, a.game, a.method, a.buckets, a.built,
       CAST(string_split(a.buckets, ',')[-1] AS BIGINT) AS granularity,
       TRY_CAST(json_extract(a.errors, '$[' || (len(string_split(a.built, ',')) - 1)
                                       || '].ip_objective') AS DOUBLE) AS ip_objective,
       TRY_CAST(json_extract(a.timings, '$.total') AS DOUBLE) AS build_seconds,
       x.strategy, x.abstract_exploitability, x.exploitability,
       q.value AS vs_equilibrium, v.value_estimate, v.error AS value_error,
       m.mean_value AS h2h_mean, g.h2h_same_granularity
FROM abstractions AS a
JOIN exploitability AS x ON x.abstraction = a.name AND x.game = a.game
LEFT JOIN vs_equilibrium AS q ON q.strategy = x.strategy
LEFT JOIN value_error AS v ON v.strategy = x.strategy
LEFT JOIN head_to_head_matrix AS m ON m.strategy = x.strategy
LEFT JOIN same_granularity AS g ON g.strategy = x.strategy;
