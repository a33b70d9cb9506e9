"""Benchmark: cold numba compile time (empty numba cache) of the big kernels, per module.

Each kernel module runs in a fresh child process with its own empty ``NUMBA_CACHE_DIR`` (what a
fresh machine or CI pays once per kernel and argument-type signature): the first call of each
kernel through its ordinary caller, on a tiny input, is timed in process CPU seconds (compile
plus a negligible run). Helpers shared by kernels of one module are compiled by the first
kernel that needs them, so per-kernel figures depend on the order; module totals do not.
Signatures compiled per kernel are counted from numba's ``numba:compile`` events.

Usage: NUMBA_NUM_THREADS=1 nice -n 15 python -m bench.bench_compile [--modules eval,index,...]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("eval", "index", "equity", "holdem_solve", "holdem_abstraction")


# ---------------------------------------------------------------------------------------------
# Child side: one module's kernels, called the way the project's code calls them.
# ---------------------------------------------------------------------------------------------

def _eval(step):
    import numpy as np

    from etl import evaluator, handval

    cards = np.array([[0, 5, 10, 15, 20, 25, 30]], np.uint8)
    step("first_bad_row + evaluate_rows", lambda: evaluator.evaluate(cards))
    step("categories_of", lambda: evaluator.hand_category(np.array([0, 7461], np.uint16)))
    step("handval_tasks", handval._tasks)
    step("handval_fill", lambda: handval.handval_values(0, 1))


def _index(step):
    import numpy as np

    from etl.colex import colex_index, colex_unindex
    from etl.isomorphism import HandIndexer, verify_counts

    ix = HandIndexer((2, 3))
    step("colex_index_rows", lambda: colex_index(np.array([[0, 1, 2]], np.int64), 52))
    step("colex_unindex_rows", lambda: colex_unindex(np.array([0]), 3, 52))
    step("index_rows", lambda: ix.index(np.array([[0, 1, 2, 3, 4]], np.uint8)))
    step("unindex_rows", lambda: ix.unindex(np.array([0])))
    step("verify_counts (roundtrip_range, verify_tasks, count_nonzero_u8)",
         lambda: verify_counts((2,), progress=False))


def _equity(step):
    import numpy as np

    from etl import equity
    from etl._equity_kernels import flop_from_turn, preflop_sums, scatter_rows
    from etl.isomorphism import KNOWN_SIZES

    step("river_rows", lambda: equity._rows(5, 0, 1))
    step("completion_rows (turn, hist)", lambda: equity._rows(4, 0, 1, 50))
    step("board_hands", lambda: equity._flop_hands(0, 1))
    out = np.empty((1176, 2), np.int64)
    for name, dtype, m in (("int64", np.int64, 2), ("uint8", np.uint8, 50)):
        turn = np.zeros((KNOWN_SIZES[(2, 4)], m), dtype)  # untouched pages stay unmapped
        o = np.empty((1176, m), np.int64)
        step(f"flop_from_turn ({name})",
             lambda: flop_from_turn(equity._tables((3,)), equity._tables((2, 4)), 0, 1, turn, o))
    flop = np.zeros(KNOWN_SIZES[(2, 3)], np.int64)
    step("preflop_sums", lambda: preflop_sums(equity._tables((2,)), equity._tables((2, 3)),
                                              flop, flop, np.empty((169, 2), np.int64)))
    step("scatter_rows", lambda: scatter_rows(np.arange(2), np.zeros((2, 2), np.int64), out))


def _holdem_solve(step):
    from solve.holdem import evaluate as holdem_eval
    from solve.holdem.buckets import synthetic_buckets
    from solve.holdem.cfr import HoldemCFR
    from solve.holdem.game import HoldemRules, build_tree

    b = {}
    step("strength_keys + parent_index (synthetic_buckets)",
         lambda: b.setdefault("b", synthetic_buckets((3, 6), n_rounds=2)))
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=2))
    s = HoldemCFR(tree, b["b"], seed=0)
    step("cfr_chunk", lambda: s.iterate(2))
    pol = holdem_eval.Policy.table("x", tree, b["b"], s.average_)
    call = holdem_eval.Policy.always_call(tree, b["b"])
    step("duplicate_values", lambda: holdem_eval.duplicate_match(tree, pol, call, 4, seed=1))
    deals = holdem_eval.sample_deals(4, seed=1)
    step("seat_values", lambda: holdem_eval.seat_value(tree, pol, call, deals))
    step("lbr_values", lambda: holdem_eval.local_best_response(tree, pol, 2, seed=2))
    step("br_terminal_sums + br_backup",
         lambda: holdem_eval.best_response(tree, pol, 0, deals))


def _holdem_abstraction(step):
    import numpy as np

    from abstraction import holdem
    from abstraction._holdem_kernels import river_histograms
    from etl.isomorphism import HandIndexer

    step("round_arrays", lambda: holdem.round_index_arrays((2, 3), (2,), (2, 3), 0, 4))
    t231, t25 = HandIndexer((2, 3, 1)).tables, HandIndexer((2, 5)).tables
    key = np.zeros(HandIndexer((2, 5)).size, np.uint16)
    step("_river_histograms",
         lambda: river_histograms(t231, t25, np.zeros(2, np.int64), np.ones(2), key, 1))


def child(module: str) -> None:
    from numba.core import event

    sigs = collections.Counter()

    class Count(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            sigs[ev.data["dispatcher"].py_func.__qualname__] += 1

    event.register("numba:compile", Count())
    rows = []

    def step(name, f):
        sigs.clear()
        t = time.process_time()
        f()
        rows.append((name, time.process_time() - t, dict(sigs)))

    t = time.process_time()
    fn = globals()[f"_{module}"]
    fn(step)
    print(json.dumps({"rows": rows, "total": time.process_time() - t}))


# ---------------------------------------------------------------------------------------------
# Parent side
# ---------------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modules", default=",".join(MODULES),
                    help=f"comma-separated subset of {','.join(MODULES)}")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return 0
    mods = [m for m in args.modules.split(",") if m]
    for m in mods:
        if m not in MODULES:
            ap.error(f"unknown module {m!r}: expected some of {','.join(MODULES)}")
    print(f"numba threads: {os.environ.get('NUMBA_NUM_THREADS', 'default')}; CPU seconds "
          f"(user+sys of the child) of the first call, empty numba cache per module")
    grand = 0.0
    for m in mods:
        with tempfile.TemporaryDirectory(prefix="bench-compile-") as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            t = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "bench.bench_compile", "--child", m],
                               env=env, cwd=ROOT, capture_output=True, text=True)
            wall = time.perf_counter() - t
        if p.returncode:
            print(f"{m}: child failed\n{p.stderr[-2000:]}")
            return 1
        res = json.loads(p.stdout.strip().splitlines()[-1])
        print(f"\n{m}: {res['total']:.1f} s CPU in kernel calls ({wall:.1f} s wall with import)")
        for name, sec, sigs in res["rows"]:
            compiled = ", ".join(f"{k} x{v}" if v > 1 else k for k, v in sorted(sigs.items()))
            print(f"  {sec:7.2f} s  {name}   [{compiled}]")
        grand += res["total"]
    print(f"\ntotal: {grand:.1f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
