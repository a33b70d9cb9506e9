"""OpenSpiel's ``universal_poker`` as the referee of our Leduc Hold'em engine (issue 18, item 4).

Our Leduc is the generic tree of ``solve.games.rules.leduc()`` (``solve.games.limit_tree``),
the game every Leduc solver, evaluator and look-up of ours plays. The referee is Leduc as an
ACPC game definition, written from the published rules (docs/design.md: a 6-card deck of 3 ranks in
2 suits, one private card each, one board card in round 2, antes of 1 -- equal blinds of 1 in
ACPC terms --, bets 2 then 4, at most 2 bets a round, player 0 first in both rounds), not from
our code. Both engines are driven with the same cards (card ``rank * 2 + suit`` in both) and
the same actions, hand after hand: at every step the player to act and the legal actions must
agree, and at the end the payoffs.
"""

import numpy as np
import pytest

from solve.games.limit_tree import limit_tree
from solve.games.rules import leduc
from solve.games.tree import CHANCE, DECISION, TERMINAL

pyspiel = pytest.importorskip("pyspiel")

LEDUC_GAMEDEF = ("universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,"
                 "firstPlayer=1 1,numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,"
                 "raiseSize=2 4,maxRaises=2 2,stack=100 100)")
#: our action names -> universal_poker's limit actions (fold 0, check/call 1, bet/raise 2)
OS_ACTION = {"fold": 0, "call": 1, "check": 1, "raise": 2, "bet": 2}


def _deal_index(n_cards: int, c0: int, c1: int) -> int:
    """The root chance child of the private cards (c0, c1): ``limit_tree`` deals them in the
    order of (c0, c1) over all ordered pairs of distinct cards."""
    return c0 * (n_cards - 1) + (c1 if c1 < c0 else c1 - 1)


def play_both(game, tree, deal, choose) -> tuple[int, bool]:
    """One hand in both engines; ``deal`` = (card of player 0, of player 1, board card);
    ``choose(actions)`` picks an action name. Returns (decisions, reached the second round)."""
    state = game.new_initial_state()
    state.apply_action(int(deal[0]))
    state.apply_action(int(deal[1]))
    n = int(tree.children[tree.child_start[0] + _deal_index(6, deal[0], deal[1])])
    decisions, second = 0, False
    while tree.kind[n] != TERMINAL:
        if tree.kind[n] == CHANCE:  # the board card: children in the order of the live cards
            live = [c for c in range(6) if c not in deal[:2]]
            assert state.is_chance_node()
            state.apply_action(int(deal[2]))
            n = int(tree.children[tree.child_start[n] + live.index(deal[2])])
            second = True
            continue
        assert tree.kind[n] == DECISION and not state.is_chance_node()
        assert state.current_player() == tree.player[n]
        actions = tree.info_actions[tree.infoset[n]]
        assert sorted(state.legal_actions()) == sorted(OS_ACTION[a] for a in actions), \
            (tree.info_label[tree.infoset[n]], state.legal_actions(), actions)
        a = choose(actions)
        state.apply_action(OS_ACTION[actions[a]])
        n = int(tree.children[tree.child_start[n] + a])
        decisions += 1
    assert state.is_terminal()
    ours = tree.pay_num[n] / tree.pay_den[n]
    assert state.returns() == [ours, -ours], (deal, state.returns(), ours)
    return decisions, second


def test_universal_poker_agrees_with_our_leduc_engine_on_10000_random_hands():
    game = pyspiel.load_game(LEDUC_GAMEDEF)
    tree = limit_tree(leduc())
    rng = np.random.default_rng(18)
    weights = {"fold": 0.1, "call": 0.5, "check": 0.5, "raise": 0.4, "bet": 0.4}
    n_hands, decisions, seconds, payoffs = 10_000, 0, 0, set()

    def choose(actions):
        w = np.array([weights[a] for a in actions])
        return int(rng.choice(len(w), p=w / w.sum()))

    for _ in range(n_hands):
        deal = [int(c) for c in rng.permutation(6)[:3]]
        d, second = play_both(game, tree, deal, choose)
        decisions += d
        seconds += second
    assert decisions > 3 * n_hands and seconds > n_hands // 2


def test_universal_poker_agrees_on_capped_folded_and_tied_lines():
    """Deterministic lines through the corners: both caps, a fold facing a raise, check-downs
    with a pair on the board, a higher card and a tie (Ja | Jb with a Q on board)."""
    game = pyspiel.load_game(LEDUC_GAMEDEF)
    tree = limit_tree(leduc())
    letters = {"f": "fold", "k": "check", "c": "call", "b": "bet", "r": "raise"}
    for deal in ([4, 0, 2], [0, 4, 1], [0, 1, 2], [2, 5, 3]):
        for line in ("brc/brc", "kk/kk", "brf", "kbf", "kk/bc", "bc/kbrc", "kbrc/brf"):
            steps = iter(line.replace("/", ""))

            def choose(actions):
                return list(actions).index(letters[next(steps)])

            play_both(game, tree, deal, choose)
