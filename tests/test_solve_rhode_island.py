"""Rhode Island Hold'em: the compiled tree and suit isomorphism with two public cards."""

import dataclasses

import numpy as np
import pytest

from solve.algorithms.cfr import CFRSolver
from solve.algorithms.evaluate import expected_value, exploitability
from solve.games.compile import CHANCE, DECISION, FOLD, SHOWDOWN, compile_game
from solve.games.rules import rhode_island
from solve.algorithms.lp import solve_lp


def mini_rhode_island(n_ranks=5):
    """Rhode Island rules on a 4-suit deck with fewer ranks (the 3-card ranking then
    compares the same way on the smaller rank set; straights wrap only for the real ace)."""
    return dataclasses.replace(rhode_island(), name="mini-ri", n_ranks=n_ranks, ranking="mini_ri")


@pytest.fixture(autouse=True, scope="module")
def _mini_ranking():
    # a Rhode-Island-like ranking for short decks: category from pairs/trips/flush only
    from solve.games import ranking

    def mini_ri(hands, board, n_suits):
        b = np.broadcast_to(np.asarray(board), (len(hands), 2))  # one board, or one per hand
        cards = np.column_stack([hands[:, 0], b[:, 0], b[:, 1]])
        r = np.sort(cards // n_suits, axis=1)
        s = cards % n_suits
        flush = (s[:, 0] == s[:, 1]) & (s[:, 1] == s[:, 2])
        trips = r[:, 0] == r[:, 2]
        pair = ~trips & ((r[:, 0] == r[:, 1]) | (r[:, 1] == r[:, 2]))
        high = (r[:, 2] * 16 + r[:, 1]) * 16 + r[:, 0]
        cat = np.select([trips, flush, pair], [3, 2, 1], 0)
        return (cat * 4096 + np.where(pair, r[:, 1] * 256, 0) + high).astype(np.int64)

    ranking.RANKINGS["mini_ri"] = mini_ri
    yield
    del ranking.RANKINGS["mini_ri"]


def test_full_game_shape():
    g = compile_game(rhode_island())
    assert len(g.board_cards) == 1 + 13 + 13 * 25  # canonical boards under suit isomorphism
    # each round's stage game: 7 ways to continue, 6 fold endings
    assert (g.ntype == CHANCE).sum() == 7 + 7 * 13 * 7
    r0 = g.nround == 0
    assert ((g.ntype == FOLD) & r0).sum() == 6
    assert ((g.ntype == SHOWDOWN)).sum() == 7 * 13 * 7 * 25 * 7
    # round 0: "", c, r, cr, rr, crr, rrr, crrr (cap 3); 1 + 7*13 + 7*13*7*25 stage games
    assert ((g.ntype == DECISION) & r0).sum() == 8
    assert (g.ntype == DECISION).sum() == 8 * (1 + 7 * 13 + 7 * 13 * 7 * 25)
    assert (g.ntype == FOLD).sum() == 6 * (1 + 7 * 13 + 7 * 13 * 7 * 25)
    assert len(g.ntype) == 14 * (1 + 7 * 13 + 7 * 13 * 7 * 25) + 7 * 13 * 7 * 25 * 7 + 7 + 7 * 13 * 7


@pytest.fixture(scope="module")
def mini_games(_mini_ranking):
    # 3 ranks keep it fast; DCFR's trajectories here split within 6 iterations unless regret
    # ties are exact (see solve.algorithms._kernels.TIE_RTOL)
    rules = mini_rhode_island(n_ranks=3)
    return compile_game(rules, suit_isomorphism=False), compile_game(rules, suit_isomorphism=True)


@pytest.mark.parametrize("alg", ["cfr+", "dcfr"])
def test_isomorphism_matches_full_deck(alg, mini_games):
    full, iso = mini_games
    assert len(iso.ntype) < len(full.ntype) / 4
    a = CFRSolver(full, alg).iterate(20).average_strategy()
    b = CFRSolver(iso, alg).iterate(20).average_strategy()
    assert exploitability(iso, b) == pytest.approx(exploitability(full, a), rel=1e-9)
    assert expected_value(iso, b) == pytest.approx(expected_value(full, a), rel=1e-9)


def lift_to_full(iso, strategy, full):
    """Behaviour (D, 3, H) on the full-deck compile ``full`` of a strategy of the suit-isomorphic
    compile ``iso``: each real (node, hand) plays as its canonical image (``iso.locate``)."""
    beh_iso = strategy.behaviour()
    out = np.zeros((len(full.dnode), 3, full.n_hands))
    for d, n in enumerate(full.dnode):
        board = [c for o in full.board_cards[full.nboard[n]] for c in o]
        for h in np.flatnonzero(full.board_valid[full.nboard[n]]):
            di, hi = iso.locate(full.history[n], board, tuple(int(c) for c in full.hands[h]))
            out[d, :, h] = beh_iso[di, :, hi]
    return out


def test_mini_lp_iso_is_full_equilibrium():
    # the full-deck LP of even a tiny Rhode Island game is slow in HiGHS (12,800 sequences for
    # 2 ranks), so the iso LP's equilibrium is lifted to the full game and checked there exactly
    rules = dataclasses.replace(mini_rhode_island(n_ranks=2), bet_caps=(1, 1, 1))
    s, v_iso = solve_lp(g := compile_game(rules))
    assert exploitability(g, s) == pytest.approx(0.0, abs=1e-6)
    full = compile_game(rules, suit_isomorphism=False)
    beh = lift_to_full(g, s, full)
    assert exploitability(full, beh) == pytest.approx(0.0, abs=1e-6)
    assert expected_value(full, beh) == pytest.approx(v_iso, abs=1e-6)
