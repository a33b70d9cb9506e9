"""Strategy vectors of Rhode Island Hold'em hands, read from a stored strategy (the feature of
the strategy-based abstraction, ``abstraction.methods.StrategyBased``).

Strategy-based abstraction clusters the hands of a round by how a solved finer game plays
them (the step after potential-aware abstraction in Gilpin's thesis, "Algorithms for
abstracting and solving imperfect information games", CMU 2009, ch. 6; GS4). A hand's
vector holds, for each seat and each betting history of the round at which that seat acts,
the probability of every action there times the hand's own probability of having reached that
history (the product of its own earlier action probabilities): its realisation plan over the
round's sequences (Koller, Megiddo & von Stengel 1996). The L1 distance between two vectors is
then the L1 distance between the action probabilities at every information set of the round,
each weighted by how often the hand's own play reaches it; information sets a hand never
reaches do not count.

The strategy is any stored Rhode Island strategy on an abstraction (the lossless one gives the
unabstracted game's play): each canonical hand's information set is its bucket sequence
(refined by the public board when the abstraction is played so), exactly as the solver labels
it. Histories are in ACPC letters (``c`` check/call, ``r`` bet/raise, ``f`` fold, ``/``
between rounds), the first seat acting first in every round.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from abstraction import store
from abstraction.public_board import public_board_buckets
from etl.rhode_island import hand_tree
from schema.strategy import strategy_path

#: ACPC letter -> the action names it stands for in strategy tables
LETTER_ACTIONS = {"c": ("check", "call"), "r": ("bet", "raise"), "f": ("fold",)}


def _parent(history: str) -> tuple[str, str]:
    """(the decision before ``history``, the letter played there)."""
    h = history[:-1] if history.endswith("/") else history
    return h[:-1], h[-1]


def _labels(data_dir, abstraction: str, rounds: int) -> list[np.ndarray]:
    """Information-set label ("b0.b1.b2") of every canonical hand per round."""
    rows = {r["name"]: r for r in store.list_abstractions(data_dir)}
    if abstraction not in rows:
        raise ValueError(f"the strategy's abstraction {abstraction!r} is not stored")
    if not rows[abstraction].get("perfect_recall", True):
        raise ValueError(f"the strategy's abstraction {abstraction!r} has imperfect recall; "
                         "strategy vectors are read from a perfect-recall strategy")
    buckets = [store.load_buckets(abstraction, r, data_dir).column("bucket").to_numpy()
               .astype(np.int64) for r in range(rounds)]
    if rows[abstraction]["public_board"]:
        buckets = public_board_buckets(buckets)
    tree = hand_tree()
    out = []
    for r, b in enumerate(buckets):
        own = b.astype(str)
        out.append(own if r == 0 else np.char.add(np.char.add(out[-1][tree[r].parent], "."), own))
    return out


def strategy_vectors(data_dir: str | Path, name: str) -> list[np.ndarray]:
    """Per round, the (hands, d_r) strategy vectors of every canonical Rhode Island hand (rows
    of ``etl.rhode_island.hand_tree()``), from stored strategy ``name`` (module docstring)."""
    return [v for v, _ in strategy_vectors_with_columns(data_dir, name)]


def strategy_vectors_with_columns(data_dir: str | Path, name: str
                                  ) -> list[tuple[np.ndarray, list[tuple[str, int, str]]]]:
    """``strategy_vectors`` with, per round, what each column is: (history, seat 0/1 acting
    there, action name)."""
    path = strategy_path(data_dir, name)
    if not path.exists():
        raise ValueError(f"no strategy {name!r} (looked for {path})")
    t = pq.read_table(path, columns=["game", "abstraction", "round", "player", "cards",
                                     "history", "action", "probability"]).to_pandas()
    game, abstraction = str(t["game"].iloc[0]), t["abstraction"].iloc[0]
    if game != "rhode-island" or abstraction is None:
        raise ValueError(f"strategy {name!r} is not a Rhode Island strategy on an abstraction "
                         f"(game {game}, abstraction {abstraction})")
    tree = hand_tree()
    n_rounds = len(tree)
    labels = _labels(data_dir, str(abstraction), n_rounds)
    for col in ("cards", "history", "action"):
        t[col] = t[col].astype(str)
    # per decision: its round, seat, actions and a (label -> probabilities) table
    decisions = {}
    for (history, rnd, player), g in t.groupby(["history", "round", "player"], sort=False,
                                               observed=True):
        wide = g.pivot_table(index="cards", columns="action", values="probability",
                             aggfunc="first", observed=True)
        decisions[history] = (int(rnd), int(player), wide)
    order = sorted(decisions, key=len)
    out = []
    for r in range(n_rounds):
        n = len(tree[r].weight)
        # the round-s ancestor of every round-r hand, and its label there
        anc = [np.arange(n)]
        for s in range(r, 0, -1):
            anc.insert(0, tree[s].parent[anc[0]])
        lab = [labels[s][anc[s]] for s in range(r + 1)]
        reach = {(h, p): None for h in order for p in (0, 1)}
        blocks, columns = [], []
        for h in order:
            rnd, player, wide = decisions[h]
            if rnd > r:
                continue
            for p in (0, 1):
                if h == "":
                    reach[h, p] = np.ones(n)
                    continue
                par, letter = _parent(h)
                prnd, pplayer, pwide = decisions[par]
                reach[h, p] = reach[par, p]
                if pplayer == p:  # the seat's own decision: times its probability of the letter
                    col = next(a for a in LETTER_ACTIONS[letter] if a in pwide.columns)
                    probs = pwide[col].to_numpy()[pwide.index.get_indexer(lab[prnd])]
                    reach[h, p] = reach[h, p] * probs
            if rnd == r:
                idx = wide.index.get_indexer(lab[r])
                if (idx < 0).any():
                    raise ValueError(f"strategy {name!r} has no information set for some "
                                     f"round-{r} hands at {h!r}")
                probs = wide.to_numpy()[idx]
                probs = np.nan_to_num(probs)  # actions absent at this decision
                blocks.append(reach[h, player][:, None] * probs)
                columns += [(h, player, str(a)) for a in wide.columns]
        out.append((np.hstack(blocks), columns))
    return out
