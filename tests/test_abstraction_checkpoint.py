"""A killed build resumes from its finished rounds (abstraction.checkpoint)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from abstraction import checkpoint, imperfect_recall, tree
from abstraction.build import build
from abstraction.methods import PotentialAware

PA = PotentialAware.Options
from schema.errors import UserError

ROOT = Path(__file__).resolve().parents[1]


def buckets_of(built):
    return [r.bucket for r in built.model.rounds_]


def test_a_failed_build_resumes_from_its_finished_rounds(tmp_path, monkeypatch):
    whole = build("rhode-island", "pa", PA(buckets=(13, 25, 125)), name="whole",
                  data_dir=tmp_path / "a")
    builds = tmp_path / "a" / "cache" / "builds"
    assert not builds.exists() or not any(builds.iterdir())  # removed once stored

    real = tree._parent_task

    def dies_in_round_2(features, r, *args):
        if r == 2:
            raise KeyboardInterrupt  # as Ctrl-C in the middle of the river
        return real(features, r, *args)

    d = tmp_path / "b"
    monkeypatch.setattr(tree, "_parent_task", dies_in_round_2)
    with pytest.raises(KeyboardInterrupt):
        build("rhode-island", "pa", PA(buckets=(13, 25, 125)), name="x", data_dir=d)
    (ckpt,) = [p for p in (d / "cache" / "builds").iterdir() if p.is_dir()]  # and its .lock
    assert sorted(p.name for p in ckpt.iterdir()) == ["round0.pkl", "round1.pkl"]

    def no_earlier_round(features, r, *args):
        assert r == 2, "a finished round was clustered again"
        return real(features, r, *args)

    monkeypatch.setattr(tree, "_parent_task", no_earlier_round)
    resumed = build("rhode-island", "pa", PA(buckets=(13, 25, 125)), name="x", data_dir=d)
    for a, b in zip(buckets_of(whole), buckets_of(resumed)):
        np.testing.assert_array_equal(a, b)
    assert not ckpt.exists()


def test_other_parameters_do_not_resume(tmp_path):
    params = {"game": "rhode-island", "method": "pa", "buckets": (13, 25, 125), "seed": 0}
    with checkpoint.claimed(tmp_path, "x", params) as a:
        checkpoint.save_round(a, 0, "round zero")
        assert checkpoint.load_round(a, 0) == "round zero"
    with checkpoint.claimed(tmp_path, "x", params) as again:
        assert again == a and checkpoint.load_round(again, 0) == "round zero"
    with checkpoint.claimed(tmp_path, "x", {**params, "seed": 1}) as b:
        assert b != a and checkpoint.load_round(b, 0) is None
        assert not a.exists()  # the stale directory of the same name is removed
    assert checkpoint.checkpoint_dir(tmp_path, "y", params) != checkpoint.checkpoint_dir(
        tmp_path, "x", params)


def test_a_live_build_keeps_its_checkpoints_to_itself(tmp_path):
    """A second build of the same name and parameters while the first runs gets no
    checkpoint directory (it neither resumes the first's rounds nor removes them); a live
    build of other parameters keeps its directory; once released, it is stale."""
    params = {"game": "rhode-island", "method": "pa", "buckets": (13, 25, 125), "seed": 0}
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from abstraction import checkpoint\n"
            f"with checkpoint.claimed(Path(sys.argv[1]), 'x', {params!r}) as d:\n"
            "    checkpoint.save_round(d, 0, 'first')\n"
            "    print(d, flush=True)\n"
            "    sys.stdin.readline()\n")
    first = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        held = Path(first.stdout.readline().strip())
        with checkpoint.claimed(tmp_path, "x", params) as d:
            assert d is None
        with checkpoint.claimed(tmp_path, "x", {**params, "seed": 1}) as other:
            assert other is not None and held.exists()  # not removed under a live build
            assert checkpoint.load_round(held, 0) == "first"
    finally:
        first.communicate("\n", timeout=60)
    assert first.returncode == 0
    with checkpoint.claimed(tmp_path, "x", {**params, "seed": 1}):
        assert not held.exists()  # its holder is gone: stale, removed


def test_an_unreadable_round_is_computed_again(tmp_path):
    d = tmp_path / "c"
    d.mkdir()
    (d / "round0.pkl").write_bytes(b"half a pickle")
    assert checkpoint.load_round(d, 0) is None
    assert checkpoint.load_round(None, 0) is None
    checkpoint.save_round(None, 0, "nothing written")


def test_bad_input_still_one_line_error(tmp_path):
    with pytest.raises(UserError):
        build("rhode-island", "pa", PA(buckets=(13, 25)), data_dir=tmp_path)


def test_an_imperfect_recall_build_resumes_from_its_finished_rounds(tmp_path, monkeypatch):
    """Imperfect recall clusters the last round first; killed in the first round, the re-run
    clusters only that round (the later rounds' results and their EMD grounds come back)."""
    args = dict(game="rhode-island", method="pa-emd",
                options=PA(buckets=(13, 25, 125), recall="imperfect"))
    whole = build(**args, name="whole", data_dir=tmp_path / "a")
    real = imperfect_recall._cluster
    calls = []

    def dies_in_round_0(points, k, *rest):
        calls.append(k)
        if len(calls) == 3:  # rounds 2 and 1 are done
            raise KeyboardInterrupt
        return real(points, k, *rest)

    d = tmp_path / "b"
    monkeypatch.setattr(imperfect_recall, "_cluster", dies_in_round_0)
    with pytest.raises(KeyboardInterrupt):
        build(**args, name="x", data_dir=d)
    (ckpt,) = [p for p in (d / "cache" / "builds").iterdir() if p.is_dir()]
    assert sorted(p.name for p in ckpt.iterdir()) == ["round1.pkl", "round2.pkl"]
    calls.clear()
    monkeypatch.setattr(imperfect_recall, "_cluster", lambda points, k, *rest: (
        calls.append(k), real(points, k, *rest))[1])
    resumed = build(**args, name="x", data_dir=d)
    assert calls == [13]  # round 0 only
    for a, b in zip(buckets_of(whole), buckets_of(resumed)):
        np.testing.assert_array_equal(a, b)
    assert not ckpt.exists()


def test_equal_emd_rounds_are_clustered_once_for_every_build(tmp_path, monkeypatch):
    """The flop and turn of Texas Hold'em's imperfect-recall pa-emd and ochs are the same
    clustering: the second build reads the first one's from the shared cache; other buckets
    or other histograms are clustered afresh."""
    rng = np.random.default_rng(5)
    x = rng.random((300, 10)).astype(np.float32)
    x /= x.sum(axis=1, keepdims=True)
    h = SimpleNamespace(histogram=x, weight=rng.random(300), equity=rng.random(300))
    one = tmp_path / "cache" / "builds" / "one-0123456789abcdef"
    two = tmp_path / "cache" / "builds" / "two-fedcba9876543210"
    first = imperfect_recall._by_equity_histograms(h, 12, 7, 2, checkpoint=one)
    real = imperfect_recall._cluster_histograms
    computed = []
    monkeypatch.setattr(imperfect_recall, "_cluster_histograms",
                        lambda *a: (computed.append(a[5]), real(*a))[1])
    again = imperfect_recall._by_equity_histograms(h, 12, 7, 2, checkpoint=two)
    assert computed == []
    np.testing.assert_array_equal(first[0].bucket, again[0].bucket)
    assert first[1:] == again[1:]
    imperfect_recall._by_equity_histograms(h, 11, 7, 2, checkpoint=two)
    h2 = SimpleNamespace(histogram=x[::-1].copy(), weight=h.weight, equity=h.equity)
    imperfect_recall._by_equity_histograms(h2, 12, 7, 2, checkpoint=two)
    imperfect_recall._by_equity_histograms(h, 12, 7, 2)  # no checkpoint: nothing shared
    assert computed == [11, 12, 12]
