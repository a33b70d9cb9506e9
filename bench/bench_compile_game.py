"""Time :func:`solve.games.compile.compile_game` on Rhode Island Hold'em: the real game, an
``eb`` 13,25,125 abstraction (built into a temporary directory) and the hand-made
``ri-13-25-125`` one; best of ``--repeat`` runs each (BENCHMARKS.md, compile_game section)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from queries.builds import build_abstraction
from solve.abstractions import FunctionAbstraction, load_abstraction, ri_rank_category
from solve.games import rules
from solve.games.compile import compile_game


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each compile (the best is shown)")
    args = ap.parse_args()
    rl = rules.rhode_island()
    with tempfile.TemporaryDirectory() as d:
        build_abstraction(Path(d), "eb", "13,25,125", "eb-13-25-125", seed=0)
        eb = load_abstraction("eb-13-25-125", "rhode-island", d)
        cases = {"real Rhode Island": None, "eb 13,25,125": eb,
                 "ri-13-25-125": FunctionAbstraction("ri-13-25-125", ri_rank_category)}
        for label, ab in cases.items():
            print(f"{label}: {_best(lambda: compile_game(rl, ab), args.repeat):.2f} s "
                  f"(best of {args.repeat})", flush=True)


if __name__ == "__main__":
    main()
