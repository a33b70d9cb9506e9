-- What a stored strategy plays at real cards and a betting history:
--
--   SELECT * FROM strategy_at('holdem-holdem-pa-pcs-plus-h64', hole := 'AsKd',
--                             board := '7c8h9s', history := 'rc/cr');
--
-- for strategies of stored card abstractions (Texas Hold'em; Rhode Island Hold'em, the public
-- cards visible or not, perfect or imperfect recall). The hand's buckets come from bucket_of's
-- look-up (cards_buckets.sql), the row from the strategies view: Texas Hold'em by the acting
-- player's bucket of the current round (as solve/lookup.py reads the solver's weights),
-- Rhode Island Hold'em by the bucket sequence the compiled game labels its information set
-- with ("3.17.101"; "-.-.101" under imperfect recall). The history is ACPC's: c check/call,
-- r bet/raise, f fold, '/' between rounds; the board holds the public cards of its round.

-- The abstraction of stored strategy `strategy_name` (one-line errors if there is no such
-- strategy, or it was not solved on a stored card abstraction).
CREATE OR REPLACE MACRO _strategy_abstraction(strategy_name) AS (
    SELECT CASE WHEN count(*) = 0
                    THEN error('no strategy ''' || strategy_name || ''' (see `cli.py strategies`)')
                WHEN any_value(s.abstraction) IS NULL
                     OR any_value(s.abstraction) NOT IN (SELECT name FROM abstractions)
                    THEN error('strategy ''' || strategy_name || ''' is not on a stored card '
                               || 'abstraction (strategy_at reads those; `cli.py strategy` looks '
                               || 'up the others)')
                ELSE any_value(s.abstraction) END
    FROM (SELECT abstraction FROM strategies WHERE strategy = strategy_name LIMIT 1) AS s
);

-- One row per action of the information set the situation falls in: the strategy, its game
-- and abstraction, round and player as in the strategies view (from 1), the seat, the history, the
-- information set (`infoset`, the table's `cards`), the acting player's bucket of the round,
-- the action and its probability, in the order the actions are played (fold, check/call,
-- bet/raise), and whether the strategy was trained there (`training`: 'never trained' means
-- the probabilities are the uniform default, no advice). Bad cards, a board that does not fit
-- the history, or a history at which the strategy has no decision are one-line errors.
CREATE OR REPLACE MACRO strategy_at(strategy_name, hole := '', board := '', history := '') AS TABLE
WITH args AS (
    SELECT coalesce(history, '') AS hist,
           length(coalesce(history, '')) - length(replace(coalesce(history, ''), '/', ''))
               AS hist_round
), dealt AS (
    FROM _deal_buckets(_strategy_abstraction(strategy_name), hole, board)
), situation AS (
    SELECT a.hist, a.hist_round,
           (SELECT max(d.round) FROM dealt AS d) AS round,
           (SELECT d.game_bucket FROM dealt AS d
            WHERE d.round = (SELECT max(round) FROM dealt)) AS bucket,
           (SELECT string_agg(d.game_bucket::VARCHAR, '.' ORDER BY d.round) FROM dealt AS d)
               AS sequence
    FROM args AS a
), checked AS (
    SELECT *,
           CASE WHEN round <> hist_round
                    THEN error('board ''' || coalesce(board, '') || ''' is of round '
                               || (round + 1) || ', history ''' || hist || ''' of round '
                               || (hist_round + 1))
                WHEN bucket IS NULL
                    THEN error('abstraction ''' || _strategy_abstraction(strategy_name)
                               || ''' holds no bucket for this hand')
           END AS bad
    FROM situation
), found AS (
    SELECT st.strategy, st.game, st.abstraction, st.round, st.player, st.seat, st.history,
           st.cards AS infoset, c.bucket, st.action, st.probability, st.training
    FROM strategies AS st, checked AS c
    WHERE st.strategy = strategy_name AND st.history = c.hist AND st.round = c.round + 1
      AND c.bad IS NULL
      AND CASE WHEN st.game = 'holdem' THEN split_part(st.cards, '.', -1) = c.bucket::VARCHAR
               ELSE st.cards = c.sequence OR st.cards = repeat('-.', c.round) || c.bucket END
)
SELECT * FROM found
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       error('history ''' || hist || ''' is not a decision point of ''' || strategy_name
             || ''': illegal betting, or the hand is over (a fold or the last call)')
FROM checked WHERE NOT EXISTS (FROM found)
ORDER BY CASE action WHEN 'fold' THEN 0 WHEN 'check' THEN 1 WHEN 'call' THEN 1 ELSE 2 END;
