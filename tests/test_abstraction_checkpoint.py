"""A killed build resumes from its finished rounds (abstraction.checkpoint)."""

from __future__ import annotations

import numpy as np
import pytest

from abstraction import checkpoint, tree
from abstraction.build import build
from schema.errors import UserError


def buckets_of(built):
    return [r.bucket for r in built.model.rounds_]


def test_a_failed_build_resumes_from_its_finished_rounds(tmp_path, monkeypatch):
    whole = build("rhode-island", "pa", "13,25,125", name="whole", data_dir=tmp_path / "a")
    builds = tmp_path / "a" / "cache" / "builds"
    assert not builds.exists() or not any(builds.iterdir())  # removed once stored

    real = tree._parent_task
    calls = {"n": 0}

    def dies_in_round_2(features, r, *args):
        if r == 2:
            raise KeyboardInterrupt  # as Ctrl-C in the middle of the river
        calls["n"] += 1
        return real(features, r, *args)

    d = tmp_path / "b"
    monkeypatch.setattr(tree, "_parent_task", dies_in_round_2)
    with pytest.raises(KeyboardInterrupt):
        build("rhode-island", "pa", "13,25,125", name="x", data_dir=d)
    (ckpt,) = (d / "cache" / "builds").iterdir()
    assert sorted(p.name for p in ckpt.iterdir()) == ["round0.pkl", "round1.pkl"]

    def no_earlier_round(features, r, *args):
        assert r == 2, "a finished round was clustered again"
        return real(features, r, *args)

    monkeypatch.setattr(tree, "_parent_task", no_earlier_round)
    resumed = build("rhode-island", "pa", "13,25,125", name="x", data_dir=d)
    for a, b in zip(buckets_of(whole), buckets_of(resumed)):
        np.testing.assert_array_equal(a, b)
    assert not ckpt.exists()


def test_other_parameters_do_not_resume(tmp_path):
    params = {"game": "rhode-island", "method": "pa", "buckets": (13, 25, 125), "seed": 0}
    a = checkpoint.checkpoint_dir(tmp_path, "x", params)
    checkpoint.save_round(a, 0, "round zero")
    assert checkpoint.load_round(a, 0) == "round zero"
    assert checkpoint.checkpoint_dir(tmp_path, "x", params) == a
    b = checkpoint.checkpoint_dir(tmp_path, "x", {**params, "seed": 1})
    assert b != a and checkpoint.load_round(b, 0) is None
    assert not a.exists()  # the stale directory of the same name is removed
    assert checkpoint.checkpoint_dir(tmp_path, "y", params) != checkpoint.checkpoint_dir(
        tmp_path, "x", params)


def test_an_unreadable_round_is_computed_again(tmp_path):
    d = tmp_path / "c"
    d.mkdir()
    (d / "round0.pkl").write_bytes(b"half a pickle")
    assert checkpoint.load_round(d, 0) is None
    assert checkpoint.load_round(None, 0) is None
    checkpoint.save_round(None, 0, "nothing written")


def test_bad_input_still_one_line_error(tmp_path):
    with pytest.raises(UserError):
        build("rhode-island", "pa", "13,25", data_dir=tmp_path)
