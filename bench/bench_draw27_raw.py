"""2-7 single draw at full size (21 cards): the unabstracted game vs its lossless (iso) and
bucketed abstractions, evaluated exactly over all 227,908,800 deals (issue 7).

Solves the iso game (4,207 suit-isomorphism types per player, matrix-free sequence form) with
CFR+, lifts the average profile to raw information (every raw hand / (hand, drawn card) plays
its class's strategy) and evaluates it in the unabstracted game with
:class:`solve.games.draw27_raw.RawDraw27` (no W/S matrices): value for player 1 and both exact
best-response values. Lossless abstraction means the lifted profile's raw value and raw
exploitability equal the iso game's. Optionally (``--buckets``) the same for LP solutions of
bucketed games, whose raw exploitability is the real cost of the abstraction.

    NUMBA_NUM_THREADS=1 python -m bench.bench_draw27_raw --iterations 1000 --buckets 3,5,10
"""

from __future__ import annotations

import argparse
import sys
import time


from solve.games.draw27_raw import RawDraw27
from solve.games.draw27 import draw27, draw27_sequence_form
from solve.games.tree import sequence_form
from solve.algorithms.treeplex import SequenceCFR, best_response_values, solve_lp, value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=1000, help="CFR+ iterations on the iso game")
    ap.add_argument("--check-every", type=int, default=250, help="print iso exploitability every N iterations")
    ap.add_argument("--buckets", default="", help="comma-separated bucket counts to lift too (LP), e.g. 3,5,10")
    ap.add_argument("--repeat", type=int, default=3, help="timed raw evaluations (best reported)")
    args = ap.parse_args(argv)
    from tqdm import tqdm

    sys.stdout.reconfigure(line_buffering=True)  # figures appear as they are computed

    raw = RawDraw27()
    print(f"raw game: {raw.H} hands, {int(raw.deck.drawable.sum())} (hand, drawn card) per player, "
          f"{raw.deals:,} deals")
    t = time.perf_counter()
    raw.evaluate(raw.uniform())  # compile
    print(f"first raw evaluation (incl. numba compile/cache load): {time.perf_counter() - t:.1f} s")
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        u = raw.evaluate(raw.uniform())
        times.append(time.perf_counter() - t)
    print(f"raw evaluation (value + both best responses = 2 kernel passes): best {min(times):.2f} s "
          f"of {args.repeat} -> {min(times) / 2:.2f} s per pass; uniform profile: value {u.value:.6f}, "
          f"exploitability {u.exploitability:.6f}")

    t = time.perf_counter()
    iso = draw27_sequence_form("iso")
    print(f"iso sequence form: {iso.n_seq[0]} sequences per player, built in {time.perf_counter() - t:.1f} s")
    solver = SequenceCFR(iso, "cfr+")
    t = time.perf_counter()
    with tqdm(total=args.iterations, desc="CFR+ (iso)", unit="it") as bar:
        while solver.iteration < args.iterations:
            step = min(args.check_every, args.iterations - solver.iteration)
            solver.iterate(step)
            bar.update(step)
            b1, b2 = best_response_values(iso, *solver.average())
            bar.write(f"  iteration {solver.iteration}: iso exploitability {0.5 * (b1 - b2):.3e}")
    solve_s = time.perf_counter() - t
    x, y = solver.average()
    v_iso = value(iso, x, y)
    b1, b2 = best_response_values(iso, x, y)
    t = time.perf_counter()
    prof = raw.lift(iso, x, y, "iso")
    lift_s = time.perf_counter() - t
    t = time.perf_counter()
    r = raw.evaluate(prof)
    eval_s = time.perf_counter() - t
    print(f"\nCFR+ {args.iterations} iterations on iso: {solve_s:.0f} s; lift {lift_s:.1f} s; "
          f"raw evaluation {eval_s:.2f} s")
    print(f"{'':24s}{'iso game':>22s}{'raw game (lifted)':>22s}{'difference':>12s}")
    for name, a, b in (("value (player 1)", v_iso, r.value), ("P1 best response", b1, r.br1),
                       ("P2 best response", b2, r.br2),
                       ("exploitability", 0.5 * (b1 - b2), r.exploitability)):
        print(f"{name:24s}{a:22.15f}{b:22.15f}{b - a:12.1e}")
    print(f"raw value from player 2's side: {r.value_check:.15f}")

    if args.buckets:
        print("\n| buckets | abstract value | abstract exploitability | raw value (lifted) | raw exploitability |")
        print("|---:|---:|---:|---:|---:|")
        for nb in [int(s) for s in args.buckets.split(",") if s]:
            sf = sequence_form(draw27(nb))
            xb, yb, vb = solve_lp(sf)
            c1, c2 = best_response_values(sf, xb, yb)
            rb = raw.evaluate(raw.lift(sf, xb, yb, nb))
            print(f"| {nb} | {vb:.6f} | {0.5 * (c1 - c2):.1e} | {rb.value:.6f} | {rb.exploitability:.6f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
