-- Value of each strategy's own profile for player 1 (for an abstract equilibrium: the
-- abstraction's estimate of the game value) and its error against the real game's value.
CREATE OR REPLACE VIEW value_error AS
SELECT v.game, v.strategy_a AS strategy, r.abstraction, v.value AS value_estimate,
       gv.game_value, gv.equilibrium, v.value - gv.game_value AS error,
       abs(v.value - gv.game_value) AS abs_error
FROM evaluation_results AS v
JOIN solve_runs AS r ON r.name = v.strategy_a
LEFT JOIN game_values AS gv ON gv.game = v.game
WHERE v.measure = 'value';
