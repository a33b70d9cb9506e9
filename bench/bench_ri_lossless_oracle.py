"""Issue 49: GameShrink's Rhode Island classes with the board hidden, on reduced decks.

For each deck (the lowest N ranks of four suits, the published betting): the project's
GameShrink classes (hidden, and refined by the public board), the brute-force strategically
identical classes (tests/ri_oracle.py), and the exact sequence-form LP (HiGHS) of the real
game and of the hidden-board game, with the hidden equilibrium's exploitability in the real
game. Also the sizes of the full game's signal tree and game tree (docs/rhode-island-lossless.md).

    python -m bench.bench_ri_lossless_oracle --ranks 2,3               # ~10 minutes for 3 ranks
    python -m bench.bench_ri_lossless_oracle --ranks 3 --no-lp --lines # where the exploit is
    python -m bench.bench_ri_lossless_oracle --ranks 2 --no-lp --exact # rational values
"""

from __future__ import annotations

import argparse
import time

import pyspiel  # noqa: E402
import numpy as np  # noqa: E402
from tests import ri_oracle as oracle  # noqa: E402
from abstraction.games import rhode_island as ri_hands  # noqa: E402
from abstraction.methods import Lossless  # noqa: E402
from solve.abstractions import RhodeIslandTableAbstraction  # noqa: E402
from solve.algorithms.abstract_cfr import AbstractFormSolver  # noqa: E402
from solve.algorithms.evaluate import best_response_value  # noqa: E402
from solve.algorithms.lp_exact import solve_exact  # noqa: E402
from solve.algorithms.treeplex import best_response_values  # noqa: E402
from solve.games.abstract_form import abstract_form  # noqa: E402
from solve.algorithms.lp import solve_lp  # noqa: E402
from solve.games.compile import (BET_A, CALL_A, CHECK_A, FOLD_A, RAISE_A,  # noqa: E402
                                 compile_game)
from solve.games.rules import rhode_island  # noqa: E402
from solve.games.tree import sequence_form  # noqa: E402
from etl.rhode_island import hand_tree  # noqa: E402


def tree_sizes(n_ranks: int = 13) -> dict:
    """Signal tree (every card dealt: both private cards, then the public ones) and game tree
    node counts of the unabstracted game, from the betting of one round (oracle.betting)."""
    nodes = list(oracle.betting(0))
    dec = sum(k == "d" for _, k, _, _ in nodes)
    fold = sum(k == "f" for _, k, _, _ in nodes)
    go = sum(k == "n" for _, k, _, _ in nodes)
    n = 4 * n_ranks
    signal = 1 + n + n * (n - 1) + n * (n - 1) * (n - 2) + n * (n - 1) * (n - 2) * (n - 3)
    # game tree, one chance node per card dealt (player 1's card, player 2's, each public card)
    t3_all, t3_dec = dec + fold + go, dec
    t2_all = dec + fold + go * (1 + (n - 3) * t3_all)
    t2_dec = dec + go * (n - 3) * t3_dec
    t1_all = dec + fold + go * (1 + (n - 2) * t2_all)
    t1_dec = dec + go * (n - 2) * t2_dec
    deals = n * (n - 1)
    # information sets of one player: its view (private card, public cards so far) times the
    # betting histories reaching the round (1, 7, 49) times its decision nodes in one round
    mine = sum(1 for _, k, p, _ in nodes if k == "d" and p == 0)
    views = (n, n * (n - 1), n * (n - 1) * (n - 2))
    infosets = sum(v * go ** r * mine for r, v in enumerate(views))
    return {"signal_tree_nodes": signal, "infosets_per_player": infosets, "game_tree_nodes": 1 + n + deals * t1_all,
            "decision_nodes": deals * t1_dec,
            "below_unordered_private_deals": deals // 2 * t1_all, "per_round": (dec, fold, go)}


def _policy_probs(game, strat):
    """``oracle.openspiel_policy``'s view of a strategy of compiled game ``game``."""
    beh = strat.behaviour()
    letter = {FOLD_A: "f", CHECK_A: "c", CALL_A: "c", BET_A: "r", RAISE_A: "r"}

    def probs(p, cards, hist):
        d, h = game.locate(hist, list(cards[1:]), (cards[0],))
        node = game.dnode[d]
        cs, cc = game.child_start[node], game.child_count[node]
        return {letter[int(code)]: beh[d, k, h]
                for k, code in enumerate(game.child_action[cs:cs + cc])}
    return probs


def card_str(c: int) -> str:
    return "23456789TJQKA"[c // 4] + "cdhs"[c % 4]


def exploiting_lines(n: int, game, strat, top: int = 4) -> None:
    """Where the real game's best response gains against ``strat`` (OpenSpiel's best response
    actions): per player, the gain of deviating only at the information sets whose view starts
    with a given (private card, public card), largest first, and that view's first deviations."""
    efg, infosets = oracle.real_game_efg(n)
    os_game = pyspiel.load_efg_game(efg)
    probs = _policy_probs(game, strat)
    pol = oracle.openspiel_policy(os_game, infosets, probs)
    table = {k: pol.get_state_policy(k) for p in (0, 1)
             for k in (f"{p}-{p}-{num}-{name}" for name, num in infosets[p].items())}
    idmap = oracle._action_ids(os_game)
    root = os_game.new_initial_state()
    base = pyspiel.expected_returns(root, pol, -1, True)
    print(f"  profile value {base[0]:.4f}")
    for p in (0, 1):
        br = pyspiel.TabularBestResponse(os_game, p, pol)
        acts = br.get_best_response_actions()
        total = pyspiel.expected_returns(
            root, pyspiel.TabularPolicy({**table, **{k: [(a, 1.0)] for k, a in acts.items()}}),
            -1, True)[p] - base[p]
        prefixes = sorted({tuple(name.split("|")[0].split("-")[:2]) for name in infosets[p]
                           if name.count("-") >= 1})
        gains = []
        for pre in prefixes:
            mine = {k: [(a, 1.0)] for k, a in acts.items()
                    if tuple(k.split("-", 3)[3].split("|")[0].split("-")[:2]) == pre}
            v = pyspiel.expected_returns(root, pyspiel.TabularPolicy({**table, **mine}), -1,
                                         True)[p]
            gains.append((v - base[p], pre))
        gains.sort(reverse=True)
        print(f"  player {p + 1} best response gains {total:.4f} chips; by (private, public 1):")
        for g, pre in gains[:top]:
            print(f"    {card_str(int(pre[0]))}|{card_str(int(pre[1]))}: {g:.4f}")
        pre = gains[0][1]
        shown = 0
        for name, num in sorted(infosets[p].items(), key=lambda kv: kv[1]):
            view, hist = name.split("|")
            if tuple(view.split("-")[:2]) != pre:
                continue
            key = f"{p}-{p}-{num}-{name}"
            facing = hist.endswith("r")
            letters = (["f", "c"] if facing else ["c"]) + \
                (["r"] if hist.split("/")[-1].count("r") < oracle.CAP else [])
            ids = idmap[(p, tuple(letters))]
            eq = {letters[ids.index(i)]: round(q, 3) for i, q in table[key]}
            a = acts.get(key)
            if a is not None and eq[letters[ids.index(a)]] < 0.5:
                cards = " ".join(card_str(int(c)) for c in view.split("-"))
                print(f"      {cards} after '{hist}': equilibrium {eq}, best response "
                      f"{letters[ids.index(a)]}")
                shown += 1
                if shown == top:
                    break


def dcfr_profile(game, ab, width: float = 0.05):
    """A DCFR profile of compiled abstract game ``game`` whose value bracket (best responses in
    its own game) is narrower than ``width`` chips: (strategy, lower, upper)."""
    form = abstract_form(game, ab)
    s = AbstractFormSolver(form, game, "dcfr")
    while True:
        s.iterate(100)
        hi, lo = best_response_values(form.sf, *s.plans())
        if hi - lo < width:
            return s.average_strategy(), lo, hi


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", default="2,3")
    ap.add_argument("--no-lp", action="store_true", help="skip the LPs (minutes for 3 ranks)")
    ap.add_argument("--exact", action="store_true",
                    help="solve the oracle's real and hidden trees by the rational LP (2 ranks)")
    ap.add_argument("--lines", action="store_true",
                    help="also show where the real best response gains against a DCFR "
                         "profile of the hidden game (3 ranks and up)")
    args = ap.parse_args(argv)
    print("full game:", tree_sizes(13))
    for n in (int(x) for x in args.ranks.split(",")):
        t0 = time.time()
        labels = [r.bucket for r in Lossless().fit(ri_hands(n_ranks=n)).rounds_]
        brute = oracle.brute_force_classes(n)
        rules = rhode_island(n_ranks=n)
        hid = RhodeIslandTableAbstraction("lossless-hidden", labels, public_board=False, n_ranks=n)
        pub = RhodeIslandTableAbstraction("lossless", labels, public_board=True, n_ranks=n)
        gh = compile_game(rules, hid)
        print(f"{n} ranks: GameShrink hidden {tuple(int(b.max()) + 1 for b in labels)}, "
              f"refined by the board {pub.n_buckets}, brute force "
              f"{tuple(len(set(b.values())) for b in brute)}", flush=True)
        if not args.no_lp:
            real = compile_game(rules)
            sr, vr = solve_lp(real)
            sh, vh = solve_lp(gh)
            br = [best_response_value(gh, sh, p) for p in (0, 1)]
            print(f"  LP value real {vr:.6f}, hidden {vh:.6f}; hidden equilibrium in the real "
                  f"game: best responses {br[0]:.4f} / {br[1]:.4f}, exploitability "
                  f"{0.5 * sum(br):.4f}; {time.time() - t0:.0f} s", flush=True)
        if args.exact:
            hist = oracle.histories(n)
            raw = [dict(zip(hs, (int(x) for x in labels[r][hand_tree(n_ranks=n)[r].index_of(
                np.array(hs))]))) for r, hs in enumerate(hist)]
            suits = [{h: oracle.canonical(h) for h in hs} for hs in hist]
            for name, cls in (("real (suit classes)", suits), ("hidden", raw)):
                t1 = time.time()
                sf = sequence_form(oracle.type_game_tree(n, cls))
                _, _, v, how = solve_exact(sf)
                print(f"  rational LP, {name}: {v} = {float(v):.9f} ({sf.n_seq[0]:,} "
                      f"sequences per player, {how}, {time.time() - t1:.1f} s)", flush=True)
        if args.lines and n >= 3:
            strat, lo, hi = dcfr_profile(gh, hid)
            print(f"  DCFR profile of the hidden game: value in [{lo:.4f}, {hi:.4f}]")
            exploiting_lines(n, gh, strat)


if __name__ == "__main__":
    main()
