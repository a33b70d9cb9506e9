-- Texas Hold'em strategies' figures, read from the files the solver and `evaluate` keep beside
-- each strategy (docs/holdem.md; the JSON sources holdem_run_logs and holdem_exact_figures are
-- made by queries/views.py). mbb/g = thousandths of a big blind per game. Seats are named:
-- the small blind acts first preflop.
--
-- holdem_checkpoints: every checkpoint a solve logged (strategies/NAME/run.json): solve time,
-- the LBR lower bound on exploitability and its 95% half-width, per seat, the baselines.
CREATE OR REPLACE VIEW holdem_checkpoints AS
SELECT regexp_extract(filename, 'strategies/([^/]+)/run\.json$', 1) AS strategy,
       abstraction, sampler, regret, averaging,
       c.iterations, c.solve_seconds, c.clock,
       c.lbr_mbb, c.lbr_hw AS lbr_half_width_mbb,
       -- lbr_seat0 is the local best responder in the small blind (the strategy in the big blind)
       c.lbr_seat0_mbb AS lbr_responder_small_blind_mbb,
       c.lbr_seat1_mbb AS lbr_responder_big_blind_mbb,
       c.vs_always_call_mbb, c.vs_always_raise_mbb,
       row_number() OVER (PARTITION BY filename ORDER BY c.iterations DESC) = 1 AS last
FROM (SELECT filename, abstraction, sampler, regret, averaging, unnest(log) AS c
      FROM holdem_run_logs);

-- holdem_exact_best_response: `evaluate NAME --best-response exact`, every deal of the real
-- game, no sampling: each seat's best response against the strategy, the exploitability (their
-- mean) and the game value the strategy implies (small blind, against itself). `current`: the
-- figure is of the strategy stored under that name now (not of an earlier or shorter solve of
-- the name); `full_deck`: the 52-card game (tests use reduced decks); `lbr_mbb`: the LBR bound
-- the solve logged at the same iterations, if any, and `exact_minus_lbr_mbb` how far it was
-- below the exact figure.
CREATE OR REPLACE VIEW holdem_exact_best_response AS
WITH x AS (
    SELECT regexp_extract(filename, 'strategies/([^/]+)/evaluations/', 1) AS strategy,
           key.spec AS spec, key.strategy.iterations AS iterations,
           len(key.deck) = 52 AS full_deck, value
    FROM holdem_exact_figures
)
SELECT x.strategy, x.spec, coalesce(r.abstraction, c.abstraction) AS abstraction, x.iterations,
       x.value.exploitability_mbb AS exploitability_mbb,
       x.value.br_seat0_mbb AS responder_small_blind_mbb,
       x.value.br_seat1_mbb AS responder_big_blind_mbb,
       x.value.value_mbb AS game_value_mbb,
       x.value.flops AS canonical_flops, x.full_deck,
       coalesce(x.spec = r.name AND x.iterations = r.iterations, false) AS current,
       CASE WHEN x.full_deck THEN c.lbr_mbb END AS lbr_mbb,
       CASE WHEN x.full_deck THEN x.value.exploitability_mbb - c.lbr_mbb END
           AS exact_minus_lbr_mbb
FROM x
LEFT JOIN solve_runs AS r ON r.name = x.strategy
LEFT JOIN holdem_checkpoints AS c
       ON c.strategy = x.strategy AND c.iterations = x.iterations AND x.spec NOT LIKE '%~%';

-- holdem_exact_progress: every exact best response begun (`evaluate NAME --best-response
-- exact`, one flop folder per strategy and deck), finished or still to resume: the canonical
-- flops done so far out of the deck's (1,755 on the full deck; NULL on the tests' reduced
-- decks): those summed into the folder's prefix (prefix.json, which may have come from
-- another machine with --progress-file) and the flop files after it; whether its figure is
-- stored (`finished`, then in holdem_exact_best_response) and `current` as there. The flop
-- files are counted when the view is queried.
CREATE OR REPLACE VIEW holdem_exact_progress AS
WITH k AS (
    SELECT regexp_extract(filename, 'strategies/([^/]+)/evaluations/', 1) AS strategy,
           regexp_extract(filename, '(strategies/[^/]+/evaluations/exact-br-[^/]+)/', 1)
               AS folder,
           spec, strategy AS identity, deck, len(deck) = 52 AS full_deck
    FROM holdem_exact_keys
), p AS (
    SELECT regexp_extract(filename, '(strategies/[^/]+/evaluations/exact-br-[^/]+)/', 1)
               AS folder,
           flops
    FROM holdem_exact_prefixes
), f AS (
    SELECT regexp_extract(g.file, '(strategies/[^/]+/evaluations/exact-br-[^/]+)/', 1)
               AS folder,
           CAST(regexp_extract(g.file, 'flop([0-9]+)\.npy$', 1) AS BIGINT) AS flop
    FROM glob('strategies/*/evaluations/exact-br-*/flop*.npy') AS g
), n AS (  -- the flops summed into the prefix, and those stored after it
    SELECT k.folder, coalesce(p.flops, 0)
               + count(f.flop) FILTER (WHERE f.flop >= coalesce(p.flops, 0)) AS flops
    FROM k
    LEFT JOIN p ON p.folder = k.folder
    LEFT JOIN f ON f.folder = k.folder
    GROUP BY k.folder, p.flops
)
SELECT k.strategy, k.spec, k.identity.iterations AS iterations,
       coalesce(n.flops, 0) AS flops_stored,
       CASE WHEN k.full_deck THEN 1755 END AS flops_total,
       CASE WHEN k.full_deck THEN round(100.0 * coalesce(n.flops, 0) / 1755, 1) END
           AS percent_done,
       EXISTS (SELECT 1 FROM holdem_exact_figures AS x
               WHERE x.key.spec = k.spec AND x.key.strategy = k.identity
                 AND x.key.deck = k.deck) AS finished,
       coalesce(k.spec = r.name AND k.identity.iterations = r.iterations, false) AS current,
       k.full_deck, k.folder
FROM k
LEFT JOIN n ON n.folder = k.folder
LEFT JOIN solve_runs AS r ON r.name = k.strategy;
