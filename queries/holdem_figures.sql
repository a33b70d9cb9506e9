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

-- holdem_lbr_boards: every board on which LBR has been measured against a stored strategy
-- (`evaluate NAME --lbr-boards N`, `evaluate NAME --curve --lbr-boards N`, the methods
-- comparison, bench/bench_lbr_fulldeck.py; solve.holdem.assess.stored_board_lbr), each board
-- of a seed's sample once (a figure of the first 400 boards and one of the first 2,000 share
-- 400). `board`: the board's place in its seed's sample; per seat, LBR's expected result as the
-- responder over every deal of hole cards on that board, in mbb/g (chips x 500: the big blind
-- is 2 chips). `evaluate` samples seed 8, the comparison and the curve seed 2024.
CREATE OR REPLACE VIEW holdem_lbr_boards AS
WITH f AS (
    SELECT regexp_extract(filename, 'strategies/([^/]+)/evaluations/', 1) AS strategy,
           key.iterations AS iterations, key.weights AS weights, key.tau AS tau,
           key.seed AS seed, coalesce(key."first", 0) AS first_board,
           unnest(value) AS v, generate_subscripts(value, 1) - 1 AS i
    FROM holdem_lbr_figures
)
SELECT DISTINCT ON (strategy, iterations, weights, tau, seed, board)
       strategy, iterations, weights, tau, seed, first_board + i AS board,
       500.0 * v[1] AS responder_small_blind_mbb, 500.0 * v[2] AS responder_big_blind_mbb,
       250.0 * (v[1] + v[2]) AS lbr_mbb
FROM f
ORDER BY strategy, iterations, weights, tau, seed, board;

-- holdem_lbr: the LBR bound of each stored strategy (`spec`: NAME, NAME@ITERATIONS for a kept
-- checkpoint, ~TAU when thresholded) over every board measured (holdem_lbr_boards, all seeds
-- pooled: each seed's boards are an independent uniform sample), as `evaluate` states it:
-- the mean over boards of the two seats' mean, its 95% half-width (1.96 standard errors over
-- boards) and each seat's mean. `current`: of the strategy stored under that name now.
CREATE OR REPLACE VIEW holdem_lbr AS
WITH g AS (
    SELECT strategy, iterations, weights, tau,
           count(*) AS boards, array_to_string(list_sort(list(DISTINCT seed)), ',') AS seeds,
           avg(lbr_mbb) AS lbr_mbb,
           1.959963984540054 * stddev_samp(lbr_mbb) / sqrt(count(*)) AS lbr_half_width_mbb,
           avg(responder_small_blind_mbb) AS lbr_responder_small_blind_mbb,
           avg(responder_big_blind_mbb) AS lbr_responder_big_blind_mbb
    FROM holdem_lbr_boards
    GROUP BY strategy, iterations, weights, tau
)
SELECT g.strategy,
       g.strategy || CASE WHEN g.weights LIKE 'average.npy:%' THEN ''
                          ELSE '@' || g.iterations END
                  || coalesce('~' || g.tau, '') AS spec,
       g.iterations, g.tau, g.boards, g.seeds, g.lbr_mbb, g.lbr_half_width_mbb,
       g.lbr_responder_small_blind_mbb, g.lbr_responder_big_blind_mbb,
       coalesce(g.weights LIKE 'average.npy:%' AND g.tau IS NULL
                AND g.iterations = r.iterations, false) AS current,
       g.weights
FROM g
LEFT JOIN solve_runs AS r ON r.name = g.strategy;

-- holdem_exact_best_response: `evaluate NAME --best-response exact`, every deal of the real
-- game, no sampling: each seat's best response against the strategy, the exploitability (their
-- mean) and the game value the strategy implies (small blind, against itself). `current`: the
-- figure is of the strategy stored under that name now (not of an earlier or shorter solve of
-- the name); `full_deck`: the 52-card game (tests use reduced decks). Beside it on the full
-- deck, the LBR lower bound of the same strategy (same iterations, weights file and threshold):
-- over every board stored for it (holdem_lbr, `lbr_boards` of them, `lbr_source` 'boards') if
-- any, else the one the solve logged at the same iterations (`lbr_source` 'solve log', no
-- seats), and how far below the exact figure it was, overall and per seat (LBR is a lower
-- bound: each difference is >= 0 up to LBR's sampling error, `lbr_half_width_mbb`).
CREATE OR REPLACE VIEW holdem_exact_best_response AS
WITH x AS (
    SELECT regexp_extract(filename, 'strategies/([^/]+)/evaluations/', 1) AS strategy,
           key.spec AS spec, key.strategy.iterations AS iterations,
           key.strategy.weights AS weights,
           nullif(regexp_extract(key.spec, '~(.+)$', 1), '') AS tau,
           len(key.deck) = 52 AS full_deck, value
    FROM holdem_exact_figures
), y AS (
    SELECT x.*, l.boards AS lbr_boards, l.lbr_mbb AS boards_lbr_mbb, l.lbr_half_width_mbb,
           l.lbr_responder_small_blind_mbb, l.lbr_responder_big_blind_mbb
    FROM x
    LEFT JOIN holdem_lbr AS l
           ON x.full_deck AND l.strategy = x.strategy AND l.iterations = x.iterations
              AND l.weights = x.weights AND l.tau IS NOT DISTINCT FROM x.tau
)
SELECT y.strategy, y.spec, coalesce(r.abstraction, c.abstraction) AS abstraction, y.iterations,
       y.value.exploitability_mbb AS exploitability_mbb,
       y.value.br_seat0_mbb AS responder_small_blind_mbb,
       y.value.br_seat1_mbb AS responder_big_blind_mbb,
       y.value.value_mbb AS game_value_mbb,
       y.value.flops AS canonical_flops, y.full_deck,
       coalesce(y.spec = r.name AND y.iterations = r.iterations, false) AS current,
       CASE WHEN y.lbr_boards IS NOT NULL THEN 'boards'
            WHEN y.full_deck AND c.lbr_mbb IS NOT NULL THEN 'solve log' END AS lbr_source,
       y.lbr_boards,
       CASE WHEN y.full_deck THEN coalesce(y.boards_lbr_mbb, c.lbr_mbb) END AS lbr_mbb,
       CASE WHEN y.full_deck THEN coalesce(y.lbr_half_width_mbb, c.lbr_half_width_mbb) END
           AS lbr_half_width_mbb,
       CASE WHEN y.full_deck
            THEN y.value.exploitability_mbb - coalesce(y.boards_lbr_mbb, c.lbr_mbb) END
           AS exact_minus_lbr_mbb,
       y.value.br_seat0_mbb - y.lbr_responder_small_blind_mbb
           AS exact_minus_lbr_small_blind_mbb,
       y.value.br_seat1_mbb - y.lbr_responder_big_blind_mbb AS exact_minus_lbr_big_blind_mbb
FROM y
LEFT JOIN solve_runs AS r ON r.name = y.strategy
LEFT JOIN holdem_checkpoints AS c
       ON c.strategy = y.strategy AND c.iterations = y.iterations AND y.spec NOT LIKE '%~%';

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
