-- Rhode Island Hold'em against the hidden-board lossless game L, the thesis's setting
-- (queries/lossless_reference.py): per evaluated strategy, whether it is a strategy of L,
-- its exploitability with the nemesis restricted to L's information sets (vs_nemesis, the
-- thesis's sign: its negative), head-to-head against L's equilibrium, and its value against
-- L's value (from that equilibrium; its own exploitability in L bounds the error).
CREATE OR REPLACE VIEW lossless_measures AS
WITH m AS (
    SELECT game, strategy_a AS strategy,
           max(value) FILTER (WHERE measure = 'in_lossless_game') AS in_lossless_game,
           max(value) FILTER (WHERE measure = 'best_response_lossless' AND seat = 1) AS br_seat1,
           max(value) FILTER (WHERE measure = 'best_response_lossless' AND seat = 2) AS br_seat2,
           max(value) FILTER (WHERE measure = 'exploitability_lossless') AS exploitability,
           -- the reference's own value is L's value (it is evaluated only here)
           coalesce(max(value) FILTER (WHERE measure = 'value'),
                    max(value) FILTER (WHERE measure = 'lossless_game_value')) AS value
    FROM evaluation_results
    GROUP BY ALL
), gv AS (
    SELECT game, strategy_a AS equilibrium, value AS game_value
    FROM (SELECT *, row_number() OVER (PARTITION BY game ORDER BY created DESC, id) AS rn
          FROM evaluation_results WHERE measure = 'lossless_game_value')
    WHERE rn = 1
)
SELECT m.game, m.strategy, r.abstraction, m.in_lossless_game = 1 AS in_lossless_game,
       m.br_seat1, m.br_seat2, m.exploitability, -m.exploitability AS vs_nemesis,
       coalesce(q.value, CASE WHEN m.strategy = gv.equilibrium THEN 0.0 END) AS vs_equilibrium,
       gv.equilibrium, m.value, gv.game_value, m.value - gv.game_value AS value_error
FROM m
JOIN solve_runs AS r ON r.name = m.strategy
LEFT JOIN gv ON gv.game = m.game
LEFT JOIN evaluation_results AS q
       ON q.measure = 'vs_lossless_equilibrium' AND q.game = m.game
          AND q.strategy_a = m.strategy AND q.strategy_b = gv.equilibrium
WHERE m.exploitability IS NOT NULL;
