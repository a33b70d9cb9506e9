"""The exact best response on the full deck against the closed form of always-call, flop by flop
(issue 51's oracle (a), on canonical flops of the real 52-card game).

    python -m bench.check_always_call_flops --data-dir DIR --flops 0,877,1754
    python -m bench.check_always_call_flops --data-dir DIR --whole-game --store DIR/ac-store

An opponent who only checks and calls reveals nothing, so the responder's best response is read
off the equity tables: on a flop it bets the flop, the turn and the river exactly when its
expected showdown result there against a random hand (``(wins - losses) / outcomes`` of
``equity_flop``, ``equity_turn``, ``equity_river``, card removal included) is positive, and the
opponent calls. Its value at a flop entry where each player has put in ``c`` chips, per
responder hand ``h`` (the public tree sums over the 1,081 opponent hands; each is equally likely
whatever the turn and river, so the sum is 1,081 times the responder's expectation):

    V(h) = 1081 * (c * e1 + b1 * max(e1, 0) + mean_t [b2 * max(e2, 0) + mean_r b3 * max(e3, 0)])

with ``b`` the round's bet (2, 2, 4, 4 chips) and ``e1, e2, e3`` the flop, turn and river
results of ``h`` (the turn over the 47 cards left, the river over the 46 left after it). The
strategy's own value (always-call against itself checks the hand down) is ``1081 * c * e1``.
This script computes ``solve.holdem.best_response.flop_values`` of always-call on each flop
asked for (``--flops``; the walk with suit isomorphism below the flop, as ``evaluate
--best-response exact`` runs it) and the closed form from the tables, and prints, per flop, the
largest difference over every responder hand, seat and flop entry the opponent's calls reach
(and over the entries they do not reach, where both are 0), with the CPU seconds of the walk.
``--whole-game`` checks the whole game instead: the public-tree best response over all 1,755
canonical flops (``exact_best_response``, as ``evaluate --best-response exact`` runs it; each
flop kept in ``--store`` as it finishes, so the command run again resumes) against the closed
form over every canonical hand: R over the 13,960,050 turn hands (the mean over 46 river
cards of ``b3 max(e3, 0)``), F over the 1,286,792 flop hands (the mean over 47 turns of ``b2
max(e2, 0) + R``), then per preflop class the mean over the 19,600 flops of ``b1 max(e1, 0) +
F`` and the preflop decision: the small blind ``max(-1, 2 e0 + L, 4 e0 + L)`` (fold, call,
raise; the big blind always calls a raise and checks a call), the big blind ``max(2 e0 + L, 4
e0 + L)``, ``e0`` from ``equity_preflop``; each seat's value the mean over the 1,326 hole
pairs. The equity tables must be built (``python cli.py --data-dir DIR etl --tables
equity_flop,equity_turn,equity_river``). Exit status 1 when a difference exceeds ``--tol``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

from etl import storage
from etl.cards import format_cards
from etl.isomorphism import HandIndexer
from solve.holdem import best_response as BR
from solve.holdem.buckets import synthetic_buckets
from solve.holdem.evaluate import Policy
from solve.holdem.game import HoldemRules, build_tree

#: the equity table of the hands with 0 (preflop), 3, 4 or 5 board cards
TABLES = {0: "equity_preflop", 3: "equity_flop", 4: "equity_turn", 5: "equity_river"}
OPPONENTS = 1081  # C(47, 2) opponent hands beside a hand and a flop
#: what the ``--whole-game`` store's flops are of
STORE_KEY = {"kind": "always-call-check", "deck": 52}


def results(data_dir: Path, n_board: int) -> np.ndarray:
    """``(wins - losses) / (wins + ties + losses)`` of every canonical ``[2, n_board]`` hand,
    indexed by its canonical index."""
    t = storage.read_table(data_dir, TABLES[n_board], columns=["idx", "wins", "ties", "losses"])
    w, ti, lo = (t.column(c).to_numpy().astype(np.float64) for c in ("wins", "ties", "losses"))
    out = np.full(HandIndexer((2, n_board) if n_board else (2,)).size, np.nan)
    out[t.column("idx").to_numpy()] = (w - lo) / (w + ti + lo)
    return out


def closed_form(flop: np.ndarray, e: dict[int, np.ndarray], bets) -> tuple[np.ndarray, ...]:
    """(pair indices of the hands beside ``flop``, e1, the rest of the best response's value
    L = b1 max(e1, 0) + mean_t [...]) per hand."""
    dpa, dpb, dpi = BR.deck_pairs(BR.FULL_DECK)
    live = ~(np.isin(dpa, flop) | np.isin(dpb, flop))
    a, b, pi = dpa[live], dpb[live], dpi[live]
    n = len(pi)
    idx3, idx4, idx5 = HandIndexer((2, 3)), HandIndexer((2, 4)), HandIndexer((2, 5))
    hands = np.stack([a, b], axis=1)
    e1 = e[3][idx3.index(np.hstack([hands, np.tile(flop, (n, 1))]))]
    later = np.zeros(n)
    for t in range(52):
        if t in flop:
            continue
        sel_t = np.flatnonzero((a != t) & (b != t))  # the hands beside the turn card
        board4 = np.append(flop, t)
        h_t = hands[sel_t]
        e2 = e[4][idx4.index(np.hstack([h_t, np.tile(board4, (len(sel_t), 1))]))]
        river = np.zeros(len(sel_t))
        for r in range(52):
            if r in board4:
                continue
            sel = np.flatnonzero((h_t[:, 0] != r) & (h_t[:, 1] != r))
            board5 = np.append(board4, r)
            e3 = e[5][idx5.index(np.hstack([h_t[sel], np.tile(board5, (len(sel), 1))]))]
            river[sel] += bets[3] * np.maximum(e3, 0.0)
        river /= 46  # the cards left beside the hand and the turn board
        later[sel_t] += bets[2] * np.maximum(e2, 0.0) + river
    later /= 47
    return pi, e1, bets[1] * np.maximum(e1, 0.0) + later


def _mean_over_next_card(n_board: int, value_next: np.ndarray, chunk: int = 1 << 21
                         ) -> np.ndarray:
    """Per canonical ``[2, n_board]`` hand, the mean of ``value_next`` (indexed by canonical
    ``[2, n_board + 1]`` hands) over the cards that can come next."""
    here, nxt = HandIndexer((2, n_board)), HandIndexer((2, n_board + 1))
    out = np.zeros(here.size)
    left = 52 - 2 - n_board
    for lo in range(0, here.size, chunk):
        idx = np.arange(lo, min(lo + chunk, here.size))
        cards = here.unindex(idx).astype(np.int64)
        acc = np.zeros(len(idx))
        for c in range(52):
            sel = np.flatnonzero((cards != c).all(axis=1))
            rows = np.hstack([cards[sel], np.full((len(sel), 1), c, np.int64)])
            acc[sel] += value_next[nxt.index(rows)]
        out[idx] = acc / left
    return out


def later_per_flop_hand(e: dict[int, np.ndarray], bets, progress=print) -> np.ndarray:
    """Per canonical flop hand, ``b1 max(e1, 0) + F``: the best response's winnings from the
    bets of the flop, turn and river against always-call (the pot before the flop aside)."""
    t0 = time.process_time()
    R = _mean_over_next_card(4, bets[3] * np.maximum(e[5], 0.0))
    progress(f"R over the turn hands: {time.process_time() - t0:.0f} CPU s")
    F = _mean_over_next_card(3, bets[2] * np.maximum(e[4], 0.0) + R)
    progress(f"F over the flop hands: {time.process_time() - t0:.0f} CPU s")
    return bets[1] * np.maximum(e[3], 0.0) + F


def flop_closed_form(flop: np.ndarray, e: dict[int, np.ndarray], later: np.ndarray
                     ) -> tuple[np.ndarray, ...]:
    """:func:`closed_form` read off :func:`later_per_flop_hand` (one index per hand)."""
    dpa, dpb, dpi = BR.deck_pairs(BR.FULL_DECK)
    live = ~(np.isin(dpa, flop) | np.isin(dpb, flop))
    a, b = dpa[live], dpb[live]
    idx = HandIndexer((2, 3)).index(np.stack([a, b, *(np.full(len(a), c) for c in flop)],
                                             axis=1))
    return dpi[live], e[3][idx], later[idx]


def flop_difference(tree, reach: np.ndarray, got: np.ndarray, pi, e1, rest) -> tuple[float, int]:
    """The largest |public tree - closed form| on one flop (``got``: ``flop_values``) over
    every responder hand, seat and flop entry, both the best response and (seat 0's, the one
    the walk computes) the strategy's own value, and the number of (seat, entry) pairs the
    opponent's calls reach."""
    diff, reached = 0.0, 0
    for p in range(2):
        for j, n in enumerate(BR.flop_entries(tree)):
            c = float(tree.spent[n, p])
            if reach[p, j].max() > 0:
                reached += 1
                want_br = OPPONENTS * (c * e1 + rest)
                want_own = OPPONENTS * c * e1
            else:
                want_br = want_own = np.zeros(len(pi))
            diff = max(diff, float(np.abs(got[p, 0, j, pi] - want_br).max()))
            if p == 0:
                diff = max(diff, float(np.abs(got[p, 1, j, pi] - want_own).max()))
    return diff, reached


def whole_game_closed_form(e: dict[int, np.ndarray], bets, later: np.ndarray,
                           progress=print) -> tuple[float, float]:
    """Each seat's best-response chips against always-call, from the equity tables alone."""
    t0 = time.process_time()
    pre, flop_ix = HandIndexer((2,)), HandIndexer((2, 3))
    hole = pre.unindex(np.arange(pre.size)).astype(np.int64)
    dpa, dpb, _ = BR.deck_pairs(BR.FULL_DECK)
    cls = pre.index(np.stack([dpa, dpb], axis=1))  # the class of each of the 1,326 pairs
    value = np.zeros((2, pre.size))
    for k, h in enumerate(hole):
        rest = np.setdiff1d(np.arange(52), h)
        flops = np.array(list(itertools.combinations(rest, 3)), np.int64)
        L = later[flop_ix.index(np.hstack([np.tile(h, (len(flops), 1)), flops]))].mean()
        e0 = e[0][k]
        value[0, k] = max(-1.0, 2 * e0 + L, 4 * e0 + L)
        value[1, k] = max(2 * e0 + L, 4 * e0 + L)
    progress(f"preflop: {time.process_time() - t0:.0f} CPU s")
    return float(value[0, cls].mean()), float(value[1, cls].mean())


def verify_stored(tree, pol, e, later, store, tol) -> int:
    """Every flop a ``--whole-game`` run has finished so far, against its closed form."""
    flops = BR.canonical_flops(BR.FULL_DECK)
    reach = BR.preflop_reach(tree, pol, BR.FULL_DECK)
    shape = BR.values_shape(tree)
    done = store.load(len(flops), shape)
    worst = 0.0
    for i in sorted(done):
        diff, _ = flop_difference(tree, reach, done[i],
                                  *flop_closed_form(np.asarray(flops[i].cards), e, later))
        worst = max(worst, diff)
    ok = worst <= tol * OPPONENTS
    print(f"{len(done)} of {len(flops)} canonical flops stored (weight "
          f"{sum(flops[i].weight for i in done):,} of 22,100 flops); largest |public tree - "
          f"closed form| over every hand, seat and entry: {worst:.3e} chips (x1,081): "
          f"{'agree' if ok else 'DISAGREE'}")
    return 0 if ok else 1


def whole_game(args, tree, pol, e) -> int:
    bets = tree.rules.bets
    say = lambda m: print(m, flush=True)  # noqa: E731
    later = later_per_flop_hand(e, bets, say)
    closed = whole_game_closed_form(e, bets, later, say)
    bb = tree.rules.big_blind
    say(f"closed form: small blind {closed[0]:.12f} chips ({closed[0] * 1000 / bb:.3f} mbb/g), "
        f"big blind {closed[1]:.12f} chips ({closed[1] * 1000 / bb:.3f} mbb/g); mean "
        f"{(closed[0] + closed[1]) * 500 / bb:.3f} mbb/g")
    store = BR.FlopStore(Path(args.store), STORE_KEY)
    if args.verify_stored:
        return verify_stored(tree, pol, e, later, store, args.tol)
    t0 = time.process_time()
    with store.locked():
        got = BR.exact_best_response(tree, pol, BR.FULL_DECK, store=store, progress=True)
    print(f"public tree over {got.flops} canonical flops: {time.process_time() - t0:.0f} CPU s "
          "in this process (flops resumed from the store not counted)", flush=True)
    worst = 0.0
    for p, seat in enumerate(("small blind", "big blind")):
        d = abs(got.br[p] - closed[p])
        worst = max(worst, d)
        print(f"{seat}: public tree {got.br[p]:.12f} chips, closed form {closed[p]:.12f} "
              f"chips, difference {d:.3e} ({got.br[p] * 1000 / tree.rules.big_blind:.3f} "
              "mbb/g)")
    ok = worst <= args.tol
    print(f"{'agree' if ok else 'DISAGREE'}: largest difference {worst:.3e} chips "
          f"(tolerance {args.tol:g})")
    return 0 if ok else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, required=True,
                    help="a data directory with equity_flop, equity_turn, equity_river")
    ap.add_argument("--flops", default="0,877,1754",
                    help="canonical flop numbers (0..1754), comma-separated")
    ap.add_argument("--tol", type=float, default=1e-9,
                    help="largest allowed difference per hand, relative to 1,081 chips "
                    "(--whole-game: per seat, in chips)")
    ap.add_argument("--whole-game", action="store_true",
                    help="check each seat's whole-game value instead (all 1,755 flops)")
    ap.add_argument("--store", type=Path,
                    help="--whole-game: the folder that keeps finished flops (resumable)")
    ap.add_argument("--verify-stored", action="store_true",
                    help="--whole-game: only check the flops already in --store against "
                    "their closed form (another run may still be adding flops)")
    args = ap.parse_args(argv)
    if args.whole_game and args.store is None:
        ap.error("--whole-game needs --store")
    tree = build_tree(HoldemRules())
    bets = tree.rules.bets
    pol = Policy.always_call(tree, synthetic_buckets((2, 2, 2, 2), name="any"))
    t0 = time.process_time()
    e = {n: results(args.data_dir, n) for n in (0, 3, 4, 5)}
    print(f"equity tables read: {time.process_time() - t0:.0f} CPU s", flush=True)
    if args.whole_game:
        return whole_game(args, tree, pol, e)
    flops = BR.canonical_flops(BR.FULL_DECK)
    reach = BR.preflop_reach(tree, pol, BR.FULL_DECK)
    entries = BR.flop_entries(tree)
    worst = 0.0
    for i in (int(x) for x in args.flops.split(",")):
        f = np.asarray(flops[i].cards, np.int64)
        t0 = time.process_time()
        got = BR.flop_values(tree, pol, f, reach, BR.FULL_DECK)
        walk = time.process_time() - t0
        pi, e1, rest = closed_form(f, e, bets)
        diff, reached = flop_difference(tree, reach, got, pi, e1, rest)
        worst = max(worst, diff)
        names = format_cards(f.astype(np.uint8))
        print(f"flop {i} ({names}): walk {walk:.1f} CPU s; {reached} of {2 * len(entries)} "
              f"seat-entries reached; largest |public tree - closed form| over "
              f"{len(pi)} hands: {diff:.3e} chips (x1,081)", flush=True)
    ok = worst <= args.tol * OPPONENTS
    print(f"{'agree' if ok else 'DISAGREE'}: largest difference {worst:.3e} "
          f"(tolerance {args.tol:g} x 1,081 chips)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
