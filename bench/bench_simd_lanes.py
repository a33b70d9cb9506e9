"""The river passes of the exact best response (issue 51) written with ``solve.holdem._simd``
values against the same passes written lane by lane (``for w in range(LANES)``, as numba
compiles them: scalar, its SLP vectoriser being off), side by side on one real river board.

    python -m bench.bench_simd_lanes
    python -m bench.bench_simd_lanes --board 12,16,49,3,30 --reps 3000

Both versions of each pass give the same bits (checked here too). The vectors start on 64-byte
lines as the kernel allocates them (``_simd.zeros64``); ``--offset 16`` moves them all
16 bytes off. Reports microseconds per call
(CPU time, best of five means; 8 lanes x the board's 1,081 hands; a river board of the full game calls the showdown pass
about 1,278 times, both seats) and the ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from solve.holdem import _br_kernels as B
from solve.holdem import _br_lanes as L
from solve.holdem import best_response as BR
from solve.holdem._simd import zeros64

W = L.LANES


@njit(cache=True, inline="always")
def _scalar_add(i, j, reach, sa, sb, card, cum):
    """Add hands ``i .. j-1``'s reach to the lanes' totals and their cards' sums, lane by lane
    (the previous kernel's ``_add_hands``)."""
    for k in range(i, j):
        a = sa[k] * W
        b = sb[k] * W
        for w in range(W):
            x = reach[k * W + w]
            cum[w] += x
            card[a + w] += x
            card[b + w] += x


@njit(cache=True)
def scalar_fold(reach, pay, H, sa, sb, card, cum, out):
    """``_br_lanes.lanes_fold`` lane by lane (the kernel before ``_simd``)."""
    card[:] = 0.0
    cum[:] = 0.0
    _scalar_add(0, H, reach, sa, sb, card, cum)
    for k in range(H):
        a = sa[k] * W
        b = sb[k] * W
        o = k * W
        for w in range(W):
            out[o + w] = (cum[w] - card[a + w] - card[b + w] + reach[o + w]) * pay[w]


@njit(cache=True)
def scalar_showdown(reach, pay, H, sa, sb, gend, card, cum, out):
    """``_br_lanes.lanes_showdown`` (without its fold) lane by lane."""
    card[:] = 0.0
    cum[:] = 0.0
    i = 0
    while i < H:
        j = gend[i]
        for k in range(i, j):
            a = sa[k] * W
            b = sb[k] * W
            for w in range(W):
                out[k * W + w] = cum[w] - card[a + w] - card[b + w]
        _scalar_add(i, j, reach, sa, sb, card, cum)
        for k in range(i, j):
            a = sa[k] * W
            b = sb[k] * W
            o = k * W
            for w in range(W):
                out[o + w] += cum[w] - card[a + w] - card[b + w] + reach[o + w]
        i = j
    for k in range(H):
        a = sa[k] * W
        b = sb[k] * W
        o = k * W
        for w in range(W):
            f = cum[w] - card[a + w] - card[b + w] + reach[o + w]
            out[o + w] = pay[w] * (out[o + w] - f)


def per_call_us(f, args, reps: int, rounds: int = 5) -> float:
    """CPU microseconds per call: the best of ``rounds`` means of ``reps`` calls."""
    f(*args)
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        for _ in range(reps):
            f(*args)
        best = min(best, (time.process_time() - t) / reps)
    return 1e6 * best


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", default="12,16,49,3,30", help="five card numbers 0..51")
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--offset", type=int, default=0, choices=(0, 8, 16, 24, 32),
                    help="bytes the vectors start past a 64-byte line (0: on one, as the kernel "
                         "allocates them; numba's own arrays are 32-byte aligned)")
    args = ap.parse_args(argv)
    board = np.array([int(c) for c in args.board.split(",")], np.int64)
    if len(board) != 5 or len(set(board.tolist())) != 5 or not ((0 <= board) & (board < 52)).all():
        ap.error("--board takes five distinct cards 0..51")
    dpa, dpb, dpi = BR.deck_pairs(BR.FULL_DECK)
    P = len(dpi)
    sidx, sa, sb, gend = (np.zeros(P, np.int64) for _ in range(4))
    H = B.sorted_hands(board, dpa, dpb, dpi, P, sidx, sa, sb, gend)
    rng = np.random.default_rng(args.seed)

    def vector(n):
        return zeros64(n + W)[args.offset // 8:][:n]

    reach = vector(P * W)
    reach[:] = rng.random(P * W)
    pay = rng.random(W)
    card, cum = vector(52 * W), np.zeros(W)
    out = {k: vector(P * W) for k in ("a", "b")}
    rows = []
    a = per_call_us(scalar_showdown, (reach, pay, H, sa, sb, gend, card, cum, out["a"]), args.reps)
    b = per_call_us(L.lanes_showdown, (reach, pay, H, sa, sb, gend, card, out["b"]), args.reps)
    rows.append(("showdown", a, b, np.array_equal(out["a"], out["b"])))
    a = per_call_us(scalar_fold, (reach, pay, H, sa, sb, card, cum, out["a"]), args.reps)
    b = per_call_us(L.lanes_fold, (reach, pay, H, sa, sb, card, out["b"]), args.reps)
    rows.append(("fold", a, b, np.array_equal(out["a"], out["b"])))
    print(f"board {args.board}: {H:,} hands x {W} lanes, {len(set(gend[:H].tolist())):,} tie "
          f"groups; CPU microseconds per call (best of 5 means of {args.reps} calls)")
    print(f"{'pass':<10} {'lane by lane':>13} {'_simd':>8} {'ratio':>6}  same bits")
    for name, a, b, same in rows:
        print(f"{name:<10} {a:>13.1f} {b:>8.1f} {a / b:>5.2f}x  {same}")


if __name__ == "__main__":
    main()
