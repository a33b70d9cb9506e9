"""``solve.holdem.figures``: the store of evaluation figures shared by ``evaluate --curve`` and
``python -m bench.bench_holdem_methods --cache``."""

import json
import os

import numpy as np

from solve.holdem import figures
from solve.holdem.figures import FigureStore, file_identity


def test_a_figure_is_computed_once_and_read_back_exactly(tmp_path):
    store = FigureStore(tmp_path / "figs")
    calls = []
    values = np.random.default_rng(0).normal(size=(5, 2))

    def compute():
        calls.append(1)
        return values.tolist()

    key = {"kind": "lbr", "iterations": 7, "boards": 5, "seed": 1}
    first = store.fetch(key, compute)
    again = FigureStore(tmp_path / "figs").fetch(dict(reversed(list(key.items()))), compute)
    assert calls == [1] and np.array_equal(np.asarray(again), values) and again == first
    assert [p.name[:4] for p in (tmp_path / "figs").iterdir()] == ["lbr-"]  # no temp file
    store.fetch({**key, "seed": 2}, compute)  # another parameter: measured
    assert len(calls) == 2


def test_another_version_or_a_colliding_file_reads_as_absent(tmp_path, monkeypatch):
    store = FigureStore(tmp_path)
    key = {"kind": "h2h", "deals": 10}
    store.put(key, [1.5, 0.25, 10])
    monkeypatch.setattr(figures, "FIGURES_VERSION", figures.FIGURES_VERSION + 1)
    assert store.get(key) is None
    monkeypatch.undo()
    (path,) = tmp_path.iterdir()
    stored = json.loads(path.read_text())
    path.write_text(json.dumps({"key": {**stored["key"], "deals": 11}, "value": [9, 9, 9]}))
    assert store.get(key) is None  # the file under this key's name holds another key
    path.write_text("{not json")
    assert store.get(key) is None


def test_without_a_folder_nothing_is_kept(tmp_path):
    store = FigureStore(None)
    calls = []
    for _ in range(2):
        store.fetch({"kind": "row"}, lambda: calls.append(1) or 3)
    assert calls == [1, 1] and not list(tmp_path.iterdir())


def test_a_rewritten_weights_file_is_another_identity(tmp_path):
    w = tmp_path / "average.npy"
    np.save(w, np.zeros(4))
    before = file_identity(w)
    assert before == file_identity(w)
    st = os.stat(w)
    np.save(w, np.ones(4))  # the same size
    os.utime(w, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert file_identity(w) != before
