"""Issue 51: LBR's per-board values on the full deck for one stored strategy, and whether the
95% interval ``evaluate`` states for 400 boards is honest there.

``evaluate NAME --lbr-boards 400`` and the comparison bench (``bench_holdem_methods.py``,
``evaluate --curve``) compute the same thing, ``solve.holdem.evaluate.board_lbr_values``, on
different boards (``sample_boards`` with seed 8, and seed 2024 through ``curve.same_boards``),
and for the default one-hour `pa` strategy they disagreed by 2.8 standard errors. Here LBR is
computed on ``--boards`` boards of one seed (in blocks of ``--block``, each kept as
``block<i>.npy`` under ``--store`` as it finishes, so the command resumes and can be extended;
the first block of seed 2024 is the bench's 400 boards), and the report gives: each block's
mean and interval as ``evaluate`` states it, how many of those intervals cover the mean of all
boards, the mean over all boards, and the per-board distribution (excess kurtosis, the
largest values) that the interval's normal approximation assumes away.

    python -m bench.bench_lbr_fulldeck --data-dir D --strategy pa-1h --boards 2000
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from solve.holdem.evaluate import board_lbr_values, lbr_runouts, sample_boards, to_mbb
from solve.holdem.run import load_policy


def block_values(tree, pol, boards, perms, path: Path) -> np.ndarray:
    """(boards, 2) LBR chips per board and seat, read from ``path`` or computed and written
    there atomically."""
    if path.exists():
        return np.load(path)
    out = np.asarray(board_lbr_values(tree, pol, boards, perms))
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, out)
    os.replace(tmp, path)
    return out


def kurtosis(x: np.ndarray) -> float:
    d = x - x.mean()
    return float((d ** 4).mean() / (d ** 2).mean() ** 2 - 3.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--strategy", required=True)
    ap.add_argument("--boards", type=int, default=2000)
    ap.add_argument("--block", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--store", default=None,
                    help="default DATA/strategies/NAME/evaluations/lbr-blocks-seed<SEED>")
    args = ap.parse_args()
    if args.boards < args.block or args.boards % args.block:
        print("error: --boards must be a positive multiple of --block", file=sys.stderr)
        return 2
    ddir = Path(args.data_dir)
    store = Path(args.store or ddir / "strategies" / args.strategy / "evaluations"
                 / f"lbr-blocks-seed{args.seed}")
    store.mkdir(parents=True, exist_ok=True)
    pol, tree = load_policy(args.strategy, ddir, {})
    bb = float(tree.rules.big_blind)
    boards = sample_boards(args.boards, args.seed)
    perms = lbr_runouts(args.boards, args.seed)
    blocks = []
    for b in range(args.boards // args.block):
        s = slice(b * args.block, (b + 1) * args.block)
        t = time.process_time()
        blocks.append(block_values(tree, pol, boards[s], perms[s], store / f"block{b}.npy"))
        m = to_mbb(blocks[-1].mean(axis=1), bb)
        print(f"block {b} (boards {s.start}-{s.stop - 1}): {m.mean:+.1f} +- {m.half_width:.1f} mbb/g "
              f"[{time.process_time() - t:.0f} CPU s]", flush=True)
    v = np.concatenate(blocks)
    per_board = v.mean(axis=1)
    total = to_mbb(per_board, bb)
    est = [to_mbb(x.mean(axis=1), bb) for x in blocks]
    covers = sum(abs(e.mean - total.mean) <= e.half_width for e in est)
    mbb = per_board * 1000.0 / bb
    print(f"\n{args.strategy}, {len(v):,} boards of seed {args.seed}: LBR {total.mean:+.1f} +- "
          f"{total.half_width:.1f} mbb/g (as small blind {to_mbb(v[:, 0], bb).mean:+.1f}, as big blind "
          f"{to_mbb(v[:, 1], bb).mean:+.1f})")
    spread = float(np.std([e.mean for e in est], ddof=1)) if len(est) > 1 else float("nan")
    print(f"blocks of {args.block} whose stated 95% interval covers that mean: {covers} of "
          f"{len(blocks)}; the block means' standard deviation {spread:.1f} mbb/g against the "
          f"standard error a block states, {np.mean([e.half_width for e in est]) / 1.96:.1f}")
    print(f"per board (mean over seats): sd {mbb.std():.0f} mbb/g, excess kurtosis "
          f"{kurtosis(mbb):.2f}, largest {np.sort(mbb)[-3:].round(0)}, smallest "
          f"{np.sort(mbb)[:3].round(0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
