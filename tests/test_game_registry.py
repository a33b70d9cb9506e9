"""The game registry (issue 16): one table of games; a new limit game joins in one place and is
solved, evaluated and compared through the CLI; Kuhn and Leduc are defined once."""

from fractions import Fraction
import textwrap

import pytest

import cli
from queries import environment_cli
from solve.games import registry
from solve.games.backends import RulesBackend
from solve.games.compile import compile_game
from solve.games.limit_tree import limit_tree
from solve.games.rules import LimitPokerRules, kuhn, leduc
from solve.games.tree import sequence_form
from solve.algorithms.lp import solve_lp as solve_compiled
from solve.algorithms.lp_exact import solve_exact

# The whole of adding a game: a rules factory and one registry line, in one module.
PLUGIN = textwrap.dedent('''
    from solve.games.backends import RulesBackend
    from solve.games.registry import Game
    from solve.games.rules import LimitPokerRules

    def kuhn4():
        """Kuhn poker with four cards J < Q < K < A."""
        return LimitPokerRules(name="kuhn4", n_ranks=4, n_suits=1, private_cards=1,
                               public_cards=(0,), bet_sizes=(1,), bet_caps=(1,),
                               contributions=(1, 1), first_to_act=(0,), ranking="high_card",
                               rank_symbols="JQKA")

    GAMES = [Game("kuhn4", "Kuhn poker with four cards", RulesBackend(kuhn4), compare=True)]
''')


@pytest.fixture
def kuhn4(tmp_path, monkeypatch):
    (tmp_path / "kuhn4_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(environment_cli.PLUGINS_ENV, "kuhn4_plugin")  # what cli.main reads
    monkeypatch.setattr(registry, "_plugins", ("kuhn4_plugin",))  # the library, directly
    return tmp_path / "data"


def run(capsys, data_dir, *argv):
    rc = cli.main(["--data-dir", str(data_dir), *argv])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def test_a_new_limit_game_is_solved_evaluated_and_compared_through_the_cli(kuhn4, capsys):
    assert "kuhn4" in registry.names() and "kuhn4" in registry.names(lambda g: g.compare)
    out = run(capsys, kuhn4, "solve", "--game", "kuhn4", "--algorithm", "lp")
    assert "kuhn4-full-lp: game=kuhn4" in out and "value=-0.0416667" in out
    out = run(capsys, kuhn4, "solve", "--game", "kuhn4", "--algorithm", "cfr+",
              "--iterations", "2000")
    assert "iterations=2000" in out
    # the sequence-form solvers on the tree made from the same rules
    out = run(capsys, kuhn4, "solve", "--game", "kuhn4", "--algorithm", "lp", "--exact")
    assert "value (exact, simplex) = -1/24" in out
    run(capsys, kuhn4, "solve", "--game", "kuhn4", "--algorithm", "egt", "--iterations", "100")
    out = run(capsys, kuhn4, "evaluate", "kuhn4-full-cfr+")
    expl = float(out.split("exploitability=")[1].split()[0])
    assert 0 < expl < 1e-3
    out = run(capsys, kuhn4, "evaluate", "kuhn4-egt")
    assert "game=kuhn4" in out
    out = run(capsys, kuhn4, "compare", "--game", "kuhn4", "kuhn4-full-cfr+", "--no-progress")
    assert "kuhn4-full-lp" in out and "kuhn4-full-cfr+" in out  # the LP is the reference
    assert "-0.04167" in out  # the game value, -1/24


def test_unknown_game_and_broken_plugin_are_one_line_errors(tmp_path, capsys, monkeypatch):
    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "kuhn4"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown game 'kuhn4'; choose from kuhn, ") and err.count("\n") == 1
    monkeypatch.setenv(environment_cli.PLUGINS_ENV, "no_such_module_here")
    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "kuhn"]) == 2
    err = capsys.readouterr().err
    assert "cannot load games from 'no_such_module_here'" in err and err.count("\n") == 1


def test_registry_entries_are_validated():
    with pytest.raises(ValueError, match="backend must be"):
        registry.Game("x", "x", "chess")
    with pytest.raises(ValueError, match="backend must be"):
        registry.Game("x", "x", kuhn)
    with pytest.raises(ValueError, match="reference"):
        registry.Game("x", "x", RulesBackend(kuhn), reference="exact")
    with pytest.raises(ValueError, match="not defined by limit poker rules"):
        registry.get("kuhn-blinds").make_rules()
    assert len(set(registry.names())) == len(registry.names())


@pytest.mark.parametrize("rules, value", [(kuhn(), Fraction(-1, 18)), (
    LimitPokerRules(name="kuhn4", n_ranks=4, n_suits=1, private_cards=1, public_cards=(0,),
                    bet_sizes=(1,), bet_caps=(1,), contributions=(1, 1), first_to_act=(0,),
                    ranking="high_card", rank_symbols="JQKA"), Fraction(-1, 24))])
def test_generic_tree_and_compiled_game_of_the_same_rules_agree(rules, value):
    # two representations made from one definition: same value, same information sets
    tree = limit_tree(rules)
    assert solve_exact(sequence_form(tree))[2] == value
    game = compile_game(rules)
    assert solve_compiled(game)[1] == pytest.approx(float(value), abs=1e-12)
    assert tree.n_infosets == game.n_infosets


def test_leduc_tree_from_rules_has_the_published_size():
    # Leduc as a generic tree: 288 information sets (144 per player; the LP's 337 sequences
    # per player), named by rank (suits change nothing in Leduc)
    tree = limit_tree(leduc())
    assert tree.n_infosets == 288 and tree.n_nodes == 9451
    assert "JQ|cc/" in tree.info_label and not any("a" in lab.split("|")[0] for lab in tree.info_label)
