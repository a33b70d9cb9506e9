-- Real cards in SQL: card names, the colex and canonical (suit-isomorphic) indexes of the
-- equity and bucket tables, and the 169 preflop classes. Pure SQL macros: they run in every
-- connection that opens the database (`cli.py sql`, the API's /sql, the views' own), the
-- read-only sandbox included, with nothing to register.
--
-- Card c in 0..51: rank c // 4 (0 = deuce .. 12 = ace), suit c % 4 (c, d, h, s in Texas
-- Hold'em; Rhode Island Hold'em names its suits s, h, d, c).

-- C(n, k) exactly (0 when k < 0 or k > n); n * ... stays a HUGEINT until the division.
CREATE OR REPLACE MACRO choose(n, k) AS
    CASE WHEN k::BIGINT < 0 OR k::BIGINT > n::BIGINT THEN 0::BIGINT
         ELSE list_reduce(range(1, k::BIGINT + 1),
                          lambda ch_acc, ch_t: ch_acc * (n::BIGINT - k::BIGINT + ch_t) // ch_t,
                          1::HUGEINT)::BIGINT
    END;

-- The code 0..51 of a two-character card name ('As', 'td'), NULL if it is not one.
CREATE OR REPLACE MACRO card_code(name, suits := 'cdhs') AS
    CASE WHEN length(name) = 2 AND strpos('23456789TJQKA', upper(name[1])) > 0
              AND strpos(lower(suits), lower(name[2])) > 0
         THEN 4 * (strpos('23456789TJQKA', upper(name[1])) - 1)
              + strpos(lower(suits), lower(name[2])) - 1
    END;

-- The name of card code c ('As' for 51).
CREATE OR REPLACE MACRO card_name(c, suits := 'cdhs') AS
    '23456789TJQKA'[c // 4 + 1] || suits[c % 4 + 1];

-- The names of a list of card codes run together ('AsKd').
CREATE OR REPLACE MACRO card_names(codes, suits := 'cdhs') AS
    array_to_string(list_transform(codes, lambda cn_c: card_name(cn_c, suits)), '');

CREATE OR REPLACE MACRO _unique_cards(text, what, suits, codes) AS
    CASE WHEN len(list_distinct(codes)) < len(codes)
              THEN error('card ' || card_name(list_filter(codes, lambda uq_c, uq_i:
                             list_position(codes, uq_c) < uq_i)[1], suits) || ' appears twice')
         ELSE codes
    END;

CREATE OR REPLACE MACRO _checked_cards(text, what, suits, s) AS
    CASE WHEN length(s) % 2 = 1
              THEN error(what || ' ''' || text || ''': cards are two characters each (rank '
                         || '23456789TJQKA, suit ' || suits || ')')
         ELSE _unique_cards(text, what, suits,
                  list_transform(range(0, length(s) // 2),
                                 lambda ck_i: coalesce(card_code(substr(s, 2 * ck_i + 1, 2), suits),
                                                    error(what || ' ''' || text || ''': '''
                                                          || substr(s, 2 * ck_i + 1, 2)
                                                          || ''' is not a card (ranks '
                                                          || '23456789TJQKA, suits ' || suits
                                                          || ')'))))
    END;

-- The card codes of a string of card names ('AsKd', 'As Kd', 'As,Kd'), in the order written;
-- a bad name, a repeated card or a dangling character is a one-line error naming `what`.
CREATE OR REPLACE MACRO parse_cards(text, what := 'cards', suits := 'cdhs') AS
    _checked_cards(text, what, suits, regexp_replace(coalesce(text, ''), '[\s,]', '', 'g'));

-- Colex index sum_i C(c_i, i) (i from 1) of a set of card codes (any order): the handval key.
CREATE OR REPLACE MACRO colex_index(codes) AS
    coalesce(list_sum(list_transform(list_sort(codes), lambda cx_c, cx_i: choose(cx_c, cx_i))), 0);

-- ---------------------------------------------------------------------------------------------
-- Canonical index of a hand dealt in groups (K. Waugh's hand isomorphism, as etl.isomorphism's
-- HandIndexer computes it): `hand_index([2, 3], [hole1, hole2, flop1, flop2, flop3])` is the
-- `idx` of equity_flop and the `hand` of an abstraction's round 1. Groupings: [2] (preflop),
-- [2,3] (flop), [2,4] and [2,5] (equity_turn, equity_river), [2,3,1] (the turn buckets).
--
-- Per suit: its configuration key (its card count per group, 4 bits each) and its suit index
-- (a mixed-radix number whose digit for group j is the colex index of the suit's ranks of the
-- group, each renumbered past the ranks the suit used before). The suits sorted by key
-- (descending) and suit index (ascending) give a configuration; runs of suits with equal keys
-- are multisets of suit indexes; hand_configurations holds, per configuration, its first
-- index and each sorted position's weight and place in its run.
-- ---------------------------------------------------------------------------------------------

-- The number of suit indexes of a suit with per-group counts `counts`.
CREATE OR REPLACE MACRO _suit_size(counts) AS
    list_reduce(range(1, len(counts) + 1),
                lambda ss_acc, ss_j: ss_acc * choose(13 - coalesce(list_sum(counts[1:ss_j - 1]), 0),
                                                     counts[ss_j]),
                1::BIGINT);

-- A table (124 rows, remade with the views), not a view: every hand_index call reads it.
CREATE OR REPLACE TABLE hand_configurations AS
WITH RECURSIVE groupings(grouping) AS (
    VALUES ([2]), ([2, 3]), ([2, 4]), ([2, 5]), ([2, 3, 1])
), splits(n, counts) AS (  -- the ways to deal n cards of a group to the four suits
    SELECT n, [a, b, c, n - a - b - c]
    FROM range(0, 6) t1(n), range(0, 6) t2(a), range(0, 6) t3(b), range(0, 6) t4(c)
    WHERE a + b + c <= n
), deals(grouping, j, per_suit) AS (  -- per suit, its card count of each group so far
    SELECT grouping, 0, [[], [], [], []]::BIGINT[][] FROM groupings
    UNION ALL
    SELECT d.grouping, d.j + 1,
           list_transform(d.per_suit, lambda l, s: list_append(l, sp.counts[s]))
    FROM deals AS d JOIN splits AS sp ON sp.n = d.grouping[d.j + 1]
    WHERE d.j < len(d.grouping)
), configs AS (
    SELECT DISTINCT grouping,
           list_sort(list_transform(per_suit, lambda l: {
               'nk': -list_reduce(l, lambda acc, n: acc * 16 + n, 0::BIGINT),
               'm': _suit_size(l)})) AS sorted
    FROM deals
    WHERE j = len(grouping) AND list_bool_and(list_transform(per_suit, lambda l: list_sum(l) <= 13))
), runs AS (
    SELECT grouping, keys, sizes,
           list_transform(keys, lambda k, p: p - list_position(keys, k)) AS run_pos,
           -- each run's radix (a multiset of g suit indexes below m), at the run's first place
           list_transform(keys, lambda k, p: CASE WHEN list_position(keys, k) = p THEN
               choose(sizes[p] + len(list_filter(keys, lambda q: q = k)) - 1,
                      len(list_filter(keys, lambda q: q = k))) ELSE 1 END) AS radix
    FROM (SELECT grouping, list_transform(sorted, lambda e: -e.nk) AS keys,
                 list_transform(sorted, lambda e: e.m) AS sizes FROM configs)
)
SELECT grouping, keys, sizes, run_pos,
       list_transform(keys, lambda k, p: list_reduce(radix[1:list_position(keys, k) - 1],
                                                     lambda a, b: a * b, 1::BIGINT)) AS weight,
       list_reduce(radix, lambda a, b: a * b, 1::BIGINT) AS hands,
       coalesce(sum(list_reduce(radix, lambda a, b: a * b, 1::BIGINT)) OVER (
           PARTITION BY grouping ORDER BY keys DESC
           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::BIGINT AS "offset"
FROM runs;

-- Group j's cards (1-based) of a hand; the cards dealt before group j.
CREATE OR REPLACE MACRO _group_cards(grp, codes, j) AS
    codes[coalesce(list_sum(grp[1:j - 1]), 0) + 1 : list_sum(grp[1:j])];
CREATE OR REPLACE MACRO _cards_before(grp, codes, j) AS
    codes[1 : coalesce(list_sum(grp[1:j - 1]), 0)];
CREATE OR REPLACE MACRO _suit_ranks(cs, s) AS
    list_sort(list_transform(list_filter(cs, lambda sr_c: sr_c % 4 = s), lambda sr_c: sr_c // 4));

-- Suit s's configuration key and suit index.
CREATE OR REPLACE MACRO _suit_key(grp, codes, s) AS
    list_reduce(range(1, len(grp) + 1),
                lambda sk_acc, sk_j:
                    sk_acc * 16 + len(_suit_ranks(_group_cards(grp, codes, sk_j), s)),
                0::BIGINT);
CREATE OR REPLACE MACRO _suit_index(grp, codes, s) AS
    list_reduce(range(1, len(grp) + 1), lambda si_acc, si_j: si_acc
        -- the digit: colex index of the group's ranks renumbered past the ranks used before
        + coalesce(list_sum(list_transform(
              list_sort(list_transform(_suit_ranks(_group_cards(grp, codes, si_j), s),
                  lambda si_r: si_r - len(list_filter(
                      _suit_ranks(_cards_before(grp, codes, si_j), s), lambda si_u: si_u < si_r)))),
              lambda si_v, si_i: choose(si_v, si_i))), 0)
        -- times the radix of the groups before
        * list_reduce(range(1, si_j), lambda si_m, si_jj: si_m
              * choose(13 - len(_suit_ranks(_cards_before(grp, codes, si_jj), s)),
                       len(_suit_ranks(_group_cards(grp, codes, si_jj), s))), 1::BIGINT),
        0::BIGINT);

CREATE OR REPLACE MACRO _sorted_suits(grp, codes) AS
    list_sort(list_transform([0, 1, 2, 3], lambda so_s: {'nk': -_suit_key(grp, codes, so_s),
                                                     'x': _suit_index(grp, codes, so_s)}));

CREATE OR REPLACE MACRO _hand_index(grp, sorted_suits) AS (
    SELECT hc."offset" + list_sum(list_transform(sorted_suits, lambda hi_e, hi_p:
               hc.weight[hi_p] * choose(hi_e.x + hc.run_pos[hi_p], hc.run_pos[hi_p] + 1)))
    FROM hand_configurations AS hc
    WHERE hc.grouping = grp::BIGINT[]
      AND hc.keys = list_transform(sorted_suits, lambda hi_e: -hi_e.nk)
);

-- The canonical index of the hand `codes` dealt in groups `grp` (NULL for a grouping not in
-- hand_configurations, or cards that do not fill it).
CREATE OR REPLACE MACRO hand_index(grp, codes) AS
    _hand_index(grp, _sorted_suits(grp, codes));

-- The 169 preflop classes: name (AA, AKs, AKo, .. 72o), canonical [2] index (the `idx` of
-- equity_preflop, the `hand` of an abstraction's round 0), raw combos (6 / 4 / 12), ranks
-- (high first) and whether suited; `example` one hole of the class.
CREATE OR REPLACE VIEW hands AS
SELECT hand_index([2], [hi * 4 + 3, lo * 4 + (CASE WHEN suited THEN 3 ELSE 2 END)]) AS idx,
       '23456789TJQKA'[hi + 1] || '23456789TJQKA'[lo + 1]
           || CASE WHEN hi = lo THEN '' WHEN suited THEN 's' ELSE 'o' END AS hand,
       CASE WHEN hi = lo THEN 6 WHEN suited THEN 4 ELSE 12 END AS combos,
       hi AS high_rank, lo AS low_rank, suited,
       card_name(hi * 4 + 3) || card_name(lo * 4 + (CASE WHEN suited THEN 3 ELSE 2 END))
           AS example
FROM range(0, 13) a(hi), range(0, 13) b(lo), (VALUES (true), (false)) s(suited)
WHERE lo < hi OR (lo = hi AND NOT suited);

-- ---------------------------------------------------------------------------------------------
-- Rhode Island Hold'em hands (etl/rhode_island.py): a round-r hand is the private card and the
-- first r public cards, in deal order; its canonical form renames suits in order of first
-- appearance, and hands are numbered in the order of the canonical cards as base-52 digits.
-- ---------------------------------------------------------------------------------------------

-- The base-52 key of the canonical form of a Rhode Island Hold'em hand (codes in deal order).
CREATE OR REPLACE MACRO ri_hand_key(codes) AS
    list_reduce(list_transform(codes, lambda rk_c: rk_c // 4 * 4
        + len(list_distinct(list_transform(
              codes[1:list_position(list_transform(codes, lambda rk_d: rk_d % 4), rk_c % 4) - 1],
              lambda rk_e: rk_e % 4)))),
        lambda rk_a, rk_b: rk_a * 52 + rk_b, 0::BIGINT);

-- The canonical hands per round (13, 325, 9,997): `hand` is the row of
-- etl.rhode_island.hand_tree() (the `hand` of a Rhode Island abstraction's tables), `key` the
-- base-52 number of the canonical cards, `parent_key` that of the hand one round before,
-- `board_key` that of the public cards canonicalised alone (what a player who sees the board
-- tells apart).
CREATE OR REPLACE VIEW rhode_island_hands AS
WITH RECURSIVE deals(round, cards, top_suit) AS (
    SELECT 0, [r * 4], 0 FROM range(0, 13) t(r)
    UNION ALL
    SELECT d.round + 1, list_append(d.cards, r * 4 + s), greatest(d.top_suit, s)
    FROM deals AS d, range(0, 13) t(r), range(0, 4) u(s)
    WHERE d.round < 2 AND s <= d.top_suit + 1 AND NOT list_contains(d.cards, r * 4 + s)
)
SELECT round, cards, key,
       (row_number() OVER (PARTITION BY round ORDER BY key) - 1)::BIGINT AS hand,
       key // 52 AS parent_key,
       CASE WHEN round > 0 THEN ri_hand_key(cards[2:]) END AS board_key
FROM (SELECT round, cards, ri_hand_key(cards) AS key FROM deals);
