"""compare (issue 5): the four measures on Kuhn and Leduc, their storage and SQL views."""

import contextlib

import pytest
from leduc_buckets import LEDUC_VALUE, leduc_coarse, leduc_lossless

import cli
from queries import experiment
from queries.compare import compare, evaluate
from queries.limit_support import LimitPokerSupport
from queries.support import Options
from queries.views import connect, create_views
from solve.abstractions import FunctionAbstraction
from solve.algorithms.cfr import CFRSolver
from solve.algorithms.evaluate import expected_value, exploitability
from solve.games.compile import compile_game
from solve.games.rules import kuhn, leduc
from solve.algorithms.lp import solve_lp
from solve.runs import store_strategy
from schema.errors import UserError

KUHN_VALUE = -1 / 18


def store_cfr(data_dir, game_name, rules, iterations, name, abstraction=None):
    g = compile_game(rules, abstraction)
    s = CFRSolver(g, "cfr").iterate(iterations).average_strategy()
    store_strategy(data_dir, name, s, game_name, g.abstraction, "cfr", iterations, 0.0,
           exploitability(g, s), exploitability(g, s, abstract=True) if abstraction else None,
           expected_value(g, s))
    return name


def sql(data_dir, query):
    create_views(data_dir)
    with connect(data_dir, read_only=True) as con:
        return con.execute(query).fetchall()


@pytest.fixture
def kuhn_dir(tmp_path):
    store_cfr(tmp_path, "kuhn", kuhn(), 5, "k5")
    store_cfr(tmp_path, "kuhn", kuhn(), 40, "k40")
    return tmp_path


def test_head_to_head_with_itself_is_zero_and_antisymmetric(kuhn_dir):
    sup = LimitPokerSupport("kuhn", kuhn_dir)
    v, lo, hi, exact = sup.head_to_head("k5", "k5")
    assert exact and lo is None and hi is None
    assert v == pytest.approx(0.0, abs=1e-12)
    ab = sup.head_to_head("k5", "k40")[0]
    assert ab == pytest.approx(-sup.head_to_head("k40", "k5")[0], abs=1e-12)
    assert abs(ab) > 1e-4  # the two profiles differ; seats averaged, not trivially 0


def test_compare_kuhn_views_match_catalog_and_rerun_reuses(kuhn_dir):
    opts = Options(progress=False)
    res = compare(LimitPokerSupport("kuhn", kuhn_dir), ["k5", "k40"], opts, kuhn_dir)
    assert res["equilibrium"] == "kuhn-full-lp"
    names = {"k5", "k40", "kuhn-full-lp"}
    # every stored row is in a view; the views hold what the catalog holds
    (n_cat,) = sql(kuhn_dir, "SELECT count(*) FROM evaluations")[0]
    (n_view,) = sql(kuhn_dir, "SELECT count(*) FROM evaluation_results")[0]
    (n_file,) = sql(kuhn_dir, "SELECT count(*) FROM read_parquet('evaluations/*.parquet')")[0]
    assert n_cat == n_view == n_file
    # 3 strategies: 2 best responses + exploitability + value each, 2 vs equilibrium,
    # 3 pairs, 1 game value
    assert n_cat == 3 * 4 + 2 + 3 + 1
    assert {r[0] for r in sql(kuhn_dir, "SELECT strategy FROM exploitability")} == names
    assert len(sql(kuhn_dir, "SELECT * FROM head_to_head")) == 6
    assert {r[0] for r in sql(kuhn_dir, "SELECT strategy FROM vs_equilibrium")} == {"k5", "k40"}
    assert {r[0] for r in sql(kuhn_dir, "SELECT strategy FROM value_error")} == names
    (gv,) = sql(kuhn_dir, "SELECT game_value FROM game_values WHERE game = 'kuhn'")[0]
    assert gv == pytest.approx(KUHN_VALUE, abs=1e-9)
    # exploitability of the exact equilibrium is about 0, per seat and averaged
    s1, s2, mean = sql(kuhn_dir, "SELECT exploitability_seat1, exploitability_seat2, exploitability "
                                 "FROM exploitability WHERE strategy = 'kuhn-full-lp'")[0]
    assert max(abs(s1), abs(s2), abs(mean)) < 1e-9
    # per-seat gains are >= 0 and average to the exploitability
    for a, b, m in sql(kuhn_dir, "SELECT exploitability_seat1, exploitability_seat2, "
                                 "exploitability FROM exploitability"):
        assert a > -1e-9 and b > -1e-9 and (a + b) / 2 == pytest.approx(m, abs=1e-9)
    # nothing is recomputed on a re-run
    sup = LimitPokerSupport("kuhn", kuhn_dir)
    assert evaluate(sup, ["k5", "k40"], "kuhn-full-lp", kuhn_dir, progress=False) == 0
    # the matrix view
    row = dict(sql(kuhn_dir, "SELECT strategy, row FROM head_to_head_matrix"))
    assert set(row["k5"]) == {"k40", "kuhn-full-lp"}


def test_leduc_equilibrium_and_lossless_value_error(tmp_path):
    lossless = FunctionAbstraction("leduc-lossless", leduc_lossless)
    coarse = FunctionAbstraction("leduc-coarse", leduc_coarse)
    for ab in (lossless, coarse):
        g = compile_game(leduc(), ab)
        s, v = solve_lp(g)
        store_strategy(tmp_path, f"{ab.name}-lp", s, "leduc", ab.name, "lp", 0, 0.0, exploitability(g, s),
               exploitability(g, s, abstract=True), v)
    sup = LimitPokerSupport("leduc", tmp_path, abstractions={a.name: a for a in (lossless, coarse)})
    compare(sup, ["leduc-lossless-lp", "leduc-coarse-lp"], Options(progress=False), tmp_path)
    err = dict(sql(tmp_path, "SELECT strategy, abs_error FROM value_error"))
    assert err["leduc-lossless-lp"] < 1e-9  # a lossless abstraction keeps the value
    assert err["leduc-full-lp"] < 1e-9
    assert err["leduc-coarse-lp"] > 1e-3
    (gv,) = sql(tmp_path, "SELECT game_value FROM game_values")[0]
    assert gv == pytest.approx(LEDUC_VALUE, abs=1e-9)
    expl = dict(sql(tmp_path, "SELECT strategy, exploitability FROM exploitability"))
    assert expl["leduc-full-lp"] < 1e-9 and expl["leduc-lossless-lp"] < 1e-9
    assert expl["leduc-coarse-lp"] > 1e-2
    vs = dict(sql(tmp_path, "SELECT strategy, value FROM vs_equilibrium"))
    assert vs["leduc-lossless-lp"] == pytest.approx(0.0, abs=1e-9)
    assert vs["leduc-coarse-lp"] < 0


def test_unknown_strategy_is_one_line_error_and_writes_nothing(kuhn_dir, capsys):
    before = sql(kuhn_dir, "SELECT name FROM solve_runs ORDER BY 1")
    code = cli.main(["--data-dir", str(kuhn_dir), "compare", "--game", "kuhn", "k5", "nope",
                     "--no-progress", "--report", str(kuhn_dir / "report")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith("error: ") and "nope" in err and "\n" not in err
    assert not (kuhn_dir / "evaluations").exists() and not (kuhn_dir / "report").exists()
    assert sql(kuhn_dir, "SELECT count(*) FROM evaluations")[0][0] == 0
    assert sql(kuhn_dir, "SELECT name FROM solve_runs ORDER BY 1") == before  # no LP solved


def test_strategy_of_another_game_is_refused(kuhn_dir, capsys):
    code = cli.main(["--data-dir", str(kuhn_dir), "compare", "--game", "leduc", "k5", "--no-progress"])
    assert code == 2 and "is for kuhn" in capsys.readouterr().err


def test_cli_compare_prints_tables_and_report(kuhn_dir, capsys):
    report = kuhn_dir / "rep"
    code = cli.main(["--data-dir", str(kuhn_dir), "compare", "--game", "kuhn", "k5", "k40",
                     "--no-progress", "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0
    for title in ("Exploitability", "Head-to-head", "equilibrium", "Value"):
        assert title in out
    text = (report / "README.md").read_text()
    assert "kuhn-full-lp" in text and "| strategy |" in text


def test_winners_skip_granularities_without_a_contest():
    from queries.report import winners

    def row(method, buckets, expl, board="hidden"):
        return {"method": method, "buckets": buckets, "exploitability": expl, "board": board,
                "h2h_same_granularity": 0.0, "vs_equilibrium": -expl, "value_error": expl / 10}

    # lossless has pa's buckets but sees the board: no contest with the hidden-board ones
    rows = [row("eb", "2,4", 3.0), row("pa", "2,4", 2.0), row("lossless", "2,4", 0.1, "public"),
            row("eb", "3,9", 1.0, "public"), row("pa", "3,9", 0.5, "public")]
    w = winners(rows)
    assert [x["buckets"] for x in w] == ["2,4", "3,9 (board public)"]
    assert w[0]["exploitability"] == "pa (2)" and w[1]["exploitability"] == "pa (0.5)"


def test_strategies_and_checkpoints_of_an_earlier_build_are_not_used(tmp_path, capsys):
    # build-abstraction --replace renumbers buckets: what was solved before must not be reused
    import datetime as dt
    import os

    from queries.limit_support import RhodeIslandSupport
    from schema.catalog import session_scope
    from schema.catalog_abstraction import Abstraction
    from schema.catalog_solve import SolveRun
    from solve.abstractions import load_abstraction, predates, refuse_stale_checkpoint

    assert cli.main(["--data-dir", str(tmp_path), "build-abstraction", "--game", "rhode-island",
                     "--method", "eb", "--buckets", "13,20,40", "--name", "ab",
                     "--n-init", "1"]) == 0
    with session_scope(tmp_path) as s:
        built = s.get(Abstraction, "ab").created
    table = tmp_path / "old.parquet"
    table.write_bytes(b"stand-in: only its existence is checked before a strategy is chosen")

    def add_run(created):
        with session_scope(tmp_path) as s:
            s.merge(SolveRun(name="ab-run", game="rhode-island", abstraction="ab",
                             algorithm="cfr+", iterations=10, wall_seconds=1.0,
                             exploitability=5.0, abstract_exploitability=0.5, value=0.0,
                             path=str(table), sha256="0" * 64, created=created))

    support = RhodeIslandSupport(tmp_path)
    options = Options(target=1.0, report_only=True, progress=False)
    add_run(built - dt.timedelta(seconds=1))
    with pytest.raises(UserError, match="no stored strategy"):
        support.ensure_strategy(support.resolve(["ab"])[0], options)
    with pytest.raises(UserError, match="predates abstraction 'ab'"):
        support.resolve(["ab-run"])
    add_run(built + dt.timedelta(seconds=1))
    assert support.ensure_strategy(support.resolve(["ab"])[0], options) == "ab-run"

    ab = load_abstraction("ab", "rhode-island", tmp_path)
    ckpt = tmp_path / "checkpoint.npz"
    ckpt.write_bytes(b"")
    os.utime(ckpt, (ab.created - 5, ab.created - 5))
    assert predates(ckpt, ab.created)
    with pytest.raises(UserError, match="cannot resume 'r': its checkpoint predates abstraction"):
        refuse_stale_checkpoint(ckpt, ab.created, "r", "ab")  # solve --resume, both games
    os.utime(ckpt, (ab.created + 5, ab.created + 5))
    assert not predates(ckpt, ab.created) and not predates(ckpt, None)


def test_holdem_strategy_of_an_earlier_build_is_not_reused(tmp_path, monkeypatch):
    import datetime as dt

    from queries.holdem_compare import HoldemSupport
    from schema.catalog import session_scope
    from schema.catalog_abstraction import Abstraction
    from schema.catalog_solve import SolveRun
    from schema.errors import UserError
    from solve.holdem import run as holdem_solve

    built = dt.datetime(2026, 1, 1, 12)
    with session_scope(tmp_path) as s:
        s.merge(Abstraction(name="hp", method="pa", game="holdem", buckets="2,4,8,16",
                            built="2,4,8,16", seed=0, params="{}", errors="[]", timings="{}",
                            code_version="x", path=str(tmp_path), created=built))
        s.merge(SolveRun(name="old", game="holdem", abstraction="hp", algorithm="cfr+",
                         iterations=1, wall_seconds=1.0, exploitability=None,
                         abstract_exploitability=None, value=0.0, path=str(tmp_path),
                         sha256="0" * 64, created=built - dt.timedelta(minutes=1)))
    support = HoldemSupport(tmp_path)
    with pytest.raises(UserError, match="predates abstraction 'hp'"):
        support.resolve(["old"])
    solved = []
    monkeypatch.setattr(holdem_solve, "solve_holdem", lambda opts, data_dir: solved.append(opts.abstraction))
    # the only run is of an earlier build: a new one is solved instead of reusing it
    assert (support.ensure_strategy(support.resolve(["hp"])[0], Options())
            == "holdem-hp-pcs-plus-h64")
    assert solved == ["hp"]


def test_parallel_solves_store_what_sequential_solves_store(tmp_path):
    # --jobs 2: each abstract game solved in its own process, stored as a sequential solve
    # stores it (same iterations, same table, bit for bit)
    from queries.compare import game_support
    from queries.limit_support import RhodeIslandSupport
    from queries.parallel_solve import solve_parallel

    names = ["eb", "eb2"]
    dirs = {jobs: tmp_path / f"jobs{jobs}" for jobs in (1, 2)}
    for d in dirs.values():
        for method in names:
            assert cli.main(["--data-dir", str(d), "build-abstraction", "--game", "rhode-island",
                             "--method", method, "--buckets", "13,20,40", "--name", method,
                             "--n-init", "1", "--seed", "3"]) == 0
    options = Options(target=1e-9, iterations=20, check_every=10, progress=False)
    done = solve_parallel(game_support, "rhode-island", dirs[2],
                          [(n, options) for n in names] + [("eb", options)], jobs=2,
                          progress=False)
    assert sorted(done) == names
    seq = RhodeIslandSupport(dirs[1])
    for n in names:
        seq.ensure_strategy(seq.resolve([n])[0], options)
    par = RhodeIslandSupport(dirs[2])
    for n in names:
        assert done[n] == f"rhode-island-{n}-dcfr"
        assert par.sha(done[n]) == seq.sha(done[n])
        assert par._runs()[done[n]]["iterations"] == 20


def test_parallel_builds_store_what_sequential_builds_store(tmp_path, capsys):
    # the experiment's --jobs 2: each abstraction built in its own process, stored as the
    # CLI stores it (the same buckets); a worker's bad build is raised here
    from abstraction.store import load_buckets
    from queries.builds import build_abstraction
    from queries.parallel_solve import build_parallel

    tasks = [("a", dict(method="pa", buckets="13,20,40", seed=3)),
             ("b", dict(method="eb", buckets="13,20,40", seed=3, recall="imperfect"))]
    build_parallel(tmp_path / "par", tasks, jobs=2, progress=False)
    for name, kwargs in tasks:
        build_abstraction(tmp_path / "seq", name=name, **kwargs)
        for r in range(3):
            assert load_buckets(name, r, tmp_path / "par").equals(
                load_buckets(name, r, tmp_path / "seq"))
    assert "built a" in capsys.readouterr().err
    with pytest.raises(UserError, match="exists"):
        build_parallel(tmp_path / "par", tasks[:1], jobs=2, progress=False)


def test_side_by_side_pairs_the_hidden_and_public_runs_of_each_build(monkeypatch):
    """The published-setting report's table of both settings: one row per (granularity,
    method) with the hidden-board and the public-board strategy's measures, nothing when only
    one setting has been run."""
    rows = [("eb", "13,25,125", "hidden", 228.8, -26.23), ("eb", "13,25,125", "public", 55.2, -15.8),
            ("pa", "13,25,125", "public", 67.77, -18.2)]

    class Con:
        def __init__(self, rows):
            self.rows = rows

        def execute(self, sql, params):
            assert params == ["rhode-island", list(experiment.RI_METHODS)] and "abstraction_summary" in sql
            return self

        def fetchall(self):
            return self.rows

    monkeypatch.setattr(experiment, "connect",
                        lambda *a, **k: contextlib.nullcontext(Con(rows)))
    md = experiment.side_by_side("unused", "rhode-island")
    assert md[0] == "## The two settings side by side"
    assert "| 13,25,125 | eb | 228.8 | 55.2 | -26.23 | -15.8 |" in md
    assert "| 13,25,125 | pa | - | 67.77 | - | -18.2 |" in md
    monkeypatch.setattr(experiment, "connect",
                        lambda *a, **k: contextlib.nullcontext(Con(rows[1:])))
    assert experiment.side_by_side("unused", "rhode-island") == []


def test_compare_stores_the_pairwise_head_to_head(tmp_path):
    """compare computes every pair from one matrix (head_to_head_many); each stored value is
    the pairwise pass's."""
    for it in (3, 9, 27):
        store_cfr(tmp_path, "leduc", leduc(), it, f"l{it}")
    sup = LimitPokerSupport("leduc", tmp_path)
    compare(sup, ["l3", "l9", "l27"], Options(progress=False), tmp_path)
    rows = sql(tmp_path, "SELECT strategy, opponent, value FROM head_to_head")
    assert len(rows) == 12  # the three strategies and the LP equilibrium, both orientations
    for a, b, v in rows:
        assert v == pytest.approx(sup.head_to_head(a, b)[0], abs=1e-12)
