-- Rhode Island abstractions in the three settings of `experiment rhode-island-granularity
-- --reference all` (queries/experiment.py), one row per (setting, evaluated strategy):
--   hidden-real      played with the board hidden, measured against the real game;
--   hidden-lossless  the same strategies against the hidden-board lossless game, the thesis's
--                    setting (lossless_measures.sql, queries/lossless_reference.py);
--   visible-real     the builds played with the public board visible, against the real game.
-- The four measures with the thesis's signs: vs_nemesis (minus the exploitability), head-to-head
-- against the setting's equilibrium, the profile's value and its error against the value of
-- the setting's equilibrium (its own, not the newest game value of the game), mean
-- head-to-head against the other methods of the same buckets and board (in the lossless
-- setting the same numbers as in the real game: head-to-head has no reference).
CREATE OR REPLACE VIEW abstraction_settings AS
WITH own_value AS (
    SELECT strategy_a AS strategy, value FROM evaluation_results WHERE measure = 'value'
), summary AS (
    SELECT s.*, CASE WHEN json_extract_string(a.params, '$.recall') = 'imperfect'
                     THEN s.method || '-ir' ELSE s.method END AS method_token
    FROM abstraction_summary AS s
    JOIN abstractions AS a ON a.name = s.abstraction
)
SELECT s.game, CASE WHEN s.board = 'public' THEN 'visible-real' ELSE 'hidden-real' END AS setting,
       s.method_token AS method, s.buckets, s.granularity, s.abstraction, s.strategy,
       s.abstract_exploitability, -s.exploitability AS vs_nemesis, q.value AS vs_equilibrium,
       q.equilibrium, s.value_estimate AS value, s.value_estimate - e.value AS value_error,
       s.h2h_same_granularity, NULL::BOOLEAN AS in_lossless_game
FROM summary AS s
LEFT JOIN vs_equilibrium AS q ON q.strategy = s.strategy
LEFT JOIN own_value AS e ON e.strategy = q.equilibrium
UNION ALL
SELECT s.game, 'hidden-lossless', s.method_token, s.buckets, s.granularity, s.abstraction,
       s.strategy, s.abstract_exploitability, l.vs_nemesis, l.vs_equilibrium, l.equilibrium,
       l.value, l.value_error, s.h2h_same_granularity, l.in_lossless_game
FROM summary AS s
JOIN lossless_measures AS l ON l.strategy = s.strategy
WHERE s.board = 'hidden';
