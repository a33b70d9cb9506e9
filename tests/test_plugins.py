"""Issue 48: adding a game or an abstraction method is one module plus one registry line.

A game: Kuhn poker with four cards, one rules factory and one :class:`Game` line, registered
here (``POKER_GAME_PLUGINS``, which the CLI reads, names the module), then solved and
evaluated through the CLI. An abstraction method: a toy one (k-means on the cubed equity)
defined here and registered by one line in ``abstraction.methods.METHODS``, then built, solved
on and evaluated through the CLI."""

from __future__ import annotations

import textwrap

import pytest

import cli
from abstraction.features import EquityFeature
from abstraction.methods import METHODS, ExpectationBased
from queries import environment_cli

KUHN4 = textwrap.dedent('''
    from solve.games.backends import RulesBackend
    from solve.games.registry import Game
    from solve.games.rules import LimitPokerRules

    def kuhn4():
        """Kuhn poker with four cards J < Q < K < A."""
        return LimitPokerRules(name="kuhn4", n_ranks=4, n_suits=1, private_cards=1,
                               public_cards=(0,), bet_sizes=(1,), bet_caps=(1,),
                               contributions=(1, 1), first_to_act=(0,), ranking="high_card",
                               rank_symbols="JQKA")

    GAMES = [Game("kuhn4", "Kuhn poker with four cards", RulesBackend(kuhn4))]
''')


class ExpectationCubed(ExpectationBased):
    """A toy method: k-means on the cubed equity."""

    method = "eb3"

    def _features(self, hands, buckets):
        return EquityFeature(hands, 3)


def run(capsys, data_dir, *argv) -> str:
    rc = cli.main(["--data-dir", str(data_dir), *argv])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def test_a_game_in_one_module_is_solved_and_evaluated(tmp_path, monkeypatch, capsys):
    (tmp_path / "kuhn4_only.py").write_text(KUHN4)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(environment_cli.PLUGINS_ENV, "kuhn4_only")
    data = tmp_path / "data"
    out = run(capsys, data, "solve", "--game", "kuhn4", "--algorithm", "cfr+",
              "--iterations", "3000")
    assert "kuhn4-full-cfr+: game=kuhn4" in out
    out = run(capsys, data, "evaluate", "kuhn4-full-cfr+")
    assert "game=kuhn4" in out
    assert 0 < float(out.split("exploitability=")[1].split()[0]) < 1e-3
    out = run(capsys, data, "strategy", "kuhn4-full-cfr+", "--hole", "A")
    assert "player 1 to act" in out


def test_an_abstraction_method_in_one_place_is_built_solved_and_evaluated(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(METHODS, "eb3", ExpectationCubed)  # the one registry line
    with pytest.raises(SystemExit):
        cli.main(["build-abstraction", "--help"])
    assert "eb3" in capsys.readouterr().out
    out = run(capsys, tmp_path, "build-abstraction", "--game", "rhode-island", "--method", "eb3",
              "--buckets", "5,10,20", "--name", "ri-eb3")
    assert "ri-eb3" in out
    out = run(capsys, tmp_path, "solve", "--game", "rhode-island", "--abstraction", "ri-eb3",
              "--algorithm", "cfr+", "--iterations", "20", "--name", "ri-eb3-cfr")
    assert "abstraction=ri-eb3" in out
    out = run(capsys, tmp_path, "evaluate", "ri-eb3-cfr")
    assert "abstraction=ri-eb3" in out and "abstract_exploitability=" in out


def test_an_unregistered_method_is_refused(tmp_path, capsys):
    assert cli.main(["--data-dir", str(tmp_path), "build-abstraction", "--game", "rhode-island",
                     "--method", "eb3", "--buckets", "5,10,20"]) == 2
    assert capsys.readouterr().err.startswith("error: unknown method 'eb3'; choose from pa, ")
