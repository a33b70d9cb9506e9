"""The abstraction builder on a Dask cluster (issue 19): the same result, bit for bit, as the
local run for the same seed, on a real ``distributed.LocalCluster`` with process workers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from abstraction.games import rhode_island
from abstraction.methods import PotentialAware

ROOT = Path(__file__).resolve().parents[1]
FILES = ("round0.parquet", "round1.parquet", "round2.parquet", "centroids.parquet",
         "thresholds.parquet")


def test_pa_on_a_tcp_cluster_equals_the_local_build():
    from distributed import LocalCluster

    hands = rhode_island()
    local = PotentialAware((13, 25, 125), random_state=3, n_init=2).fit(hands)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        remote = PotentialAware((13, 25, 125), random_state=3, n_init=2,
                                scheduler=cluster.scheduler_address).fit(hands)
    for a, b in zip(local.rounds_, remote.rounds_):
        assert (a.bucket == b.bucket).all() and (a.parent == b.parent).all()
        assert all((x == y).all() for x, y in zip(a.centroids, b.centroids))


def _build(data: Path, *extra) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "cli.py", "--data-dir", str(data),
                           "build-abstraction", "--game", "rhode-island", "--method", "pa",
                           "--buckets", "13,25,125", "--name", "a", *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_cli_local_cluster_same_files(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert _build(one).returncode == 0
    proc = _build(two, "--scheduler", "local:2")
    assert proc.returncode == 0, proc.stderr
    for f in FILES:
        a = pq.read_table(one / "abstractions" / "a" / f)
        b = pq.read_table(two / "abstractions" / "a" / f)
        assert a.equals(b), f


@pytest.mark.parametrize("bad,message", [("nonsense", "must be tcp://HOST:PORT or local:N"),
                                         ("local:0", "must be tcp://HOST:PORT or local:N"),
                                         ("tcp://127.0.0.1:9", "cannot reach Dask scheduler")])
def test_bad_scheduler_one_line(tmp_path, bad, message):
    proc = _build(tmp_path, "--scheduler", bad)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
