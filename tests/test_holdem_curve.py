"""Convergence curves of Hold'em runs (``solve.holdem.curve``, ``evaluate NAME --curve``): the
logged checkpoint evaluations, head-to-head of each kept checkpoint against the reference
(checked against ``duplicate_match`` on the weights read directly), the PNG, and the
CPU-seconds estimate for a run resumed on the CPU clock."""

import json
from pathlib import Path

import numpy as np
import pytest

import cli
from schema.errors import UserError
from solve.holdem.curve import convergence, cpu_seconds, run_points
from solve.holdem.evaluate import board_lbr, board_lbr_values, duplicate_match, lbr_runouts, \
    sample_boards, to_mbb
from solve.holdem.run import load_policy

SOLVE = ["solve", "--game", "holdem", "--abstraction", "synthetic:3,6", "--max-bets", "2",
         "--lbr-deals", "20", "--h2h-deals", "50", "--keep-averages",
         "--checkpoint-minutes", "0.00001"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two runs with a checkpoint (and kept weights) after every chunk of iterations."""
    d = tmp_path_factory.mktemp("curve")
    for name, it in (("a", 300), ("b", 120)):
        assert cli.main(["--data-dir", str(d), *SOLVE, "--name", name, "--iterations",
                         str(it)]) == 0
    return d


def test_points_are_the_logged_evaluations(runs):
    log = json.loads((runs / "strategies" / "a" / "run.json").read_text())["log"]
    points = run_points(runs, "a")
    assert len(points) == len(log) >= 2
    for p, e in zip(points, log):
        assert {k: p[k] for k in e} == e
        assert p["cpu_s"] == e["solve_seconds"] and not p["cpu_est"]


def test_head_to_head_of_each_kept_checkpoint_against_the_reference(runs):
    ref_name, curves = convergence(runs, ["a", "b"], reference="a", h2h_deals=400, seed=5)
    assert ref_name == "a" and list(curves) == ["a", "b"]
    ref, _ = load_policy("a", runs, {})
    for r, points in curves.items():
        final = json.loads((runs / "strategies" / r / "run.json").read_text())["iterations"]
        for e in points:
            if r == "a" and e["iterations"] == final:
                assert "h2h_mbb" not in e  # the reference itself
                continue
            pol, tree = load_policy(f"{r}@{e['iterations']}", runs, {})
            want = duplicate_match(tree, pol, ref, 400, seed=5)
            assert (e["h2h_mbb"], e["h2h_hw"]) == (round(want.mean, 2), round(want.half_width, 2))


def test_lbr_again_over_the_same_boards_and_paired_with_the_last_point(runs, tmp_path):
    import shutil
    d = tmp_path / "copy"
    shutil.copytree(runs, d)
    ck = d / "strategies" / "a" / "checkpoint"
    gone = min(int(f.stem.split("-")[1]) for f in ck.glob("average-*.npy"))
    (ck / f"average-{gone}.npy").unlink()
    _, curves = convergence(d, ["a"], reference="b", h2h_deals=10, lbr_boards=6, lbr_seed=9)
    points = curves["a"]
    boards, perms = sample_boards(6, 9), lbr_runouts(6, 9)
    last, _ = load_policy("a", d, {})
    tree = load_policy("a", d, {})[1]
    v_last = board_lbr_values(tree, last, boards, perms).mean(axis=1)
    for e in points:
        if e["iterations"] == gone:  # no weights: its logged LBR was over other deals
            assert "lbr_mbb" not in e and "lbr_vs_last_mbb" not in e
            continue
        pol, _ = load_policy(f"a@{e['iterations']}", d, {})
        want, s0, s1 = board_lbr(tree, pol, 6, seed=9)
        assert (e["lbr_mbb"], e["lbr_hw"]) == (round(want.mean, 2), round(want.half_width, 2))
        assert (e["lbr_seat0_mbb"], e["lbr_seat1_mbb"]) == (round(s0.mean, 2), round(s1.mean, 2))
        assert e["lbr_boards"] == 6 and "lbr_deals" not in e
        diff = to_mbb(board_lbr_values(tree, pol, boards, perms).mean(axis=1) - v_last)
        assert (e["lbr_vs_last_mbb"], e["lbr_vs_last_hw"]) == (round(diff.mean, 2),
                                                              round(diff.half_width, 2))
    assert (points[-1]["lbr_vs_last_mbb"], points[-1]["lbr_vs_last_hw"]) == (0.0, 0.0)


def test_reference_defaults_to_the_longest_run(runs):
    a, b = (run_points(runs, r)[-1]["cpu_s"] for r in ("a", "b"))
    ref_name, _ = convergence(runs, ["b", "a"], h2h_deals=10)
    assert ref_name == ("a" if a > b else "b")  # a tie: the first run given


def test_a_checkpoint_without_kept_weights_has_no_head_to_head(runs, tmp_path):
    import shutil
    d = tmp_path / "copy"
    shutil.copytree(runs, d)
    final = json.loads((d / "strategies" / "a" / "run.json").read_text())["iterations"]
    ck = d / "strategies" / "a" / "checkpoint"
    gone = min(int(f.stem.split("-")[1]) for f in ck.glob("average-*.npy"))
    assert gone != final
    (ck / f"average-{gone}.npy").unlink()
    _, curves = convergence(d, ["a"], reference="b", h2h_deals=10)
    by_it = {e["iterations"]: e for e in curves["a"]}
    assert "h2h_mbb" not in by_it[gone]
    assert all("h2h_mbb" in e for n, e in by_it.items() if n != gone)


def test_evaluate_curve_prints_tables_and_saves_a_png(runs, capsys, tmp_path):
    out = tmp_path / "c.png"
    assert cli.main(["--data-dir", str(runs), "evaluate", "a", "--curve", "--with", "b",
                     "--h2h-deals", "100", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "head-to-head against a (100 duplicate deals)" in text
    assert text.count("| solve CPU s | iterations | LBR |") == 2
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(tmp_path.glob(".*tmp"))
    assert cli.main(["--data-dir", str(runs), "evaluate", "b", "--curve", "--h2h-deals",
                     "20"]) == 0
    assert (runs / "reports" / "b-convergence.png").stat().st_size > 0
    assert cli.main(["--data-dir", str(runs), "evaluate", "b", "--curve", "--h2h-deals", "20",
                     "--lbr-boards", "3", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "LBR over the same 3 boards for every kept checkpoint" in text
    assert "| LBR - last (paired) |" in text


@pytest.mark.parametrize("extra,message", [
    (["--with", "b"], "--with: only with --curve"),
    (["--out", "x.png", "--reference", "b"], "--reference, --out: only with --curve"),
    (["--curve", "--threshold", "0.1"], "--curve takes no --threshold"),
    (["--curve", "--lbr-deals", "10"], "--curve takes no --threshold or --lbr-deals"),
    (["--curve", "--lbr-boards", "1"], "at least 2 boards"),
    (["--curve", "--with", "nope"], "no holdem run 'nope'"),
    (["--curve", "--reference", "a@7"], "no holdem strategy 'a@7'"),
    (["--curve", "--reference", "always-call"], "must be a stored strategy"),
    (["--curve", "--with", "b@120"], "a convergence curve is of a run"),
    (["--curve", "--out", "x.svg"], "--out must name a .png file"),
    (["--curve", "--h2h-deals", "1"], "at least 2 deals"),
])
def test_evaluate_curve_rejects_bad_input_in_one_line(runs, capsys, extra, message):
    assert cli.main(["--data-dir", str(runs), "evaluate", "a", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cpu_seconds_estimates_a_wall_clock_stretch():
    log = [{"iterations": 100, "solve_seconds": 10.0, "clock": "wall"},
           {"iterations": 200, "solve_seconds": 20.0, "clock": "wall"},
           {"iterations": 400, "solve_seconds": 30.0, "clock": "cpu"},  # 20 wall + 10 cpu
           {"iterations": 600, "solve_seconds": 40.0, "clock": "cpu"}]
    # rate over the first CPU stretch: 200 iterations in 10 s = 20 it/s
    np.testing.assert_allclose(cpu_seconds(log), [5.0, 10.0, 20.0, 30.0])
    same = [dict(e, clock="cpu") for e in log]
    assert cpu_seconds(same) == [10.0, 20.0, 30.0, 40.0]


def test_run_points_needs_an_evaluation(tmp_path):
    d = Path(tmp_path) / "strategies" / "x"
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"iterations": 0, "log": []}))
    with pytest.raises(UserError, match="no checkpoint evaluations"):
        run_points(Path(tmp_path), "x")


def test_a_second_curve_reads_the_kept_figures_and_a_changed_strategy_is_measured_again(
        runs, tmp_path, monkeypatch):
    import shutil
    from solve.holdem import assess, curve
    d = tmp_path / "copy"
    shutil.copytree(runs, d)
    shutil.rmtree(d / "strategies" / "a" / "evaluations", ignore_errors=True)
    first = convergence(d, ["a"], reference="b", h2h_deals=30, lbr_boards=4, lbr_seed=3)[1]
    saved = d / "strategies" / "a" / "evaluations"
    n_points = len(first["a"])
    assert len(list(saved.glob("lbr-*.json"))) == len(list(saved.glob("h2h-*.json"))) == n_points
    assert not [f for f in saved.iterdir() if f.name.startswith(".")]  # no temp file left

    def fail(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr(assess, "board_lbr_values", fail)  # stored_board_lbr's
    monkeypatch.setattr(curve, "duplicate_match", fail)
    assert convergence(d, ["a"], reference="b", h2h_deals=30, lbr_boards=4, lbr_seed=3)[1] == first
    with pytest.raises(AssertionError, match="measured again"):  # other boards: not kept
        convergence(d, ["a"], reference="b", h2h_deals=30, lbr_boards=4, lbr_seed=4)
    with pytest.raises(AssertionError, match="measured again"):  # other deals: not kept
        convergence(d, ["a"], reference="b", h2h_deals=31)
    monkeypatch.undo()

    kept = sorted((d / "strategies" / "a" / "checkpoint").glob("average-*.npy"))[0]
    n = int(kept.stem.split("-")[1])
    w = np.load(kept)
    np.save(kept, np.ascontiguousarray(w[::-1]))  # the same name, another strategy
    again = {e["iterations"]: e for e in
             convergence(d, ["a"], reference="b", h2h_deals=30, lbr_boards=4, lbr_seed=3)[1]["a"]}
    pol, tree = load_policy(f"a@{n}", d, {})
    want = duplicate_match(tree, pol, load_policy("b", d, {})[0], 30, seed=4242)
    assert (again[n]["h2h_mbb"], again[n]["h2h_hw"]) == (round(want.mean, 2),
                                                          round(want.half_width, 2))
    assert again[n]["h2h_mbb"] != next(e for e in first["a"] if e["iterations"] == n)["h2h_mbb"]


def test_exact_exploitability_of_a_checkpoint_joins_the_curve(runs, capsys, tmp_path,
                                                               monkeypatch):
    """A kept checkpoint and the final strategy whose exact best responses were computed show
    them (the stored figures, as ``evaluate --best-response exact`` printed) in the table and
    on the picture; the other points have none and nothing is computed for them. The deck is
    reduced to ten cards, as in ``test_holdem_best_response`` (the full deck's flops take
    minutes)."""
    import shutil

    from solve.holdem import best_response as BR
    from tests.holdem_small import DECK10
    monkeypatch.setattr(BR, "FULL_DECK", DECK10)
    d = tmp_path / "copy"
    shutil.copytree(runs, d)
    kept = sorted(int(f.stem.split("-")[1])
                  for f in (d / "strategies" / "b" / "checkpoint").glob("average-*.npy"))
    final = json.loads((d / "strategies" / "b" / "run.json").read_text())["iterations"]
    first = kept[0]
    assert first != final
    want = {}
    for spec, n in ((f"b@{first}", first), ("b", final)):
        assert cli.main(["--data-dir", str(d), "evaluate", spec, "--best-response",
                         "exact"]) == 0
        want[n] = BR.run_exact(d, spec, progress=False)  # kept: read back, not recomputed
    capsys.readouterr()
    _, curves = convergence(d, ["b"], h2h_deals=10)
    for e in curves["b"]:
        if e["iterations"] in want:
            w = want[e["iterations"]]
            assert e["exact_mbb"] == round(w.exploitability_mbb, 2)
            assert (e["exact_seat0_mbb"], e["exact_seat1_mbb"]) == (
                round(w.br[0] * 1000 / w.big_blind, 2), round(w.br[1] * 1000 / w.big_blind, 2))
        else:
            assert "exact_mbb" not in e
    out = tmp_path / "x.png"
    assert cli.main(["--data-dir", str(d), "evaluate", "b", "--curve", "--h2h-deals", "10",
                     "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "| solve CPU s | iterations | exact | LBR |" in text
    assert f"| {want[final].exploitability_mbb:+.1f} |" in text
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
