"""Range pictures: the classic 13x13 grid of a Texas Hold'em strategy at one situation.

    python cli.py plot-range NAME --history rc/ --board 7c8h9s --out range.png

Rows and columns are ranks from ace down to deuce; pairs on the diagonal, suited hands above
it (row = higher rank), offsuit hands below. Each cell is one of the 169 preflop classes; its
probabilities are the mean over the class's card combinations the board does not block
(each combination looked up with :mod:`solve.lookup`, so each is mapped to its own bucket).
One panel per action, coloured by that action's probability; the picture every poker player
reads at a glance. ``range_grid`` returns the numbers (for the JSON API and tests).

Honest about training (issue 47): a combination whose information set the solver never trained
(average-strategy weight 0, ``solve.lookup``'s ``training``) holds only the table's uniform
default, so it is left out of its cell's mean; a cell none of whose combinations was trained is
NaN (null in JSON) and drawn grey with "never trained", and ``never_trained`` /
``barely_trained`` count the combinations of each cell that were (a cell with barely trained
ones is marked "*" in the picture).
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from etl.cards import RANK_CHARS, format_card, parse_cards
from schema.errors import UserError
from schema.storage import AtomicFile
from solve.lookup import HoldemLookup, open_lookup

RANKS_DESC = RANK_CHARS[::-1]  # A K Q ... 2: the grid's row and column order


def cell_of(c0: int, c1: int) -> tuple[int, int]:
    """(row, column) of hole cards c0, c1 in the grid (suited above the diagonal)."""
    r0, r1 = 12 - c0 // 4, 12 - c1 // 4  # 0 = ace
    hi, lo = min(r0, r1), max(r0, r1)
    return (hi, lo) if c0 % 4 == c1 % 4 else (lo, hi)


def cell_name(row: int, col: int) -> str:
    """"AA", "AKs" (above the diagonal), "AKo" (below)."""
    if row == col:
        return RANKS_DESC[row] * 2
    hi, lo = min(row, col), max(row, col)
    return RANKS_DESC[hi] + RANKS_DESC[lo] + ("s" if row < col else "o")


def range_grid(data_dir, name: str, history: str = "", board: str = "", look=None) -> dict:
    """``{"actions": [...], "player": p, "seat": name, "probabilities": (A, 13, 13) list,
    "combos": (13, 13) list, "never_trained": (13, 13), "barely_trained": (13, 13), "cells":
    (13, 13) names}`` of Texas Hold'em strategy ``name`` at ``history`` and ``board`` (the
    acting player's hands; each cell the mean over its unblocked combinations the solver
    trained, NaN where there are none: module docstring); ``look``: the strategy's look-up if
    already open."""
    look = open_lookup(data_dir, name) if look is None else look
    if not isinstance(look, HoldemLookup):
        raise UserError(f"range grids are for Texas Hold'em strategies (two hole cards); "
                        f"{name!r} is not one")
    try:
        board_ids = [int(c) for c in parse_cards(board or "")]
    except ValueError as exc:
        raise UserError(str(exc)) from None
    actions, player, seat = None, None, None
    total = count = trained = never = barely = None
    for c0, c1 in combinations(range(52), 2):
        if c0 in board_ids or c1 in board_ids:
            continue
        got = look.at(format_card(c1) + format_card(c0), board, history)
        if actions is None:
            actions, player, seat = got.actions, got.player, got.seat
            total = np.zeros((len(actions), 13, 13))
            count, trained, never, barely = (np.zeros((13, 13)) for _ in range(4))
        r, c = cell_of(c0, c1)
        count[r, c] += 1
        if got.training == "never trained":
            never[r, c] += 1
            continue
        barely[r, c] += got.training == "barely trained"
        total[:, r, c] += got.probabilities
        trained[r, c] += 1
    if actions is None:
        raise UserError("the board blocks every hand")
    with np.errstate(invalid="ignore"):
        probs = total / trained
    return {"strategy": name, "history": history, "board": board, "player": player,
            "seat": seat, "actions": actions, "probabilities": probs.tolist(),
            "combos": count.tolist(), "never_trained": never.tolist(),
            "barely_trained": barely.tolist(),
            "cells": [[cell_name(r, c) for c in range(13)] for r in range(13)]}


def plot_range(grid: dict, path: Path) -> Path:
    """One 13x13 panel per action, coloured by its probability; PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    probs = np.asarray(grid["probabilities"], dtype=float)
    combos = np.asarray(grid["combos"], dtype=float)
    never = np.asarray(grid.get("never_trained", np.zeros((13, 13))), dtype=float)
    barely = np.asarray(grid.get("barely_trained", np.zeros((13, 13))), dtype=float)
    k = len(grid["actions"])
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#d0d0d0")  # NaN: never trained
    fig, axes = plt.subplots(1, k, figsize=(4.6 * k, 4.9), squeeze=False)
    for a, ax in enumerate(axes[0]):
        im = ax.imshow(probs[a], vmin=0, vmax=1, cmap=cmap)
        for r in range(13):
            for c in range(13):
                v = probs[a, r, c]
                untrained = combos[r, c] > 0 and never[r, c] == combos[r, c]
                text = grid["cells"][r][c] + ("*" if barely[r, c] else "")
                ax.text(c, r, text + ("\nnever\ntrained" if untrained else ""), ha="center",
                        va="center", fontsize=3.8 if untrained else 5.5,
                        color="white" if not np.isnan(v) and v < 0.5 else "black")
        ax.set_xticks(range(13), list(RANKS_DESC))
        ax.set_yticks(range(13), list(RANKS_DESC))
        ax.set_title(f"{grid['actions'][a]}")
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.suptitle(f"{grid['strategy']}: {seat_label(grid)}, history "
                 f"'{grid['history'] or '-'}', board {grid['board'] or '-'}"
                 + ("  (grey: never trained, *: barely trained combinations)"
                    if never.any() or barely.any() else ""))
    fig.tight_layout()
    path = Path(path)
    try:  # atomic: a half-written picture never has the final name, and no temp file stays
        with AtomicFile(path, checksum=False) as f:
            fig.savefig(f.tmp, dpi=130, format="png")
    finally:
        plt.close(fig)
    return path


def seat_label(grid: dict) -> str:
    """"big blind, player 2" (the seat's name and number, numbered from 1)."""
    number = f"player {grid['player']}"
    seat = grid.get("seat") or number
    return number if seat == number else f"{seat}, {number}"
