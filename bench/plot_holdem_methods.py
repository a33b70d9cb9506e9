"""The Hold'em comparison of abstraction methods (issue 20) as one picture, from the figures
``python -m bench.bench_holdem_methods --json`` (or ``python -m bench.holdem_methods_pipeline``)
wrote: the LBR bound of each strategy with its 95% interval and its two seats, the results against
always-call and always-raise, and the round robin as a matrix (row against column, mbb/g).

    python -m bench.plot_holdem_methods /work/data-holdem/holdem-methods.json \
        --out docs/holdem-methods.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


from schema.storage import AtomicFile


def round_robin_matrix(names: list[str], pairs: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Row against column means and half-widths (NaN where a pair was not played)."""
    index = {n: i for i, n in enumerate(names)}
    mean = np.full((len(names), len(names)), np.nan)
    hw = np.full_like(mean, np.nan)
    for p in pairs:
        if p["a"] in index and p["b"] in index:
            i, j = index[p["a"]], index[p["b"]]
            mean[i, j], mean[j, i] = p["h2h"], -p["h2h"]
            hw[i, j] = hw[j, i] = p["h2h_hw"]
    return mean, hw


def plot(figures: dict, out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = figures["rows"]
    names = [r["strategy"] for r in rows]
    labels = [f"{r['strategy']}\n{r['information_sets'] / 1e6:.0f}M sets" for r in rows]
    colors = ["C0" if r["recall"] == "perfect" else "C1" for r in rows]
    x = np.arange(len(rows))
    pairs = figures.get("round_robin") or []
    fig, axes = plt.subplots(1, 3 if pairs else 2, figsize=(19 if pairs else 13, 6.5))

    ax = axes[0]
    for i, r in enumerate(rows):
        if "lbr" in r:
            ax.errorbar(i, r["lbr"], yerr=r["lbr_hw"], fmt="o", capsize=4, color=colors[i])
            ax.plot(i - 0.15, r["lbr_seat0"], "^", color=colors[i], alpha=0.5)
            ax.plot(i + 0.15, r["lbr_seat1"], "v", color=colors[i], alpha=0.5)
    ax.set_title("LBR bound (mbb/g, 95%); ^ as small blind, v as big blind\n"
                 "blue: perfect recall, orange: imperfect recall")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.grid(alpha=0.3)

    ax = axes[1]
    for k, (key, name) in enumerate((("vs_call", "vs always-call"),
                                     ("vs_raise", "vs always-raise"))):
        ax.errorbar(x + (k - 0.5) * 0.25, [r[key] for r in rows],
                    yerr=[r[key + "_hw"] for r in rows], fmt="os"[k], capsize=3,
                    label=name, color=f"C{k + 2}")
    ax.set_title("against the baselines (mbb/g, 95%)")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)

    if pairs:
        ax = axes[2]
        mean, hw = round_robin_matrix(names, pairs)
        lim = np.nanmax(np.abs(mean)) if np.isfinite(mean).any() else 1.0
        ax.imshow(mean, cmap="RdBu", vmin=-1.5 * lim, vmax=1.5 * lim)  # text stays legible
        for i in range(len(names)):
            for j in range(len(names)):
                if np.isfinite(mean[i, j]):
                    ax.text(j, i, f"{mean[i, j]:+.1f}\n+-{hw[i, j]:.1f}", ha="center",
                            va="center", fontsize=6)
        ax.set_xticks(x, names, rotation=60, ha="right", fontsize=7)
        ax.set_yticks(x, names, fontsize=7)
        ax.set_title("round robin: row against column (mbb/g, 95%)")
    fig.tight_layout()
    with AtomicFile(out, checksum=False) as f:
        fig.savefig(f.tmp, dpi=110, format="png")
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("figures", type=Path, help="the JSON of bench_holdem_methods.py --json")
    ap.add_argument("--out", type=Path, default=Path("docs/holdem-methods.png"))
    args = ap.parse_args(argv)
    try:
        figures = json.loads(args.figures.read_text())
        if not figures.get("rows"):
            raise ValueError("no rows")
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.figures}: {exc}", file=sys.stderr)
        return 2
    plot(figures, args.out)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
