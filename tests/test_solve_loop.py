"""solve.loop.iterate_until: the step / checkpoint / check loop of solve and compare."""

import math

import pytest

from solve.algorithms.cfr import CFRSolver
from solve.algorithms.evaluate import exploitability
from solve.games.compile import compile_game
from solve.games.rules import kuhn
from solve.loop import iterate_until


@pytest.fixture(scope="module")
def game():
    return compile_game(kuhn())


def test_total_ends_with_a_short_step_and_checkpoints(game, tmp_path):
    solver = CFRSolver(game, "cfr+")
    ckpt = tmp_path / "checkpoint.npz"
    e = iterate_until(solver, game, 7, total=30, checkpoint=ckpt)
    assert solver.iteration_ == 30
    assert e == exploitability(game, solver.average_strategy())
    resumed = CFRSolver(game, "cfr+")
    resumed.load(ckpt)
    assert resumed.iteration_ == 30
    # already at the total: no step, the given exploitability comes back
    assert iterate_until(resumed, game, 7, total=30, expl=1.5) == 1.5
    assert resumed.iteration_ == 30


def test_target_stops_after_the_step_that_reaches_it(game):
    solver = CFRSolver(game, "cfr+")
    e = iterate_until(solver, game, 5, target=0.05)
    assert e < 0.05
    before = CFRSolver(game, "cfr+").iterate(solver.iteration_ - 5)
    assert exploitability(game, before.average_strategy()) >= 0.05
    # a known exploitability below the target: nothing to do
    assert iterate_until(solver, game, 5, target=0.05, expl=0.01) == 0.01


def test_time_limit_floor(game):
    # time already up: still one step from where it starts (default), none past min_iteration
    solver = CFRSolver(game, "cfr").iterate(3)
    iterate_until(solver, game, 4, time_limit=1.0, started=0.0)
    assert solver.iteration_ == 7
    assert math.isinf(iterate_until(solver, game, 4, time_limit=1.0, started=0.0, min_iteration=0))
    assert solver.iteration_ == 7
    fresh = CFRSolver(game, "cfr")
    iterate_until(fresh, game, 4, time_limit=1.0, started=0.0, min_iteration=0)
    assert fresh.iteration_ == 4
