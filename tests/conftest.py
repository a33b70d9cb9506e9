"""Session-wide fixtures: expensive results that several test files only read, built once.

Each is built by the same production call the tests would otherwise repeat; tests that check
how a result is built still build it themselves (or receive it through the code path they
check).
"""

import os

import pytest

# numba's parallel kernels run on GNU OpenMP, whose threads spin for a while after each parallel
# region before they sleep. The suite runs two xdist workers on two cores, each with two numba
# threads: a spinning thread takes the core that the other worker (or its own region's
# straggler) needs, and a test calling small parallel kernels thousands of times ran 10x slower
# beside another worker (tests/test_abstraction_emd_ochs.py's large-parent PA-EMD build: 104 s
# against 9 s with sleeping threads, the same results). Set before any kernel starts OpenMP;
# the CLI subprocesses the tests start inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# A command that waits for the catalog or for another writer's lock says so after 5 s; the
# tests that interrupt or race such a command wait for that line, so they hear it after 0.5 s.
os.environ.setdefault("POKER_WAIT_NOTE", "0.5")

#: Seconds each of the slowest test files took on a fresh clone (numba compiling included;
#: ``python -m pytest -n 2 --dist loadfile --durations=0``, summed per file, 2026-12-01, the
#: 2-core machine). The suite runs them first, longest first, so that the two xdist workers
#: end together instead of one finishing a long file while the other waits (xdist's default
#: order is by number of tests; ``--no-loadscope-reorder`` in pytest.ini keeps this one). The
#: order changes only how long the suite takes, never what it checks; files not listed follow
#: in collection order.
SLOWEST_FILES = {
    "test_solve_holdem_pcs.py": 176, "test_readme.py": 126, "test_data_safety.py": 119,
    "test_holdem_best_response.py": 99, "test_equity.py": 89, "test_holdem_curve.py": 81,
    "test_experiment_methods.py": 79, "test_compare.py": 60, "test_solve_ri_rules.py": 53,
    "test_abstraction_dask.py": 53, "test_abstraction_holdem_ochs.py": 52,
    "test_sql_at_real_cards.py": 41, "test_etl_indexes.py": 35, "test_share.py": 34,
    "test_etl_evaluator.py": 33, "test_attack_interrupt.py": 31,
    "test_abstraction_emd_ochs.py": 30, "test_etl_runner.py": 29, "test_classic_games.py": 26,
    "test_attack_integrity.py": 25, "test_concurrency.py": 24, "test_abstraction_strategy.py": 23,
    "test_scheduling.py": 23, "test_honest_lookups.py": 23,
}


#: Files whose tests compile the same large Hold'em kernels (``lbr_boards``, ``lbr_board``,
#: ``flop_values``, ``_backward``: 10 s, 6 s, 8 s, 2 s each on the 2-core machine). Under
#: ``--dist loadfile`` they are one unit of work, so one worker compiles each kernel once (two
#: workers each compiling them, side by side, cost 30 s more of the suite's CPU).
SHARED_KERNELS = ("test_holdem_best_response.py", "test_holdem_curve.py",
                  "test_solve_holdem_pcs.py")


def _seconds(name: str) -> int:
    """A file's place in the order: its own seconds, or its group's together."""
    if name in SHARED_KERNELS:
        return sum(SLOWEST_FILES.get(f, 0) for f in SHARED_KERNELS)
    return SLOWEST_FILES.get(name, 0)


def pytest_collection_modifyitems(items):
    """The slowest files first, longest first (a stable sort: every worker collects the same
    order, as xdist requires)."""
    items.sort(key=lambda item: -_seconds(item.path.name))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with the files of ``SHARED_KERNELS`` as one unit of work."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling  # lazy: only under xdist

    class SharedKernelsTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return "shared-kernels" if scope.rsplit("/", 1)[-1] in SHARED_KERNELS else scope

    return SharedKernelsTogether(config, log)


@pytest.fixture(scope="session")
def flop_equity_arrays():
    """``solve.games.classic.flop_equity()``: (counts, score) of flop poker's 169 x 169 hand
    classes (tests/test_classic_games.py checks them; read-only)."""
    from solve.games import classic

    return classic.flop_equity()


@pytest.fixture(scope="session")
def ri_lossless():
    """The lossless Rhode Island abstraction ``Lossless().fit(rhode_island())`` (read-only)."""
    from abstraction.games import rhode_island
    from abstraction.methods import Lossless

    return Lossless().fit(rhode_island())


@pytest.fixture(autouse=True)
def _library_settings(monkeypatch):
    """Each test starts and ends with this process's library settings as they were: an
    in-process ``cli.main`` sets them from the environment a test may have changed (game
    plug-ins, progress mode, ETL tables, catalog wait: ``queries.environment_cli``), and they
    must not leak into the next test when that environment is restored."""
    from etl import tables
    from schema import catalog, progress
    from solve.games import registry

    for module, name in ((registry, "_plugins"), (progress, "_forced"), (tables, "_override"),
                         (catalog, "_wait"), (catalog, "_note_after")):
        monkeypatch.setattr(module, name, getattr(module, name))
