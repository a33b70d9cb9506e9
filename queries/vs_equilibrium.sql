-- Head-to-head of each strategy against an (epsilon-)equilibrium of the real game, chips per
-- game for the strategy (at most 0 up to the equilibrium's own exploitability, also shown).
CREATE OR REPLACE VIEW vs_equilibrium AS
SELECT e.game, e.strategy_a AS strategy, r.abstraction, e.strategy_b AS equilibrium, e.value,
       e.ci_low, e.ci_high, e.exact, x.value AS equilibrium_exploitability
FROM evaluation_results AS e
JOIN solve_runs AS r ON r.name = e.strategy_a
LEFT JOIN evaluation_results AS x
       ON x.measure = 'exploitability' AND x.game = e.game AND x.strategy_a = e.strategy_b
WHERE e.measure = 'vs_equilibrium';
