"""LBR per seat read against the game's value (issue 17): for each stored Hold'em strategy, LBR
as each seat and the strategy's own self-play value to the small blind v, over the same sampled
boards (exact over every deal of hole cards of each board), and what LBR gains beyond the
seat's value: LBR as SB - v (exploiting its big blind's play), LBR as BB + v (its small
blind's). With ``--current`` a run's current strategy (regret matching on its checkpoint's
regrets) is measured too, beside the average of the same checkpoint, and played against it.

    NUMBA_NUM_THREADS=2 python -m bench.bench_holdem_seats --data-dir D pa-h64-1t@382085 \\
        pa-cs-1t@9936349 --boards 400
    NUMBA_NUM_THREADS=2 python -m bench.bench_holdem_seats --data-dir D --current pa-h64-1t \\
        --boards 400 --deals 300000

The boards are those of ``bench_holdem_methods.py``'s LBR (seed 2024), so its per-seat
figures and these are paired.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np


from schema.errors import UserError
from solve.holdem.evaluate import (Policy, board_lbr, board_seat_values,
                                   duplicate_match, sample_boards, to_mbb)
from solve.holdem.run import load_policy, run_game

#: the LBR boards of bench_holdem_methods.py
BOARD_SEED = 2024


def seat_row(name: str, pol: Policy, tree, boards: np.ndarray) -> dict:
    """LBR per seat, the self-play value to the small blind, and LBR beyond the seat's value."""
    t0 = time.perf_counter()
    lbr, s0, s1 = board_lbr(tree, pol, len(boards), seed=BOARD_SEED, boards=boards)
    v = to_mbb(board_seat_values(tree, pol, pol, boards), tree.rules.big_blind)
    return {"strategy": name, "lbr": lbr.mean, "lbr_hw": lbr.half_width, "as_sb": s0.mean,
            "as_bb": s1.mean, "v_sb": v.mean, "v_sb_hw": v.half_width,
            "beyond_sb": s0.mean - v.mean, "beyond_bb": s1.mean + v.mean,
            "seconds": round(time.perf_counter() - t0, 1)}


def current_and_average(name: str, ddir: Path, cache: dict) -> tuple[Policy, Policy, object]:
    """A run's current strategy and average strategy of its newest checkpoint (read together:
    refused if the checkpoint is replaced meanwhile)."""
    ck = ddir / "strategies" / name / "checkpoint"
    try:
        state = (ck / "state.json").read_text()
        regrets, average = np.load(ck / "regrets.npy"), np.load(ck / "average.npy")
        if (ck / "state.json").read_text() != state:
            raise UserError(f"checkpoint of {name!r} replaced while being read; run again")
    except (OSError, ValueError) as exc:
        raise UserError(f"no checkpoint of run {name!r} in {ck} ({exc}; a finished run keeps "
                        "it only when solved with --keep-checkpoint)") from None
    it = json.loads(state)["iteration"]
    tree, buckets = run_game(name, ddir, cache)
    cur = Policy.table(f"{name} current@{it}", tree, buckets,
                       np.maximum(regrets, 0).astype(np.float32))
    avg = Policy.table(f"{name} average@{it}", tree, buckets, average)
    return cur, avg, tree


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("strategies", nargs="*", help="NAME or NAME@ITERATIONS")
    ap.add_argument("--current", action="append", default=[], metavar="RUN",
                    help="also a run's current strategy against its average (repeatable)")
    ap.add_argument("--boards", type=int, default=400)
    ap.add_argument("--deals", type=int, default=300_000,
                    help="duplicate deals of current against average")
    ap.add_argument("--json", default=None, help="also write the rows here")
    args = ap.parse_args(argv)
    if args.boards < 2 or args.deals < 2:
        print("error: --boards and --deals must be at least 2", file=sys.stderr)
        return 2
    ddir, cache, rows = Path(args.data_dir), {}, []
    boards = sample_boards(args.boards, seed=BOARD_SEED)
    try:
        for spec in args.strategies:
            pol, tree = load_policy(spec, ddir, cache)
            rows.append(seat_row(spec, pol, tree, boards))
        for run in args.current:
            cur, avg, tree = current_and_average(run, ddir, cache)
            for pol in (cur, avg):
                rows.append(seat_row(pol.name, pol, tree, boards))
            e = duplicate_match(tree, cur, avg, args.deals, seed=21)
            rows[-2].update(h2h_vs_average=e.mean, h2h_hw=e.half_width)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"LBR and self-play value v to the small blind over {args.boards} boards; mbb/g, 95%")
    print("| strategy | LBR (as SB / as BB) | v | LBR as SB - v | LBR as BB + v | vs average |")
    print("|---|---|---|---:|---:|---|")
    for r in rows:
        h2h = f"{r['h2h_vs_average']:+.1f} +- {r['h2h_hw']:.1f}" if "h2h_hw" in r else ""
        print(f"| {r['strategy']} | {r['lbr']:+.1f} +- {r['lbr_hw']:.1f} ({r['as_sb']:.0f} / "
              f"{r['as_bb']:.0f}) | {r['v_sb']:+.1f} +- {r['v_sb_hw']:.1f} | "
              f"{r['beyond_sb']:.0f} | {r['beyond_bb']:.0f} | {h2h} |", flush=True)
    if args.json:  # atomically: a temporary file, then renamed
        tmp = Path(args.json).with_name(Path(args.json).name + ".tmp")
        tmp.write_text(json.dumps(rows, indent=1))
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
