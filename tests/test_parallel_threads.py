"""Issue 48: ``--jobs N`` workers run on ``cpu_count // N`` numba threads, given to each worker
as it starts (an argument), never by changing this process's environment."""

from __future__ import annotations

import os

import numba

from queries.parallel_solve import _run


def report_threads(name: str) -> tuple[str, int, float]:
    return name, numba.get_num_threads(), 0.0


def test_workers_get_their_share_of_threads_and_the_environment_is_untouched():
    before = dict(os.environ)
    got = _run(report_threads, [("a",), ("b",)], jobs=2, progress=False, what="probe",
               done_word="probed")
    assert got == {"a": max(1, (os.cpu_count() or 1) // 2),
                   "b": max(1, (os.cpu_count() or 1) // 2)}
    assert dict(os.environ) == before
