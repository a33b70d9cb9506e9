"""OpenSpiel's ``universal_poker`` (the ACPC game-definition engine) as the referee of our limit
Texas Hold'em engine (issue 18, item 4).

Both engines are driven with the same cards and the same actions, hand after hand; at every
step the player to act, the legal actions and each player's chips in the pot must agree, and at
the end of the hand the payoffs. Ours is the engine the solver, the evaluators and the look-up
use: the betting tree (``solve.holdem.game.build_tree``), its terminal values and showdown
(``solve.holdem._kernels``). The referee is configured from the published rules of docs/design.md
section 5 (blinds 1/2, bets 2/2/4/4, four bets a round, small blind first preflop), not from our
code. Strategies are played inside OpenSpiel's game loop by ``bench/bench_referee_openspiel.py``.
"""

import re

import numpy as np
import pytest

from solve.holdem import _kernels as K
from solve.holdem.game import CALL, DECISION, FOLD, FOLD_END, RAISE, HoldemRules, build_tree

pyspiel = pytest.importorskip("pyspiel")

#: Limit Hold'em as published, in universal_poker's ACPC terms: player 0 posts the small blind
#: and acts first preflop, player 1 first after; maxRaises counts raises after the blind
#: preflop (3 = four bets with the blind) and bets postflop (4).
HOLDEM_GAMEDEF = ("universal_poker(betting=limit,numPlayers=2,numRounds=4,blind=1 2,"
                  "raiseSize=2 2 4 4,firstPlayer=1 2 2 2,maxRaises=3 4 4 4,numSuits=4,"
                  "numRanks=13,numHoleCards=2,numBoardCards=0 3 1 1,stack=1000 1000)")
#: universal_poker's actions in limit betting, against our action codes
OS_ACTION = {FOLD: 0, CALL: 1, RAISE: 2}
BOARD_CARDS = (0, 3, 1, 1)  # dealt at the start of each round


def spent_of(state) -> list[int]:
    """Each player's chips in the pot, read off universal_poker's state text."""
    m = re.search(r"Spent: \[P0: (\d+)\s+P1: (\d+)", str(state))
    return [int(m.group(1)), int(m.group(2))]


def play_both(game, tree, deal: np.ndarray, choose) -> tuple[int, str]:
    """One hand in both engines: ``deal`` = 2 + 2 hole cards then 5 board cards (our card
    codes, which are universal_poker's: rank * 4 + suit, suits c d h s); ``choose(n)`` picks
    the action index at our decision node ``n``. Asserts agreement at every step; returns the
    number of decisions and how the hand ended (fold, showdown, tie)."""
    state = game.new_initial_state()
    for c in deal[:4]:
        state.apply_action(int(c))
    dealt, n, decisions = 4, 0, 0
    rnd = 0
    while tree.ntype[n] == DECISION:
        if tree.round[n] != rnd:  # a new round: the referee deals its board cards
            rnd = int(tree.round[n])
            for _ in range(BOARD_CARDS[rnd]):
                assert state.is_chance_node()
                state.apply_action(int(deal[dealt]))
                dealt += 1
        assert not state.is_chance_node() and not state.is_terminal()
        assert state.current_player() == tree.player[n], tree.history[n]
        codes = [int(c) for c in tree.code[n, :tree.nact[n]]]
        assert sorted(state.legal_actions()) == sorted(OS_ACTION[c] for c in codes), \
            (tree.history[n], state.legal_actions(), codes)
        assert spent_of(state) == [int(x) for x in tree.spent[n]], tree.history[n]
        a = choose(n)
        state.apply_action(OS_ACTION[codes[a]])
        n = int(tree.child[n, a])
        decisions += 1
    while state.is_chance_node():  # all-call to the end: the rest of the board for the showdown
        state.apply_action(int(deal[dealt]))
        dealt += 1
    assert state.is_terminal(), tree.history[n]
    res0 = K._showdown(deal.astype(np.uint8))
    ours = K._terminal_value(tree.ntype, tree.player, tree.spent, n, 0, res0)
    assert state.returns() == [ours, -ours], (tree.history[n], deal, state.returns(), ours)
    if tree.ntype[n] == FOLD_END:
        assert spent_of(state) == [int(x) for x in tree.spent[n]]
        return decisions, "fold"
    return decisions, "showdown" if res0 else "tie"


def test_universal_poker_agrees_with_our_holdem_engine_on_10000_random_hands():
    game = pyspiel.load_game(HOLDEM_GAMEDEF)
    tree = build_tree(HoldemRules())
    rng = np.random.default_rng(18)
    n_hands, decisions, ends = 10_000, 0, {"fold": 0, "showdown": 0, "tie": 0}
    rounds = np.zeros(4, dtype=np.int64)
    # biased towards calls and raises so that most hands reach later rounds and the caps
    weights = {FOLD: 0.1, CALL: 0.5, RAISE: 0.4}

    def choose(n):
        w = np.array([weights[int(c)] for c in tree.code[n, :tree.nact[n]]])
        return int(rng.choice(len(w), p=w / w.sum()))

    def counted(n):
        rounds[tree.round[n]] += 1
        return choose(n)

    for _ in range(n_hands):
        deal = rng.permutation(52)[:9]
        d, end = play_both(game, tree, deal, counted)
        decisions += d
        ends[end] += 1
    # the hands covered what the check is about: every round, folds, showdowns and ties
    assert decisions > 5 * n_hands and rounds.min() > n_hands
    assert min(ends.values()) > 50, ends


def test_universal_poker_agrees_on_capped_and_folded_lines():
    """Deterministic lines through the corners: the preflop cap (blind + 3 raises), a check
    round, a fold facing a bet on the river, and a check-down to showdown."""
    game = pyspiel.load_game(HOLDEM_GAMEDEF)
    tree = build_tree(HoldemRules())
    deal = np.array([51, 47, 0, 5, 10, 20, 30, 40, 49])  # As Ks | 2c 3d | 4h 7c 9h Jc Ah
    node_of = {h: i for i, h in enumerate(tree.history)}
    letter = {FOLD: "f", CALL: "c", RAISE: "r"}
    for line in ["rrrc/cc/cc/cc", "rrrc/rrrrc/rrrrc/rrrrc", "cc/rc/rc/rf", "f", "rf",
                 "cc/cc/cc/cc", "crc/crrc/cc/crf"]:
        steps = iter(line.replace("/", ""))

        def choose(n):
            want = next(steps)
            codes = [letter[int(c)] for c in tree.code[n, :tree.nact[n]]]
            return codes.index(want)

        play_both(game, tree, deal, choose)
        assert line in node_of, line  # the line is a terminal of our tree
