"""``bench/bench_holdem_methods.py``'s stored figures (issue 20's Hold'em comparison,
``queries.holdem_methods_eval``): a comparison re-run with ``--cache`` computes nothing again
and prints the same figures; the head-to-head stored for an unordered pair is the exact
negative of the other order."""

import importlib
import json
import shutil

import numpy as np

import cli
from queries import holdem_methods_eval
from solve.holdem import assess, curve
from solve.holdem.evaluate import duplicate_match


def load_script(name: str):
    """``bench/<name>.py`` as a module (``python -m bench.<name>``)."""
    return importlib.import_module(f"bench.{name}")


def test_comparison_resumes_from_its_cache(tmp_path, monkeypatch, capsys):
    for name, sampler in (("a", "chance"), ("b", "public"), ("c", "chance")):
        assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "holdem",
                         "--abstraction", "synthetic:2,4", "--max-bets", "2", "--name", name,
                         "--sampler", sampler, "--iterations", "300" if sampler == "chance"
                         else "20", "--lbr-deals", "0", "--h2h-deals", "50",
                         "--seed", str(ord(name))]) == 0
    bench = load_script("bench_holdem_methods")
    argv = ["--data-dir", str(tmp_path), "a", "b", "c", "--reference", "b", "--h2h-deals",
            "400", "--baseline-deals", "200", "--lbr-boards", "2", "--round-robin",
            "--cache", str(tmp_path / "figures")]
    assert bench.main(argv + ["--json", str(tmp_path / "one.json")]) == 0
    first = json.loads((tmp_path / "one.json").read_text())
    capsys.readouterr()
    # 3 rows + 3 pairs (the two against the reference are the round robin's too)
    assert len(list((tmp_path / "figures").glob("*.json"))) == 6

    def refuse(*_a, **_k):
        raise AssertionError("recomputed a stored figure")

    monkeypatch.setattr(assess, "board_lbr_values", refuse)
    monkeypatch.setattr(holdem_methods_eval, "duplicate_match", refuse)
    monkeypatch.setattr(holdem_methods_eval, "strategy", refuse)
    assert bench.main(argv + ["--json", str(tmp_path / "two.json")]) == 0
    second = json.loads((tmp_path / "two.json").read_text())
    assert second["round_robin"] == first["round_robin"]
    assert second["rows"] == first["rows"]
    rr = {(p["a"], p["b"]): p["h2h"] for p in first["round_robin"]}
    rows = {r["strategy"]: r for r in first["rows"]}
    assert rows["a"]["h2h"] == rr["a", "b"] and rows["c"]["h2h"] == -rr["b", "c"]
    assert "h2h" not in rows["b"] and np.isfinite(rows["c"]["lbr"])
    # the LBR values per board went to each run's evaluations/, and the difference from the
    # reference's bound is paired board by board over the same boards
    for name in "abc":
        assert len(list((tmp_path / "strategies" / name / "evaluations").glob("lbr-*"))) == 1
    assert "lbr_vs_ref" not in rows["b"]
    for name in "ac":
        assert np.isclose(rows[name]["lbr_vs_ref"], rows[name]["lbr"] - rows["b"]["lbr"])
        assert rows[name]["lbr_vs_ref_hw"] > 0
    # ... and the convergence curve over the same boards reads them back (still refused)
    _, curves = curve.convergence(tmp_path, ["b"], reference="a", h2h_deals=20, lbr_boards=2)
    assert curves["b"][-1]["lbr_mbb"] == round(rows["b"]["lbr"], 2)

    # the stored sign: B against A on the same deals is exactly -(A against B)
    monkeypatch.undo()
    pols = holdem_methods_eval.Strategies(tmp_path)
    (pa, tree, *_), (pb, *_) = pols["a"], pols["b"]
    pols["c"]  # at most two kept: "a" goes, "b" and "c" stay
    assert list(pols._loaded) == ["b", "c"] and pols["b"][0] is pb
    ab, ba = duplicate_match(tree, pa, pb, 300, seed=5), duplicate_match(tree, pb, pa, 300, seed=5)
    assert ab.mean == -ba.mean and ab.half_width == ba.half_width

    # "c" solved again under its name (the same iterations, another seed): its row and pairs
    # are measured again, the others' are read back
    shutil.rmtree(tmp_path / "strategies" / "c")
    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "holdem", "--abstraction",
                     "synthetic:2,4", "--max-bets", "2", "--name", "c", "--sampler", "chance",
                     "--iterations", "300", "--lbr-deals", "0", "--h2h-deals", "50",
                     "--seed", "1"]) == 0
    measured = []
    real_lbr = assess.board_lbr_values

    def counting(tree, pol, *a, **k):
        measured.append(pol.name)
        return real_lbr(tree, pol, *a, **k)

    monkeypatch.setattr(assess, "board_lbr_values", counting)
    assert bench.main(argv + ["--json", str(tmp_path / "three.json")]) == 0
    third = json.loads((tmp_path / "three.json").read_text())
    assert measured == ["c"]
    assert [r for r in third["rows"] if r["strategy"] != "c"] == \
        [r for r in first["rows"] if r["strategy"] != "c"]
    assert len(list((tmp_path / "figures").glob("*.json"))) == 6 + 3  # c's row, 2 pairs


def test_plot_of_the_comparison(tmp_path, capsys):
    plot = load_script("plot_holdem_methods")
    rows = [{"strategy": n, "recall": rec, "information_sets": sets, "lbr": lbr, "lbr_hw": 9.0,
             "lbr_seat0": lbr + 40, "lbr_seat1": lbr - 40, "vs_call": 510.0, "vs_call_hw": 6.0,
             "vs_raise": 400.0, "vs_raise_hw": 20.0}
            for n, rec, sets, lbr in (("a", "perfect", 166e6, 180.0),
                                      ("b", "imperfect", 17e6, 250.0),
                                      ("c", "perfect", 166e6, 140.0))]
    pairs = [{"a": "a", "b": "b", "h2h": 5.0, "h2h_hw": 2.0},
             {"a": "a", "b": "c", "h2h": -7.5, "h2h_hw": 2.5}]
    mean, hw = plot.round_robin_matrix(["a", "b", "c"], pairs)
    assert mean[0, 1] == 5.0 and mean[1, 0] == -5.0 and mean[2, 0] == 7.5
    assert hw[2, 0] == 2.5 and np.isnan(mean[1, 2]) and np.isnan(mean[0, 0])
    src = tmp_path / "figures.json"
    src.write_text(json.dumps({"rows": rows, "round_robin": pairs}))
    out = tmp_path / "docs" / "m.png"
    assert plot.main([str(src), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in out.parent.iterdir()] == ["m.png"]  # no temp file left
    # without a round robin: two panels; a missing or empty file: one line, exit 2
    src.write_text(json.dumps({"rows": rows}))
    assert plot.main([str(src), "--out", str(out)]) == 0
    assert plot.main([str(tmp_path / "none.json"), "--out", str(out)]) == 2
    src.write_text("{}")
    assert plot.main([str(src), "--out", str(out)]) == 2
    assert capsys.readouterr().err.count("\n") == 2


def test_seats_bench_reads_lbr_against_the_seat_value(tmp_path, capsys):
    """``bench/bench_holdem_seats.py``: per strategy, LBR beyond the seat's value is LBR as SB
    minus the self-play value to the small blind and LBR as BB plus it; with ``--current`` a
    run's current strategy and its average of the same checkpoint, and their head-to-head."""
    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "holdem", "--abstraction",
                     "synthetic:2,4", "--max-bets", "2", "--name", "p", "--sampler", "public",
                     "--iterations", "20", "--lbr-deals", "0", "--h2h-deals", "50",
                     "--keep-checkpoint"]) == 0  # --current reads the checkpoint's regrets
    bench = load_script("bench_holdem_seats")
    out = tmp_path / "rows.json"
    assert bench.main(["--data-dir", str(tmp_path), "p", "--current", "p", "--boards", "3",
                       "--deals", "200", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["strategy"] for r in rows] == ["p", "p current@20", "p average@20"]
    for r in rows:
        assert r["beyond_sb"] == r["as_sb"] - r["v_sb"]
        assert r["beyond_bb"] == r["as_bb"] + r["v_sb"]
        assert abs(r["lbr"] - (r["as_sb"] + r["as_bb"]) / 2) < 1e-9
    # the stored strategy is the final average: the same figures as the checkpoint's average
    assert rows[0]["lbr"] == rows[2]["lbr"] and rows[0]["v_sb"] == rows[2]["v_sb"]
    assert "h2h_vs_average" in rows[1] and "| p current@20 |" in capsys.readouterr().out
    assert bench.main(["--data-dir", str(tmp_path), "--current", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_threshold_bench_pairs_lbr_with_the_unthresholded_strategy(tmp_path, capsys):
    """``bench/bench_holdem_threshold.py``: the unthresholded row is ``board_lbr`` on the same
    boards (seed 2024), each threshold's difference is paired board by board, and a bad
    threshold or strategy is one line and exit 2; ``bench_holdem_methods`` takes ``~TAU``."""
    from solve.holdem.evaluate import board_lbr, sample_boards
    from solve.holdem.run import load_policy
    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "holdem", "--abstraction",
                     "synthetic:2,4", "--max-bets", "2", "--name", "p", "--iterations", "40",
                     "--lbr-deals", "0", "--h2h-deals", "50"]) == 0
    capsys.readouterr()
    bench = load_script("bench_holdem_threshold")
    assert bench.main(["--data-dir", str(tmp_path), "p", "--thresholds", "0.2,pure",
                       "--boards", "4", "--deals", "300"]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| ")][1:]
    assert [r.split(" | ")[0] for r in rows] == ["| none", "| 0.2", "| pure"]
    pol, tree = load_policy("p", tmp_path, {})
    lbr = board_lbr(tree, pol, 4, seed=2024, boards=sample_boards(4, seed=2024))[0]
    assert rows[0].split(" | ")[1].startswith(f"{lbr.mean:.1f} +- {lbr.half_width:.1f}")
    for r, tau in zip(rows[1:], ("0.2", "pure")):
        t_pol, _ = load_policy(f"p~{tau}", tmp_path, {})
        t_lbr = board_lbr(tree, t_pol, 4, seed=2024, boards=sample_boards(4, seed=2024))[0]
        assert r.split(" | ")[2].startswith(f"{t_lbr.mean - lbr.mean:+.1f}")
    for argv in (["p", "--thresholds", "2"], ["nobody"]):
        assert bench.main(["--data-dir", str(tmp_path), *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
    methods = load_script("bench_holdem_methods")
    assert methods.main(["--data-dir", str(tmp_path), "p~pure", "--reference", "p",
                         "--lbr-boards", "2", "--h2h-deals", "100"]) == 0
    assert "| p~pure |" in capsys.readouterr().out
