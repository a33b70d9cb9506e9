-- The bucket of a concrete hand in any round of any stored abstraction (Texas Hold'em and
-- Rhode Island Hold'em), from the abstraction tables (abstractions.sql) and the catalog:
--
--   SELECT * FROM bucket_of('holdem-pa', hole := 'AsKd', board := '7c8h9s2d5s');
--
-- Texas Hold'em, as the solver looks buckets up (solve/holdem/buckets.py): preflop, flop and
-- turn by the canonical index of the hand in the groupings [2], [2,3], [2,3,1]; the river by
-- the hand's exact river equity key 2*wins + ties (equity_river at its [2,5] index) within its
-- turn bucket, through the river equity ranges of thresholds.parquet (a key between two
-- ranges takes the range below, a key below all of them the lowest); an abstraction that
-- stores river buckets per [2,5] hand (round3.parquet) is read directly.
-- Rhode Island Hold'em: the canonical hand of each round (rhode_island_hands, cards.sql).

-- Per stored Rhode Island Hold'em abstraction, round and canonical hand: its bucket and the
-- bucket its solver plays (`game_bucket`): for an abstraction played with the public cards
-- visible (lossless, or built with --public-board) the bucket refined by the public board,
-- numbered as abstraction/public_board.py numbers them (by refined parent, canonical board,
-- bucket); the bucket itself otherwise.
CREATE OR REPLACE VIEW rhode_island_game_buckets AS
WITH ri AS (
    SELECT name AS abstraction,
           method = 'lossless' OR coalesce(TRY_CAST(json_extract(params, '$.public_board')
                                                    AS BOOLEAN), false) AS public_board
    FROM abstractions WHERE game = 'rhode-island'
), hb AS (
    SELECT ab.abstraction, ab.round, ab.hand, ab.bucket, h.key, h.parent_key, h.board_key,
           ri.public_board
    FROM abstraction_buckets AS ab
    JOIN ri ON ri.abstraction = ab.abstraction
    JOIN rhode_island_hands AS h ON h.round = ab.round AND h.hand = ab.hand
), r0 AS (
    SELECT *, dense_rank() OVER (PARTITION BY abstraction ORDER BY bucket) - 1 AS refined
    FROM hb WHERE round = 0
), r1 AS (
    SELECT hb.*, dense_rank() OVER (PARTITION BY hb.abstraction
                                   ORDER BY p.refined, hb.board_key, hb.bucket) - 1 AS refined
    FROM hb JOIN r0 AS p ON p.abstraction = hb.abstraction AND p.key = hb.parent_key
    WHERE hb.round = 1
), r2 AS (
    SELECT hb.*, dense_rank() OVER (PARTITION BY hb.abstraction
                                   ORDER BY p.refined, hb.board_key, hb.bucket) - 1 AS refined
    FROM hb JOIN r1 AS p ON p.abstraction = hb.abstraction AND p.key = hb.parent_key
    WHERE hb.round = 2
)
SELECT abstraction, round, hand, bucket,
       (CASE WHEN public_board THEN refined ELSE bucket END)::BIGINT AS game_bucket
FROM (FROM r0 UNION ALL BY NAME FROM r1 UNION ALL BY NAME FROM r2);

-- The river equity key 2*wins + ties of every [2,5] hand: equity_river's, made by
-- cards_river.sql once the ETL has built it; until then (a data directory of Rhode Island
-- Hold'em only) this empty stand-in, so that the macros below exist for every game.
CREATE VIEW IF NOT EXISTS holdem_river_keys AS
SELECT NULL::BIGINT AS idx, NULL::BIGINT AS key WHERE false;

-- The game of stored abstraction `abs_name` (a one-line error if there is none).
CREATE OR REPLACE MACRO _abstraction_game(abs_name) AS (
    SELECT coalesce(any_value(game), error('no abstraction ''' || abs_name
                                          || ''' (see `cli.py abstractions`)'))
    FROM abstractions WHERE name = abs_name
);

-- A one-line error for cards that cannot be a hand of `game` (codes `hc`, `bc`); else NULL.
CREATE OR REPLACE MACRO _bad_deal(game, hc, bc) AS
    CASE WHEN len(list_distinct(hc || bc)) < len(hc || bc)
             THEN error('card '
                        || card_name(list_filter(bc, lambda bd_c: list_contains(hc, bd_c))[1])
                        || ' appears twice')
         WHEN game = 'holdem' AND len(hc) <> 2
             THEN error('hole: holdem deals 2 private cards, got ' || len(hc))
         WHEN game = 'holdem' AND len(bc) NOT IN (0, 3, 4, 5)
             THEN error('board: holdem has 0, 3, 4 or 5 public cards, got ' || len(bc))
         WHEN game = 'rhode-island' AND len(hc) <> 1
             THEN error('hole: rhode-island deals 1 private card, got ' || len(hc))
         WHEN game = 'rhode-island' AND len(bc) > 2
             THEN error('board: rhode-island has 0, 1 or 2 public cards, got ' || len(bc))
         WHEN game NOT IN ('holdem', 'rhode-island')
             THEN error('no card abstraction look-up for game ' || game
                        || ' (holdem and rhode-island have them)')
    END;

-- One row per round dealt so far (0-based) of the hand `hole` + `board` (card names) in
-- abstraction `abs_name`: the canonical hand its table is keyed by (Texas Hold'em: the
-- [2], [2,3], [2,3,1] index, the [2,5] index on the river), the bucket, and the bucket its
-- solver plays (`game_bucket`; differs from `bucket` for a Rhode Island abstraction played
-- with the public cards visible). Cards are read with the Hold'em suit letters (c, d, h, s):
-- Rhode Island Hold'em orders the same four letters otherwise, and buckets do not depend on
-- how suits are named.
CREATE OR REPLACE MACRO _deal_buckets(abs_name, hole, board) AS TABLE
WITH dealt AS (
    SELECT _abstraction_game(abs_name) AS game, parse_cards(hole, 'hole') AS hc,
           parse_cards(board, 'board') AS bc
), checked AS (
    SELECT game, hc, bc, _bad_deal(game, hc, bc) AS bad FROM dealt
), rounds AS (
    SELECT game, hc, bc,
           unnest(range(0, CASE game WHEN 'holdem' THEN [0, 0, 0, 1, 2, 3][len(bc) + 1]
                                     ELSE len(bc) END + 1)) AS round
    FROM checked WHERE bad IS NULL
), holdem AS (
    SELECT round, hand_index([[2], [2, 3], [2, 3, 1], [2, 5]][round + 1],
                             (hc || bc)[1:[2, 5, 6, 7][round + 1]]) AS hand
    FROM rounds WHERE game = 'holdem'
), holdem_stored AS (
    SELECT h.round, h.hand, ab.bucket
    FROM holdem AS h
    LEFT JOIN abstraction_buckets AS ab
           ON ab.abstraction = abs_name AND ab.round = h.round AND ab.hand = h.hand
), holdem_river AS (  -- the river through its equity key within the turn bucket
    SELECT r.round, r.hand,
           coalesce(r.bucket, (
               SELECT coalesce(arg_max(t.bucket, t.lo) FILTER (WHERE t.lo <= k.key),
                               arg_min(t.bucket, t.lo))
               FROM (SELECT bucket, parent_bucket, round(min_equity * 1980)::BIGINT AS lo
                     FROM abstraction_thresholds
                     WHERE abstraction = abs_name AND "round" = 3) AS t
               WHERE t.parent_bucket = tb.bucket OR t.parent_bucket < 0)) AS bucket
    FROM holdem_stored AS r
    JOIN holdem_stored AS tb ON tb.round = 2
    LEFT JOIN holdem_river_keys AS k ON k.idx = r.hand
    WHERE r.round = 3
), rhode_island AS (
    SELECT r.round, rh.hand, g.bucket, g.game_bucket
    FROM rounds AS r
    LEFT JOIN rhode_island_hands AS rh
           ON rh.round = r.round AND rh.key = ri_hand_key((r.hc || r.bc)[1:r.round + 1])
    LEFT JOIN rhode_island_game_buckets AS g
           ON g.abstraction = abs_name AND g.round = rh.round AND g.hand = rh.hand
    WHERE r.game = 'rhode-island'
)
SELECT round, hand, bucket::BIGINT AS bucket, bucket::BIGINT AS game_bucket
FROM holdem_stored WHERE round < 3
UNION ALL
SELECT round, hand, bucket::BIGINT, bucket::BIGINT FROM holdem_river
UNION ALL
SELECT round, hand, bucket, game_bucket FROM rhode_island;

-- The bucket of the hand (hole cards `hole`, public cards `board` in the order dealt) at the
-- round its board makes, in abstraction `abs_name`: round (from 1, as the strategies view and
-- the look-ups number it; abstraction_buckets keeps the files' 0-based round), the canonical
-- hand its table is keyed by (the [2,5] index on the
-- Hold'em river), its bucket, `buckets`, the hand's buckets of every round so far, and
-- `game_bucket`, the bucket the abstraction's solver plays (a Rhode Island abstraction played
-- with the public cards visible refines its buckets by the board). Bad cards, a board of the
-- wrong size or an unknown abstraction are one-line errors.
CREATE OR REPLACE MACRO bucket_of(abs_name, hole := '', board := '') AS TABLE
WITH rows AS (FROM _deal_buckets(abs_name, hole, board))
SELECT abs_name AS abstraction, _abstraction_game(abs_name) AS game,
       CAST(round + 1 AS INTEGER) AS round, hand, bucket,
       (SELECT list(bucket ORDER BY round) FROM rows) AS buckets, game_bucket
FROM rows
WHERE round = (SELECT max(round) FROM rows);
