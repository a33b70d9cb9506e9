-- Head-to-head in the real game, chips per game for `strategy` against `opponent`, both
-- seat assignments averaged (exact, or sampled with a 95% interval). Stored once per pair;
-- here in both orientations, so it is the full matrix in long form. As a grid:
--   PIVOT (SELECT strategy, opponent, value FROM head_to_head) ON opponent USING first(value)
CREATE OR REPLACE VIEW head_to_head AS
SELECT game, strategy_a AS strategy, strategy_b AS opponent, value, ci_low, ci_high, exact
FROM evaluation_results WHERE measure = 'head_to_head'
UNION ALL
SELECT game, strategy_b, strategy_a, -value, -ci_high, -ci_low, exact
FROM evaluation_results WHERE measure = 'head_to_head';

-- The matrix one row per strategy: its row as a map opponent -> value, and its mean.
CREATE OR REPLACE VIEW head_to_head_matrix AS
SELECT game, strategy, count(*) AS opponents, avg(value) AS mean_value,
       map_from_entries(list({'k': opponent, 'v': value} ORDER BY opponent)) AS row
FROM head_to_head
GROUP BY game, strategy;
