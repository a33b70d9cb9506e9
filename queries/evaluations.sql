-- Evaluations (schema/evaluation.py; written by queries/evaluations.py, `cli.py compare`).
-- Only rows the catalog holds (table evaluations), only of the current strategy tables (same
-- SHA-256 as in solve_runs), per game, measure, seat and pair of strategies the newest exact
-- row, else the newest (a Texas Hold'em best response computed exactly supersedes LBR's bound).
CREATE OR REPLACE VIEW evaluation_results AS
SELECT * EXCLUDE (rn) FROM (
    SELECT e.*, row_number() OVER (PARTITION BY e.game, e.measure, e.seat, e.strategy_a, e.strategy_b
                                   ORDER BY e.exact DESC, e.created DESC, e.id) AS rn
    FROM read_parquet('evaluations/*.parquet') AS e
    JOIN evaluations AS c ON c.id = e.id
    JOIN solve_runs AS sa ON sa.name = e.strategy_a AND sa.sha256 = e.sha_a
    LEFT JOIN solve_runs AS sb ON sb.name = e.strategy_b
    WHERE e.strategy_b IS NULL OR sb.sha256 = e.sha_b
) WHERE rn = 1;

-- The value of each game for player 1 (the newest measured, from an (epsilon-)equilibrium of
-- the real game; its own exploitability bounds the error).
CREATE OR REPLACE VIEW game_values AS
SELECT game, strategy_a AS equilibrium, value AS game_value, exact, created
FROM (SELECT *, row_number() OVER (PARTITION BY game ORDER BY created DESC, id) AS rn
      FROM evaluation_results WHERE measure = 'game_value')
WHERE rn = 1;
