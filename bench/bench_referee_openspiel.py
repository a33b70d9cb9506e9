"""Our Texas Hold'em strategy played inside OpenSpiel's game loop (issue 18, item 4).

    python -m bench.bench_referee_openspiel --data-dir DIR --strategy NAME [--hands 100000]

OpenSpiel's ``universal_poker`` (the ACPC engine, limit Hold'em as published: the game
definition of ``tests/test_referee_openspiel.py``) deals the cards and keeps the pot; the
strategy chooses through our look-up at real cards (``solve.lookup``: hole cards, board so far,
ACPC betting history -> action probabilities) against OpenSpiel's uniform-random bot
(``pyspiel.make_uniform_random_bot``) and an always-call bot (a ``pyspiel.Bot`` that always
checks or calls), seats alternating hand by hand. Printed: the strategy's winnings in mbb/g
with a 95% interval, next to our own evaluator's figure for the same match-up
(``solve.holdem.evaluate.duplicate_match``: duplicate deals, exact over both players' action
probabilities; uniform random is the table of all-zero weights, which our kernels play as
uniform over the legal actions). The two must agree within their intervals.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pyspiel

from etl.cards import format_card
from solve.holdem.evaluate import Policy, duplicate_match, to_mbb
from solve.holdem.game import CALL, DECISION, FOLD, RAISE
from solve.lookup import HoldemLookup
from tests.test_referee_openspiel import HOLDEM_GAMEDEF

OS_ACTION = {FOLD: 0, CALL: 1, RAISE: 2}


class AlwaysCall(pyspiel.Bot):
    """Checks or calls at every decision."""

    def __init__(self):
        pyspiel.Bot.__init__(self)

    def step(self, state):
        return 1

    def restart_at(self, state):
        pass


def play(look: HoldemLookup, game, make_bot, hands: int, seed: int) -> np.ndarray:
    """The strategy's chips per hand against ``make_bot(seat)`` in OpenSpiel's loop."""
    tree = look.tree
    rng = np.random.default_rng(seed)
    out = np.empty(hands)
    # one bot per seat for the whole match: a bot made afresh each hand with the same seed
    # would replay the same "random" choices every hand (a fixed sequence, not uniform random)
    bots = {p: make_bot(p) for p in (0, 1)}
    for i in range(hands):
        seat = i % 2
        bot = bots[1 - seat]
        state = game.new_initial_state()
        cards: list[int] = []
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                c = outcomes[rng.integers(len(outcomes))]
                cards.append(c)
                state.apply_action(c)
                continue
            assert tree.ntype[n] == DECISION and state.current_player() == tree.player[n]
            codes = [int(c) for c in tree.code[n, :tree.nact[n]]]
            if state.current_player() == seat:
                hole = cards[2 * seat:2 * seat + 2]
                res = look.at("".join(format_card(c) for c in hole),
                              "".join(format_card(c) for c in cards[4:]), tree.history[n])
                a = int(rng.choice(len(codes), p=np.asarray(res.probabilities)))
                action = OS_ACTION[codes[a]]
            else:
                action = bot.step(state)
                a = codes.index({v: k for k, v in OS_ACTION.items()}[action])
            state.apply_action(action)
            n = int(tree.child[n, a])
        out[i] = state.returns()[seat]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--strategy", required=True, help="a stored Texas Hold'em strategy (4 rounds, "
                    "4 bets a round: the published game)")
    ap.add_argument("--hands", type=int, default=100_000, help="hands per match-up in OpenSpiel")
    ap.add_argument("--deals", type=int, default=200_000,
                    help="duplicate deals of our own evaluator per match-up")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    t0 = time.perf_counter()
    look = HoldemLookup(args.data_dir, args.strategy)
    tree, pol = look.tree, look.policy
    if tree.rules.n_rounds != 4 or tree.rules.max_bets != 4:
        print(f"{args.strategy} is not a strategy of the published game (4 rounds, 4 bets)",
              file=sys.stderr)
        return 2
    print(f"{args.strategy}: opened in {time.perf_counter() - t0:.1f}s")
    game = pyspiel.load_game(HOLDEM_GAMEDEF)
    zeros = np.zeros(len(pol.weights), np.float32)
    opponents = {
        "uniform random": (lambda p: pyspiel.make_uniform_random_bot(p, args.seed + 7 + p),
                           Policy.table("uniform", tree, pol.buckets, zeros)),
        "always call": (lambda p: AlwaysCall(), Policy.always_call(tree, pol.buckets)),
    }
    print(f"{'opponent':16}{'in OpenSpiel (mbb/g)':>26}{'hands':>9}{'s':>7}"
          f"{'our evaluator (mbb/g)':>26}{'deals':>9}{'s':>7}")
    for name, (make_bot, ours) in opponents.items():
        t = time.perf_counter()
        os_est = to_mbb(play(look, game, make_bot, args.hands, args.seed), tree.rules.big_blind)
        t_os = time.perf_counter() - t
        t = time.perf_counter()
        our_est = duplicate_match(tree, pol, ours, args.deals, seed=args.seed + 1)
        t_our = time.perf_counter() - t
        print(f"{name:16}{os_est.mean:>+16.1f} +- {os_est.half_width:<6.1f}{args.hands:>9,}"
              f"{t_os:>7.0f}{our_est.mean:>+16.1f} +- {our_est.half_width:<6.1f}"
              f"{args.deals:>9,}{t_our:>7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
