"""Time :func:`solve.games.compile.compile_game` on Rhode Island Hold'em: the real game, an
``eb`` 13,25,125 abstraction (built into a temporary directory) and the hand-made
``ri-13-25-125`` one; best of ``--repeat`` runs each (BENCHMARKS.md, compile_game section).

The peer, in the same run: OpenSpiel (a test-only dependency) building the tabular form of a
game, ``policy.TabularPolicy(game)``, which walks every history to list the information sets,
against ``compile_game`` on the same game, Leduc Hold'em (``leduc_poker``: the same rules,
936 information sets). Rhode Island's tree (6.7 billion nodes, docs/rhode-island.md) is out of
reach of a history walk; the line after the Leduc pair projects OpenSpiel's time there from
its Leduc rate per history."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from queries.builds import build_abstraction
from solve.abstractions import FunctionAbstraction, load_abstraction, ri_rank_category
from solve.games import rules
from solve.games.compile import compile_game

#: Nodes of the unabstracted Rhode Island game tree (chance, decision and terminal).
RI_TREE_NODES = 6_705_372_545


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each compile (the best is shown)")
    args = ap.parse_args()
    rl = rules.rhode_island()
    with tempfile.TemporaryDirectory() as d:
        build_abstraction(Path(d), "eb", "13,25,125", "eb-13-25-125", seed=0)
        eb = load_abstraction("eb-13-25-125", "rhode-island", d)
        cases = {"real Rhode Island": None, "eb 13,25,125": eb,
                 "ri-13-25-125": FunctionAbstraction("ri-13-25-125", ri_rank_category)}
        for label, ab in cases.items():
            print(f"{label}: {_best(lambda: compile_game(rl, ab), args.repeat):.2f} s "
                  f"(best of {args.repeat})", flush=True)
    _leduc_peer(args.repeat)


def _histories(state) -> int:
    """Nodes of the game tree below ``state`` (chance, decision, terminal), counted by a walk."""
    if state.is_terminal():
        return 1
    acts = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
            else state.legal_actions())
    return 1 + sum(_histories(state.child(a)) for a in acts)


def _leduc_peer(repeat: int) -> None:
    # OpenSpiel is a test-only dependency (requirements-dev.txt): imported where the peer runs,
    # so the Rhode Island timings above need only the project's own requirements
    import pyspiel
    from open_spiel.python import policy

    game = pyspiel.load_game("leduc_poker")
    ours = _best(lambda: compile_game(rules.leduc(), None), repeat)
    peer = _best(lambda: policy.TabularPolicy(game), repeat)
    nodes = _histories(game.new_initial_state())
    print(f"Leduc: compile_game {ours * 1e3:.1f} ms | OpenSpiel TabularPolicy {peer * 1e3:.1f} ms "
          f"({nodes:,} histories walked; best of {repeat})", flush=True)
    print(f"Rhode Island at OpenSpiel's Leduc rate: {RI_TREE_NODES:,} histories, about "
          f"{RI_TREE_NODES * peer / nodes / 3600:,.0f} hours (projected, not run)", flush=True)


if __name__ == "__main__":
    main()
