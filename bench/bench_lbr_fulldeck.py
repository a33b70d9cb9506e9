"""Issue 51: LBR's per-board values on the full deck for one stored strategy, and whether the
95% interval ``evaluate`` states for 400 boards is honest there.

``evaluate NAME --lbr-boards 400`` and the comparison bench (``bench_holdem_methods.py``,
``evaluate --curve``) compute the same thing, ``solve.holdem.evaluate.board_lbr_values``, on
different boards (``sample_boards`` with seed 8, and seed 2024 through ``assess.same_boards``),
and for the default one-hour `pa` strategy they disagreed by 2.8 standard errors. Here LBR is
computed on ``--boards`` boards of one seed, in blocks of ``--block``, each kept in the run's
``evaluations/`` as it finishes (``assess.stored_board_lbr``, with the strategy's identity), so
the command resumes and can be extended; the first block is ``same_boards(block, seed)``, the
very figures the comparison bench and ``--curve`` store for those boards (shared both ways).
The report gives: each block's
mean and interval as ``evaluate`` states it, how many of those intervals cover the mean of all
boards, the mean over all boards, and the per-board distribution (excess kurtosis, the
largest values) that the interval's normal approximation assumes away.

    python -m bench.bench_lbr_fulldeck --data-dir D --strategy pa-1h --boards 2000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from bench._common import excess_kurtosis
from solve.holdem.assess import stored_board_lbr
from solve.holdem.evaluate import lbr_runouts, sample_boards, to_mbb
from solve.holdem.run import load_policy


def block_key(b: int, block: int, seed: int) -> dict:
    """The stored figure's key of block ``b``: block 0 is ``assess.same_boards(block, seed)``'s
    (the boards are drawn prefix-consistently), later ones say where they start."""
    key = {"boards": block, "seed": seed}
    return key if b == 0 else {**key, "first": b * block}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--strategy", required=True)
    ap.add_argument("--boards", type=int, default=2000)
    ap.add_argument("--block", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    if args.boards < args.block or args.boards % args.block:
        print("error: --boards must be a positive multiple of --block", file=sys.stderr)
        return 2
    ddir = Path(args.data_dir)
    pol, tree = load_policy(args.strategy, ddir, {})
    bb = float(tree.rules.big_blind)
    boards = sample_boards(args.boards, args.seed)
    perms = lbr_runouts(args.boards, args.seed)
    blocks = []
    for b in range(args.boards // args.block):
        s = slice(b * args.block, (b + 1) * args.block)
        t = time.process_time()
        blocks.append(stored_board_lbr(ddir, args.strategy, boards[s], perms[s],
                                       block_key(b, args.block, args.seed), lambda: (tree, pol)))
        m = to_mbb(blocks[-1].mean(axis=1), bb)
        print(f"block {b} (boards {s.start}-{s.stop - 1}): {m.mean:+.1f} +- {m.half_width:.1f} "
              f"mbb/g [{time.process_time() - t:.0f} CPU s]", flush=True)
    v = np.concatenate(blocks)
    per_board = v.mean(axis=1)
    total = to_mbb(per_board, bb)
    est = [to_mbb(x.mean(axis=1), bb) for x in blocks]
    covers = sum(abs(e.mean - total.mean) <= e.half_width for e in est)
    mbb = per_board * 1000.0 / bb
    print(f"\n{args.strategy}, {len(v):,} boards of seed {args.seed}: LBR {total.mean:+.1f} +- "
          f"{total.half_width:.1f} mbb/g (as small blind {to_mbb(v[:, 0], bb).mean:+.1f}, as big "
          f"blind {to_mbb(v[:, 1], bb).mean:+.1f})")
    spread = float(np.std([e.mean for e in est], ddof=1)) if len(est) > 1 else float("nan")
    print(f"blocks of {args.block} whose stated 95% interval covers that mean: {covers} of "
          f"{len(blocks)}; the block means' standard deviation {spread:.1f} mbb/g against the "
          f"standard error a block states, {np.mean([e.half_width for e in est]) / 1.96:.1f}")
    print(f"per board (mean over seats): sd {mbb.std():.0f} mbb/g, excess kurtosis "
          f"{excess_kurtosis(mbb):.2f}, largest {np.sort(mbb)[-3:].round(0)}, smallest "
          f"{np.sort(mbb)[:3].round(0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
