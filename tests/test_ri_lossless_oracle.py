"""Issue 49: is GameShrink's Rhode Island abstraction lossless with the board hidden? Settled on
the reduced deck (the same game, the lowest ``n`` ranks of four suits) by an oracle that shares
no code with the pipeline (``tests/ri_oracle.py``: ranking, deals, betting and strategically
identical classes from the rules; OpenSpiel's C++ best response as the evaluator).

Outcome (docs/rhode-island-lossless.md): with 2 ranks the hidden-board classes are the
strategically identical ones and the hidden game is lossless; with 3 ranks they are not --
GameShrink's classes merge private deuce with public three and with public four (same
win/tie/loss counts, different opponents), the hidden game's value differs from the real
game's, and its equilibrium is exploitable in the real game. The project's implementation is
right on both counts: its classes refined by the public board are exactly the brute-force
classes, and its real-game evaluator agrees with OpenSpiel's to 1e-6.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import ri_oracle as oracle
from abstraction.games import rhode_island as ri_hands
from abstraction.methods import Lossless
from abstraction.public_board import public_board_buckets
from etl.rhode_island import hand_tree
from solve.abstractions import RhodeIslandTableAbstraction
from solve.algorithms.abstract_cfr import AbstractFormSolver
from solve.algorithms.evaluate import best_response_value
from solve.algorithms.lp_exact import solve_exact
from solve.algorithms.treeplex import behaviour, best_response_values
from solve.games.abstract_form import abstract_form
from solve.games.compile import BET_A, CALL_A, CHECK_A, FOLD_A, RAISE_A, compile_game
from solve.games.rules import rhode_island
from solve.games.tree import sequence_form

pyspiel = pytest.importorskip("pyspiel")


def _lossless(n):
    return [r.bucket for r in Lossless().fit(ri_hands(n_ranks=n)).rounds_]


def _same_partition(a, b) -> bool:
    pairs = set(zip(a, b))
    return len(pairs) == len(set(a)) == len(set(b))


def _on_raw(labels, n, r, hists):
    """The project's class of each raw history (canonical hand tree rows)."""
    return [int(x) for x in labels[r][hand_tree(n_ranks=n)[r].index_of(np.array(hists))]]


@pytest.fixture(scope="module")
def classes():
    return {n: (_lossless(n), oracle.brute_force_classes(n)) for n in (2, 3)}


def test_reduced_deck_is_the_same_game():
    rules = rhode_island(n_ranks=3)
    assert (rules.n_cards, rules.bet_sizes, rules.bet_caps, rules.contributions) == \
        (12, (1000, 2000, 2000), (3, 3, 3), (500, 500))
    assert rhode_island().n_cards == 52
    # our ranking and the oracle's agree on every three-card hand of the full deck
    from etl.rhode_island import all_three_card_sets, hand_rank3
    sets = all_three_card_sets().astype(np.int64)
    ours = hand_rank3(sets)
    theirs = [oracle.rank3(*map(int, s)) for s in sets]
    order = np.argsort(ours, kind="stable")
    ranked = [theirs[i] for i in order]
    assert all(x <= y for x, y in zip(ranked, ranked[1:]))
    assert all((ours[i] == ours[j]) == (theirs[i] == theirs[j])
               for i, j in zip(order, order[1:]))


def _refines(a, b) -> bool:
    return len(set(zip(a, b))) == len(set(a))


@pytest.mark.parametrize("n", [2, 3])
def test_board_refined_classes_are_strategically_identical(classes, n):
    """GameShrink's classes with the board visible never merge two histories the brute force
    keeps apart; with 3 ranks (as with 13, tests/test_solve_lossless.py) they are exactly the
    brute-force classes, with 2 ranks the brute force merges more (across boards)."""
    ours, brute = classes[n]
    refined = public_board_buckets(ours, n_ranks=n)
    for r in range(3):
        hists = list(brute[r])
        a, b = _on_raw(refined, n, r, hists), [brute[r][h] for h in hists]
        assert _refines(a, b)
        assert _same_partition(a, b) == (n == 3 or r < 2)


def test_hidden_classes_two_ranks_are_strategic_three_ranks_are_not(classes):
    for n, lossless in ((2, True), (3, False)):
        ours, brute = classes[n]
        hists = list(brute[2])
        hidden = _on_raw(ours, n, 2, hists)
        assert _same_partition(hidden, [brute[2][h] for h in hists]) == lossless
    assert tuple(len(set(b.values())) for b in classes[3][1]) == (3, 15, 69)
    assert tuple(int(b.max()) + 1 for b in classes[3][0]) == (3, 11, 39)


def test_smallest_counterexample(classes):
    """2c|3c and 2c|4c (round 2: the private deuce, one public card of the same suit) share a
    GameShrink class: the same win/tie/loss counts, 27/24/39 of 90. But the opponent's
    holdings differ: against 2c|3c the opponent pairs the board with one of three threes and
    holds four fours that can make the straight or a pair of fours; against 2c|4c it pairs the
    board with one of three fours and holds four threes."""
    ours, brute = classes[3]
    a, b = (0, 4), (0, 8)  # 2c 3c, 2c 4c
    assert _on_raw(ours, 3, 1, [a])[0] == _on_raw(ours, 3, 1, [b])[0]
    assert brute[1][a] != brute[1][b]
    tree = hand_tree(n_ranks=3)[1]
    i, j = tree.index_of(np.array([a, b]))
    assert (tree.wins[i], tree.ties[i], tree.losses[i]) == (27, 24, 39)
    assert (tree.wins[j], tree.ties[j], tree.losses[j]) == (27, 24, 39)

    def opponent(h):  # the opponent's GameShrink class over its 10 possible cards
        rest = [c for c in range(12) if c not in h]
        return sorted(_on_raw(ours, 3, 1, [(o, h[1]) for o in rest]))
    assert opponent(a) != opponent(b)


def _solve(form, game, width):
    s = AbstractFormSolver(form, game, "dcfr")
    while True:
        s.iterate(100)
        hi, lo = best_response_values(form.sf, *s.plans())
        if hi - lo < width:
            return s, lo, hi


def _strategy_probs(game, strat):
    beh = strat.behaviour()

    def probs(p, cards, hist):
        d, h = game.locate(hist, list(cards[1:]), (cards[0],))
        node = game.dnode[d]
        cs, cc = game.child_start[node], game.child_count[node]
        letter = {FOLD_A: "f", CHECK_A: "c", CALL_A: "c", BET_A: "r", RAISE_A: "r"}
        return {letter[int(code)]: beh[d, k, h]
                for k, code in enumerate(game.child_action[cs:cs + cc])}
    return probs


def _raw_classes(labels, n):
    """The project's classes as ``ri_oracle.type_game_tree`` takes them."""
    return [dict(zip(hs, _on_raw(labels, n, r, hs))) for r, hs in enumerate(oracle.histories(n))]


def _tree_probs(tree, sf, plans, classes):
    """``ri_oracle.openspiel_policy``'s view of plans of a ``type_game_tree``."""
    table = {}
    for p in (0, 1):
        b = behaviour(sf, p, [float(v) for v in plans[p]])
        for I, g in enumerate(sf.global_id[p]):
            pr = b.probs[I]
            if b.unreached[I]:
                pr = np.full(len(pr), 1.0 / len(pr))
            table[(p, tree.info_label[g])] = dict(zip(tree.info_actions[g], pr))

    def probs(p, cards, hist):
        return table[(p, f"{classes[len(cards) - 1][cards]}|{hist}")]
    return probs


def test_two_ranks_hidden_game_is_lossless_exactly():
    """2 ranks: the hidden-board game, built by the oracle from the rules and solved by the
    rational LP, has an equilibrium against which OpenSpiel's best responses in the unabstracted
    game win exactly the hidden game's value and no more: it is an equilibrium of the real game,
    whose value is therefore the same fraction (the bench also solves the oracle's real-game tree
    exactly: the same fraction)."""
    n = 2
    hidden = _raw_classes(_lossless(n), n)
    tree = oracle.type_game_tree(n, hidden)
    sf = sequence_form(tree)
    x, y, value, _ = solve_exact(sf)
    assert value == Fraction(-2558571200, 144332979)  # -17.7269 chips
    efg, infosets = oracle.real_game_efg(n)
    game = pyspiel.load_efg_game(efg)
    br = oracle.best_response_values(game, oracle.openspiel_policy(
        game, infosets, _tree_probs(tree, sf, (x, y), hidden)))
    assert br == pytest.approx((float(value), -float(value)), abs=1e-6)


def test_three_ranks_hidden_game_is_lossy_and_openspiel_agrees(classes):
    """3 ranks: value brackets of DCFR profiles ([min over player 2's best responses, max over
    player 1's], which hold the values) separate the hidden game (LP: -42.16) from the real
    game (-37.66); the hidden equilibrium gives player 1 over 200 chips in the real game, by
    OpenSpiel's best response and by ours (the same to 1e-6)."""
    n = 3
    rules = rhode_island(n_ranks=n)
    ours = classes[n][0]
    ident = [np.arange(len(h.weight)) for h in hand_tree(n_ranks=n)]
    hidden = RhodeIslandTableAbstraction("lossless-hidden", ours, public_board=False, n_ranks=n)
    real = RhodeIslandTableAbstraction("suit-classes", ident, public_board=True, n_ranks=n)
    gh, gr = compile_game(rules, hidden), compile_game(rules, real)
    sh, lo_h, hi_h = _solve(abstract_form(gh, hidden), gh, 2.0)
    _, lo_r, hi_r = _solve(abstract_form(gr, real), gr, 2.0)
    assert hi_h < lo_r
    efg, infosets = oracle.real_game_efg(n)
    game = pyspiel.load_efg_game(efg)
    strat = sh.average_strategy()
    policy = oracle.openspiel_policy(game, infosets, _strategy_probs(gh, strat))
    theirs = pyspiel.TabularBestResponse(game, 0, policy).value_from_state(game.new_initial_state())
    mine = best_response_value(gh, strat, 0)
    assert theirs == pytest.approx(mine, abs=1e-6)
    assert theirs - hi_h > 200  # what player 1 wins beyond the hidden game's value


RI_GAMEDEF = ("universal_poker(betting=limit,numPlayers=2,numRounds=3,blind=500 500,"
              "firstPlayer=1 1 1,numSuits=4,numRanks=4,numHoleCards=1,numBoardCards=0 1 1,"
              "raiseSize=1000 2000 2000,maxRaises=3 3 3,stack=20000 20000)")


def test_universal_poker_plays_the_oracles_betting_but_not_its_showdown():
    """OpenSpiel's universal_poker (the ACPC engine) agrees with the oracle's betting on 2,000
    random hands -- who acts, the legal actions, the chips at a fold -- but its evaluator ranks
    three cards without straights or flushes, so it cannot referee the showdown (the oracle
    gives OpenSpiel the game as an EFG instead)."""
    game = pyspiel.load_game(RI_GAMEDEF)
    template, stakes = oracle.betting_template()
    letter_of = {0: "f", 1: "c", 2: "r"}
    rng = np.random.default_rng(0)
    folds = 0
    for _ in range(2000):
        deal = rng.choice(16, 4, replace=False)
        state = game.new_initial_state()
        for c in deal[:2]:
            state.apply_action(int(c))
        node, dealt = 0, 2
        while template[node][0] == "d":
            while state.is_chance_node():
                state.apply_action(int(deal[dealt]))
                dealt += 1
            _, player, hist, acts, kids, _ = template[node]
            assert state.current_player() == player
            assert sorted(letter_of[a] for a in state.legal_actions()) == sorted(acts), hist
            k = int(rng.integers(len(acts)))
            state.apply_action({"f": 0, "c": 1, "r": 2}[acts[k]])
            node = kids[k]
        folder, chips = stakes[node]
        if folder is not None:
            folds += 1
            assert state.is_terminal()
            assert state.returns()[folder] == -chips
    assert folds > 500
    # 2c 3c 4c, Rhode Island's straight flush, loses to 3d 3c 4c at universal_poker
    state = game.new_initial_state()
    for a in (0, 5, 1, 1, 4, 1, 1, 8, 1, 1):
        state.apply_action(a)
    assert state.is_terminal() and state.returns()[0] == -500
    assert oracle.outcome(0, 5, 4, 8) == 1
