"""The head-to-head matrix from the bilinear form equals the pairwise pass."""

import numpy as np
import pytest

from solve.algorithms.evaluate import expected_value, head_to_head
from solve.algorithms.pairwise import expected_value_matrix, head_to_head_all
from solve.games.compile import compile_game
from solve.games.rules import kuhn, leduc


def random_behaviours(game, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        beh = rng.random((len(game.dnode), 3, game.n_hands))
        for d, n in enumerate(game.dnode):
            c = game.child_count[n]
            beh[d, c:] = 0.0
            beh[d, :c] /= beh[d, :c].sum(axis=0)
        out.append(beh)
    return out


@pytest.mark.parametrize("rules,iso", [(kuhn, False), (leduc, False), (leduc, True)])
def test_matrix_equals_expected_value_pair_by_pair(rules, iso):
    g = compile_game(rules(), suit_isomorphism=iso)
    behs = random_behaviours(g, 4, seed=7)
    ev = expected_value_matrix(g, lambda i: behs[i], len(behs))
    direct = np.array([[expected_value(g, a, b) for b in behs] for a in behs])
    np.testing.assert_allclose(ev, direct, rtol=0, atol=1e-13)
    h2h = head_to_head_all(g, behs)
    for i, a in enumerate(behs):
        for j, b in enumerate(behs):
            assert h2h[i, j] == pytest.approx(head_to_head(g, a, b), abs=1e-13)
    np.testing.assert_allclose(np.diag(h2h), 0.0, atol=0)
    np.testing.assert_allclose(h2h, -h2h.T, atol=0)


def test_blocks_of_columns_give_the_same_matrix():
    g = compile_game(leduc(), suit_isomorphism=True)
    behs = random_behaviours(g, 5, seed=3)
    whole = expected_value_matrix(g, lambda i: behs[i], 5)
    calls = []

    class Bar:
        total = None

        def update(self, k):
            calls.append(k)

    bar = Bar()
    one_at_a_time = expected_value_matrix(g, lambda i: behs[i], 5, memory_bytes=1, progress=bar)
    np.testing.assert_allclose(whole, one_at_a_time, rtol=0, atol=1e-13)  # BLAS order only
    assert bar.total == 5 + 5 * 5 == sum(calls)


def test_no_strategies():
    g = compile_game(kuhn())
    assert expected_value_matrix(g, lambda i: None, 0).shape == (0, 0)
