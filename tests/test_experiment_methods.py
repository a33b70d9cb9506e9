"""``experiment rhode-island-granularity`` with the methods of issue 20 (item 5): the
strategy-based (GS4) builds clustered by the lossless game's strategy, solved first; the
imperfect-recall builds (``METHOD-ir``) solved by CFR on the public tree; information sets
counted in the report; bad tokens refused in one line; a re-run reusing everything.

Small inputs: one coarse granularity (3,6,12), two iterations per solve, and a stand-in
stored under the lossless abstraction's name (the real one, 13,205,1774 classes played with
the public board, takes a minute to solve even for two iterations and half a minute to read
strategy vectors from): the experiment reuses whatever is stored under that name.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json

import numpy as np
import pytest

import cli_inprocess
from abstraction import store
from queries import experiment
from queries.builds import build_abstraction
from queries.limit_support import RhodeIslandSupport
from queries.lossless_reference import plays_in
from queries.views import connect
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from schema.catalog_solve import SolveRun

GRANULARITY = "3,6,12"
SOURCE = "rhode-island-rhode-island-lossless-full-dcfr"  # the lossless abstraction's strategy
LOSSLESS_HIDDEN_REF = "rhode-island-rhode-island-lossless-hidden-dcfr"  # its equilibrium
ARGS = ("experiment", "rhode-island-granularity", "--methods", "eb,strategy,eb-ir",
        "--iterations", "2", "--check-every", "1", "--equilibrium", SOURCE, "--no-progress",
        "--reference", "lossless-hidden", "--equilibrium-iterations", "2")


def _cli(data_dir, *args) -> tuple[int, str, str]:
    """``cli.py`` in this process (``cli_inprocess``): (exit status, stdout, stderr)."""
    proc = cli_inprocess.run(["--data-dir", str(data_dir), *args])
    return proc.returncode, proc.stdout, proc.stderr


def _run(data_dir, *extra) -> tuple[int, str, str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(experiment, "RI_GRANULARITIES", (GRANULARITY,))
        mp.setenv("POKER_DATA_DIR", str(data_dir))
        return _cli(data_dir, *ARGS, "--report", str(data_dir / "report"), *extra)


def _stamps(data_dir) -> tuple[dict, dict]:
    """(abstraction -> created, strategy -> created)."""
    sup = RhodeIslandSupport(data_dir)
    return ({n: a["created"] for n, a in sup._abstractions().items()},
            {n: r["created"] for n, r in sup._runs().items()})


def _row(md: str, abstraction: str) -> dict:
    """The per-abstraction table's row of ``abstraction`` (name without the game prefix)."""
    lines = md.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| abstraction | method |"))
    cols = [c.strip() for c in lines[head].strip("|").split("|")]
    for line in lines[head + 2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == abstraction:
            return dict(zip(cols, cells))
    raise AssertionError(f"no row {abstraction} in the report")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("ri-granularity")
    with contextlib.redirect_stdout(io.StringIO()):
        build_abstraction(d, "eb", "13,25,125", experiment.LOSSLESS, seed=0)  # the stand-in
    rc, out, err = _run(d)
    assert rc == 0, err
    return d, out, err


def test_strategy_and_imperfect_recall_go_through_the_experiment(run_dir):
    d, out, err = run_dir
    b = GRANULARITY.replace(",", "-")
    rows = {r["name"]: r for r in store.list_abstractions(d)}
    assert rows[f"rhode-island-eb-ir-{b}"]["perfect_recall"] is False
    assert rows[f"rhode-island-eb-{b}"]["perfect_recall"] is True
    sup = RhodeIslandSupport(d)
    with session_scope(d) as s:
        gs4 = s.get(Abstraction, f"rhode-island-strategy-{b}")
        assert json.loads(gs4.params)["from_strategy"] == SOURCE
    runs = sup._runs()
    # the lossless game solved first (GS4 read it), like every abstract game (2 iterations)
    assert runs[SOURCE]["abstraction"] == experiment.LOSSLESS
    assert runs[SOURCE]["iterations"] == 2
    ir = runs[f"rhode-island-rhode-island-eb-ir-{b}-dcfr"]
    assert ir["algorithm"] == "dcfr" and ir["iterations"] == 2
    assert ir["exploitability"] is not None and ir["abstract_exploitability"] is not None

    md = (d / "report" / "README.md").read_text()
    assert "(eb, strategy, eb-ir)" in md.splitlines()[0]
    eb, eb_ir, gs = (_row(md, f"{m}-{b}") for m in ("eb", "eb-ir", "strategy"))
    assert (eb["method"], eb_ir["method"], gs["method"]) == ("eb", "eb-ir", "strategy")
    for r in (eb, eb_ir, gs):
        assert r["exploitability"] != "-" and r["vs_equilibrium"] != "-"
    # information sets of the abstract game, exactly: the compiled game's count
    for name, r in ((f"rhode-island-eb-ir-{b}", eb_ir), (f"rhode-island-eb-{b}", eb)):
        game = sup.compile(name)
        assert int(r["infosets"]) == game.n_infosets
        # one per betting history and bucket sequence (perfect recall: a round's buckets are
        # nested, so as many sequences as buckets; imperfect: the round's own bucket)
        built = [int(x) for x in r["built"].split(",")]
        hist = game.infoset_histories()
        histories = [len(set(hist[game.info_round == rnd])) for rnd in range(3)]
        assert game.n_infosets == sum(h * k for h, k in zip(histories, built))
    assert f"clustered the hands by their play in strategy `{SOURCE}`" in md
    assert "| buckets | infosets |" in md  # the winners table
    assert "Imperfect-recall abstractions" in md and "at most 2 iterations" in md


def test_rerun_reuses_every_build_and_strategy(run_dir):
    d = run_dir[0]
    before = _stamps(d)
    rc, out, err = _run(d)
    assert rc == 0, err
    assert _stamps(d) == before
    assert "solved " not in err and " on rhode-island, buckets " not in out and "rebuilt" not in out


def test_strategy_build_follows_its_source(run_dir):
    """A GS4 build older than the last solve of the strategy it read is rebuilt (and solved
    again); --report-only rebuilds nothing."""
    d = run_dir[0]
    b = GRANULARITY.replace(",", "-")
    gs4 = f"rhode-island-strategy-{b}"
    abstractions, runs = _stamps(d)
    with session_scope(d) as s:  # as if the lossless game had been solved again
        run = s.get(SolveRun, SOURCE)
        run.created = max(abstractions.values()) + dt.timedelta(seconds=1)
    rc, out, err = _run(d, "--report-only")
    assert rc == 0, err
    assert _stamps(d)[0] == abstractions
    rc, out, err = _run(d)
    assert rc == 0, err
    assert f"{gs4}: rebuilt, from {SOURCE} (solved again since it was built)" in out
    after_ab, after_runs = _stamps(d)
    assert after_ab[gs4] > abstractions[gs4]
    assert {n: t for n, t in after_ab.items() if n != gs4} == \
        {n: t for n, t in abstractions.items() if n != gs4}
    strategy = f"rhode-island-{gs4}-dcfr"
    assert after_runs[strategy] > runs[strategy]  # of the new build: solved again
    assert f"solved {strategy}" in err and err.count("solved ") == 1


@pytest.mark.parametrize("argv, starts", [
    (("rhode-island-granularity", "--methods", "eb,pa-ir"),
     "--methods: pa has no imperfect-recall build; the -ir methods are eb-ir, pa-emd-ir, "
     "ochs-ir"),
    (("rhode-island-granularity", "--methods", "eb,bogus"),
     "--methods: unknown or unusable method bogus; choose from pa, eb, eb2, pa-emd, ochs, "
     "strategy, eb-ir, pa-emd-ir, ochs-ir"),
    (("rhode-island-granularity", "--methods", "lossless"),
     "--methods: unknown or unusable method lossless"),
    (("rhode-island-granularity", "--methods", " , "),
     "--methods: unknown or unusable method (none)"),
    (("rhode-island-granularity-public", "--methods", "eb,ochs-ir"),
     "--methods: ochs-ir (imperfect recall) is built with the board hidden"),
    (("rhode-island-granularity", "--methods", "eb-ir", "--ir-iterations", "0"),
     "--ir-iterations must be at least 1"),
])
def test_bad_methods_fail_in_one_line_before_any_work(tmp_path, monkeypatch, argv, starts):
    monkeypatch.setenv("POKER_DATA_DIR", str(tmp_path))
    rc, out, err = _cli(tmp_path, "experiment", *argv)
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2 and len(lines) == 1 and lines[0].startswith(f"error: {starts}"), err
    assert not (tmp_path / "abstractions").exists()


def test_method_tokens():
    assert experiment.parse_methods(None) == experiment.RI_METHODS
    assert experiment.parse_methods(" eb, eb-ir ,strategy,eb") == ("eb", "eb-ir", "strategy")
    assert experiment.split_method("pa-emd-ir") == ("pa-emd", "imperfect")
    assert experiment.split_method("pa-emd") == ("pa-emd", "perfect")
    # the name build-abstraction --recall imperfect gives by default
    assert experiment.ri_name("eb-ir", "13,25,125") == "rhode-island-eb-ir-13-25-125"
    assert "eb-ir" not in experiment.method_tokens(public_board=True)


# --------------------------------------------------------------------------- issue 49, part 1


def test_reference_lossless_hidden_measures_in_the_thesis_setting(run_dir):
    """``--reference lossless-hidden``: the equilibrium of the lossless classes played with the
    board hidden (here the stand-in's classes) is solved and is the reference; the nemesis is
    restricted to that game's information sets; the report has the thesis's table and the
    three settings side by side."""
    d = run_dir[0]
    runs = RhodeIslandSupport(d)._runs()
    ref = runs[LOSSLESS_HIDDEN_REF]
    assert ref["abstraction"] == "rhode-island-lossless-hidden" and ref["iterations"] == 2
    with connect(d, read_only=True) as con:
        own_value = con.execute("SELECT value FROM solve_runs WHERE name = ?",
                                [LOSSLESS_HIDDEN_REF]).fetchone()[0]
        rel = con.execute("SELECT * FROM lossless_measures")
        cols = [c[0] for c in rel.description]
        rows = {r[cols.index("strategy")]: dict(zip(cols, r)) for r in rel.fetchall()}
        real = dict(con.execute("SELECT strategy, exploitability FROM exploitability").fetchall())
        value = dict(con.execute("SELECT strategy_a, value FROM evaluation_results "
                                 "WHERE measure = 'value'").fetchall())
    b = GRANULARITY.replace(",", "-")
    evaluated = {LOSSLESS_HIDDEN_REF, SOURCE} | {
        f"rhode-island-rhode-island-{m}-{b}-dcfr" for m in ("eb", "strategy", "eb-ir")}
    assert evaluated <= set(rows)
    r = rows[LOSSLESS_HIDDEN_REF]
    # the nemesis inside L against L's own equilibrium is the solver's exploitability in L,
    # and L's value computed in the real game is the value the solver computed in L
    # (the catalog stores the solver's figure in single precision)
    assert r["exploitability"] == pytest.approx(ref["abstract_exploitability"], rel=1e-6)
    assert r["game_value"] == pytest.approx(own_value, rel=1e-6)
    assert r["in_lossless_game"] and r["vs_equilibrium"] == 0.0 and r["value_error"] == 0.0
    # the stand-in under the lossless name has L's classes (board hidden): a strategy of L;
    # the coarse eb build's k-means buckets are not unions of them: played in the real game
    assert rows[SOURCE]["in_lossless_game"] is True
    assert rows[f"rhode-island-rhode-island-eb-{b}-dcfr"]["in_lossless_game"] is False
    for name in evaluated - {LOSSLESS_HIDDEN_REF}:
        # a nemesis that sees less wins less; the value is the profile's, whatever the setting
        assert rows[name]["exploitability"] <= real[name] + 1e-9
        assert rows[name]["value"] == value[name]
        assert rows[name]["value_error"] == pytest.approx(value[name] - r["game_value"])
    md = (d / "report" / "README.md").read_text()
    assert "## The thesis's setting: hidden board against the hidden-board lossless game" in md
    assert "| hidden board vs real game | hidden board vs lossless game (the thesis's) | " \
           "board visible vs real game |" in md
    assert "--reference lossless-hidden" in md  # the command that reproduces it


def test_plays_in():
    fine = np.array([[0, 1, 2, -1], [3, 3, 4, 5]])
    assert plays_in(np.array([[0, 0, 1, -1], [2, 2, 2, 3]]), fine)  # coarser: unions
    assert not plays_in(np.array([[0, 1, 1, -1], [2, 3, 2, 3]]), fine)  # splits class 3
    assert plays_in(fine, fine)


@pytest.mark.parametrize("argv, starts", [
    (("rhode-island-granularity", "--reference", "thesis"),
     "--reference: unknown reference 'thesis'; choose from real, lossless-hidden, all"),
    (("rhode-island-granularity-public", "--reference", "lossless-hidden"),
     "--reference applies to rhode-island-granularity"),
    (("rhode-island-granularity", "--reference", "lossless-hidden", "--lossless-target", "0"),
     "--lossless-target must be positive and finite"),
])
def test_bad_reference_fails_in_one_line_before_any_work(tmp_path, monkeypatch, argv, starts):
    monkeypatch.setenv("POKER_DATA_DIR", str(tmp_path))
    rc, out, err = _cli(tmp_path, "experiment", *argv)
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2 and len(lines) == 1 and lines[0].startswith(f"error: {starts}"), err
    assert not (tmp_path / "abstractions").exists()
