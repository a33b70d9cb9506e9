"""Where a river board's time goes in the exact best response (issue 51): each part of the river
walk stubbed out or done twice, in copies of the kernel modules loaded side by side in one
process with the current ones, on one canonical flop of the full game.

    python -m bench.bench_br_breakdown --data-dir D --abstraction holdem-pa-20-800-4800-28800
    python -m bench.bench_br_breakdown --flop 0 --turns 2 --reps 3     # synthetic buckets

Each variant is the current ``solve/holdem/_br_kernels.py`` and ``_br_lanes.py`` with one text
patch (a patch whose anchor is gone fails loudly: update it with the kernels). A part's cost is
the base's time less the variant's (stubbed) or the variant's less the base's (done twice):

- the showdowns' passes up the tie groups (``_up_the_ties``: two of a showdown's three
  passes, in ``lanes_showdown`` and in ``lanes_fold_call_max``, the responder's fold and call
  valued together) stubbed; their last pass is left;
- the opponent's folds (``lanes_fold``) stubbed;
- the decision nodes' pass (the responder's max and the strategy's mix, the opponent's sums)
  skipped;
- the forward reach products (``lanes_forward``) done twice;
- the river roots' reach gathered from the turn's vectors twice;
- the river roots' sums added to the turn's accumulators skipped;
- the probability fill (``fill_group_probs``) done twice;
- the whole river walk (``river_lanes``) stubbed: what is left is the fill, the river boards'
  set-up and the flop and turn levels.

Stubbed parts change the values (the variants' results are only timed); the copies compile once
into ``--work-dir`` (numba's cache there, about half a minute each), so a second run is quick.
CPU milliseconds per river board (both seats), the best of ``--reps`` rounds, the variants taken
in turn in each round so that a shared machine's drift hits them alike.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

from bench.bench_holdem_best_response import setup, walk_inputs
from solve.holdem import best_response as BR
from solve.holdem.buckets import indexer_tables

KERNELS = Path(BR.__file__).resolve().parent

#: (name, what it measures, sign: +1 the part done twice, -1 stubbed, file, anchor, replacement)
VARIANTS = [
    ("showdown", "showdowns' passes up the tie groups", -1, "_br_lanes.py",
     "    card[:] = 0.0\n    cum = zero()\n    i = 0\n", "    return zero()\n    card[:] = 0.0\n"
     "    cum = zero()\n    i = 0\n"),
    ("fold", "the opponent's folds", -1, "_br_lanes.py",
     "    card[:] = 0.0\n    cum = _add_hands(0, H, reach, sa, sb, card, zero())\n",
     "    return\n    card[:] = 0.0\n    cum = _add_hands(0, H, reach, sa, sb, card, zero())\n"),
    ("decision", "decision nodes: max, mix, sums", -1, "_br_lanes.py",
     "        vp = VV[L + l]\n        k = nact[n]\n",
     "        vp = VV[L + l]\n        k = nact[n]\n        if k > 0:\n            continue\n"),
    ("forward", "forward reach products", +1, "_br_lanes.py",
     "    nl = lanes_forward(RT[g0], s, T, Q, prow, RO, LN, LC, SLOT, DEAD, H, ub)\n",
     "    nl = lanes_forward(RT[g0], s, T, Q, prow, RO, LN, LC, SLOT, DEAD, H, ub)\n"
     "    nl = lanes_forward(RT[g0], s, T, Q, prow, RO, LN, LC, SLOT, DEAD, H, ub)\n"),
    ("gather", "root reach gathered from the turn", +1, "_br_lanes.py",
     "        st(x, i * LANES, _lanes_at(flat, so, sidx[i]))\n",
     "        st(x, i * LANES, _lanes_at(flat, so, sidx[i]))\n"
     "        st(x, i * LANES, _lanes_at(flat, so, sidx[i]))\n"),
    ("accumulate", "root sums added for the turn", -1, "_br_lanes.py",
     "    for t in range(nm):", "    for t in range(0):"),
    ("fill", "probability fill", +1, "_br_kernels.py",
     "                fill_group_probs(kind, S, off, T[3], T[4], rnodes3, prow, T[6], RT, g0, "
     "GN[gg],\n                                 ubk, nu, PB3, Q3)\n",
     "                fill_group_probs(kind, S, off, T[3], T[4], rnodes3, prow, T[6], RT, g0, "
     "GN[gg],\n                                 ubk, nu, PB3, Q3)\n" * 2),
    ("no-walk", "all but the river walk (fill, set-up, flop, turn)", 0, "_br_lanes.py",
     "    x = RO[0]\n    live = False\n", "    return False\n    x = RO[0]\n    live = False\n"),
]


def variant(work: Path, name: str, patch: tuple | None):
    """The kernels module of variant ``name`` (``patch``: file, anchor, replacement; None: the
    current kernels, copied too so that every variant is loaded the same way)."""
    tag = name.replace("-", "_")
    d = work / tag
    d.mkdir(parents=True, exist_ok=True)
    src = {f: (KERNELS / f).read_text() for f in ("_br_kernels.py", "_br_lanes.py")}
    src["_br_kernels.py"] = src["_br_kernels.py"].replace(
        "from solve.holdem._br_lanes import", f"from bd_lanes_{tag} import")
    if patch is not None:
        f, anchor, new = patch
        if src[f].count(anchor) != 1:
            raise SystemExit(f"variant {name!r}: its anchor is not once in {f} (the kernels "
                             "changed: update VARIANTS)")
        src[f] = src[f].replace(anchor, new)
    for f, text in (("_br_kernels.py", f"bd_kernels_{tag}.py"),
                    ("_br_lanes.py", f"bd_lanes_{tag}.py")):
        path = d / text
        if not path.exists() or path.read_text() != src[f]:
            path.write_text(src[f])
    module = None
    for stem in (f"bd_lanes_{tag}", f"bd_kernels_{tag}"):  # the lanes first: the kernels'
        # import of them finds them in sys.modules
        spec = importlib.util.spec_from_file_location(stem, d / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[stem] = module
        spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default="data", help="read only")
    ap.add_argument("--abstraction", default=None, help="built abstraction (default synthetic)")
    ap.add_argument("--strategy", default=None, help="a stored strategy in --data-dir")
    ap.add_argument("--pcs-iterations", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--flop", type=int, default=1000, help="canonical flop number (0..1754)")
    ap.add_argument("--turns", type=int, default=2, help="turn orbits walked (0: all)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work-dir", default="/tmp/bench_br_breakdown",
                    help="where the variants and their numba cache are kept")
    args = ap.parse_args(argv)
    if not 0 <= args.flop < 1755 or args.reps < 1 or args.turns < 0:
        ap.error("--flop 0..1754, --reps >= 1, --turns >= 0")
    tree, pol, what = setup(args)
    work = Path(args.work_dir)
    mods = {"base": variant(work, "base", None)}
    for name, _, _, *patch in VARIANTS:
        mods[name] = variant(work, name, tuple(patch))
    flops, reach, entries, (dpa, dpb, dpi), T, (kind, S, off, bk), rows, sizes = walk_inputs(
        tree, pol)
    tabs = indexer_tables()

    def run(mod, f, e, rch, n_turns):
        out = np.zeros((2, 2, e, 1326))
        return mod.flop_values(np.array(f.cards), entries[:e], rch, BR.FULL_DECK, dpa, dpb, dpi,
                               T, kind, S, off, bk, tabs, *rows, *sizes,
                               *BR.board_orbits(f.cards), out, n_turns)

    t = time.perf_counter()
    for mod in mods.values():  # compile (or load from the cache) on an empty flop
        run(mod, flops[0], 0, reach[:, :0], 1)
    print(f"{what}; {len(mods)} kernel variants ready in {time.perf_counter() - t:.0f} s",
          flush=True)
    f = flops[args.flop]
    best = dict.fromkeys(mods, float("inf"))
    for _ in range(args.reps):
        for name, mod in mods.items():
            c = time.process_time()
            walked = run(mod, f, len(entries), reach, args.turns)
            best[name] = min(best[name], (time.process_time() - c) / walked)
    base = 1e3 * best["base"]
    print(f"flop #{args.flop} {f.cards}, {walked} river boards, best of {args.reps}: "
          f"{base:.1f} ms CPU per river board (both seats)")
    print(f"{'part':<52} {'variant':<12} {'ms':>6} {'part ms':>8} {'share':>6}")
    for name, text, sign, *_ in VARIANTS:
        ms = 1e3 * best[name]
        part = ms if sign == 0 else (base - ms if sign < 0 else ms - base)
        how = {-1: "stubbed", 1: "twice", 0: "walk stubbed"}[sign]
        print(f"{text:<52} {how:<12} {ms:>6.1f} {part:>8.1f} {part / base:>6.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
