"""Session-wide fixtures: expensive results that several test files only read, built once.

Each is built by the same production call the tests would otherwise repeat; tests that check
how a result is built still build it themselves (or receive it through the code path they
check).
"""

import pytest


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
                         (catalog, "_wait")):
        monkeypatch.setattr(module, name, getattr(module, name))
