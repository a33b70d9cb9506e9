"""Issue 48: games dispatch through the registry's backends, not through if-chains on labels.

Outside the game registry and the backends (and the modules that implement one game, which
may check that what they are given is of their game) no code asks which kind of game it holds:
no comparison with ``.representation``, no comparison of a value with a game's name. Checked
on the source (AST) of every library, CLI and bench module."""

from __future__ import annotations

import ast
from pathlib import Path

from abstraction import games as card_games
from solve.games import registry

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schema", "etl", "abstraction", "solve", "queries", "bench")

#: The registry and the backends: where a game's name and kind are the subject.
REGISTRY = {
    "solve/games/registry.py",   # the game registry
    "solve/games/backend.py",    # the backend protocol
    "solve/games/backends.py",   # the backends of the solve layer
    "abstraction/games.py",      # the card games of the abstraction layer (below solve)
}
#: Modules that implement one game: comparing a value with their own game's name there is a
#: check of their input (an abstraction or a run of that game), not a dispatch.
ONE_GAME = {"solve/holdem/", "solve/games/kuhn3.py", "queries/holdem_compare.py",
            "abstraction/holdem.py", "etl/rhode_island.py"}


def sources():
    files = [ROOT / "cli.py"] + [f for p in PACKAGES for f in sorted((ROOT / p).rglob("*.py"))]
    for f in files:
        rel = f.relative_to(ROOT).as_posix()
        yield rel, ast.parse(f.read_text(), filename=rel)


def _strings(node) -> list[str]:
    """The string constants ``node`` is (a constant) or holds (a tuple, list or set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e)]
    return []


def dispatches(trees, game_names) -> list[str]:
    """``file:line`` and what it compares, for every comparison with ``.representation`` or
    with a game's name in ``trees`` ((relative path, AST) pairs)."""
    bad = []
    for rel, tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Attribute) and o.attr == "representation" for o in operands):
                bad.append(f"{rel}:{node.lineno} compares .representation")
                continue
            names = sorted({s for o in operands for s in _strings(o)} & set(game_names))
            if names:
                bad.append(f"{rel}:{node.lineno} compares with game name {', '.join(names)}")
    return bad


def allowed(rel: str) -> bool:
    return rel in REGISTRY or any(rel == m or (m.endswith("/") and rel.startswith(m))
                                  for m in ONE_GAME)


def test_no_dispatch_on_game_kinds_or_names_outside_the_registry():
    bad = dispatches([(rel, t) for rel, t in sources() if not allowed(rel)], registry.names())
    assert not bad, "\n".join(bad)


def test_a_planted_dispatch_is_caught():
    planted = ast.parse(
        "def f(spec, game, g):\n"
        "    if spec.representation == 'tree':\n        pass\n"
        "    if game != 'rhode-island':\n        pass\n"
        "    if g.name in ('kuhn', 'leduc'):\n        pass\n"
        "    if 'holdem' == game:\n        pass\n"
        "    return game == 'chess' or game == other\n")
    assert dispatches([("solve/planted.py", planted)], registry.names()) == [
        "solve/planted.py:2 compares .representation",
        "solve/planted.py:4 compares with game name rhode-island",
        "solve/planted.py:6 compares with game name kuhn, leduc",
        "solve/planted.py:8 compares with game name holdem"]


def test_the_card_games_are_the_registry_games_with_card_abstractions():
    """The abstraction layer's card games (below ``solve``, so a table of its own) are the
    registry's games that take card abstractions, no more, no fewer."""
    assert set(card_games.GAMES) == set(registry.names(lambda g: g.card_abstractions))


def test_every_backend_loads_what_it_stored(tmp_path, capsys):
    """Store a strategy through the CLI, then load it back through the game's backend (the
    protocol's load): a compiled table, a tree table (of a classic game and of a rules game
    solved on its tree) and three-player Kuhn's."""
    import numpy as np

    import cli
    from solve.strategy import Strategy
    from solve.table import strategy_path, table_format, table_game

    for argv, name in ((["--game", "kuhn", "--algorithm", "lp"], "kuhn-full-lp"),
                       (["--game", "kuhn", "--algorithm", "lp", "--exact"], "kuhn-lp-exact"),
                       (["--game", "kuhn-blinds", "--algorithm", "lp"], "kuhn-blinds-1-1-lp"),
                       (["--game", "kuhn3", "--iterations", "10"], "kuhn3-full-cfr+")):
        assert cli.main(["--data-dir", str(tmp_path), "solve", *argv]) == 0, capsys.readouterr()
        path = strategy_path(tmp_path, name)
        fmt = table_format(path)
        game = registry.for_table(path, table_game(path, fmt), fmt)
        got = game.backend.load(game, path, fmt, tmp_path)
        if fmt == "compiled":
            assert isinstance(got, Strategy) and got.game.n_infosets == 12
        elif fmt == "tree":
            tree, sf, x, y = got
            assert x[0] == y[0] == 1.0  # realization plans: the empty sequence has weight 1
        else:
            assert np.allclose(got.sum(axis=2)[got.sum(axis=2) > 0], 1.0)
    capsys.readouterr()
