"""Heads-up limit Texas Hold'em over a built card abstraction (issue 6; docs/design.md section 5).

The game: blinds 1 and 2, bets of 2 on the preflop and flop and 4 on the turn and river, at
most 4 bets per round (the big blind is the first preflop bet); the small blind (player 0,
whose values the tables report) acts first preflop, the big blind (player 1) first after.
Best five of seven cards at showdown. ``HoldemRules(n_rounds=k)`` keeps the first k betting
rounds (the board is still dealt to five cards for the showdown): the tests use small
versions.

The abstract game: each player sees only its own bucket at every round. A built abstraction
(``abstraction/``, docs/design.md sections 2 and 4) maps the canonical preflop [2], flop [2,3] and
turn [2,3,1] hands to buckets (``round<r>.parquet``) and a river hand to an equity range within
its turn bucket (``thresholds.parquet``; the river equity is the exact ``2*wins + ties`` key of
the [2,5] ``equity_river`` row). Buckets form a tree, so the current bucket determines the
whole bucket sequence and an information set is (betting node, current bucket).

Chance is not tabulated: the solver and the evaluators sample real deals and look each
player's buckets up (``HoldemBuckets``) -- see docs/holdem.md for
the costs that decided this. The betting tree (``BettingTree``) is a flat pre-order array of
a few thousand nodes; regrets and average strategies are float32 arrays indexed by
``offset[node] + bucket * n_actions[node] + action``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FOLD, CALL, RAISE = 0, 1, 2
DECISION, FOLD_END, SHOWDOWN = 0, 1, 2
#: River equity keys 2*wins + ties over the 990 opponent hands (docs/design.md section 3).
RIVER_KEYS = 2 * 990 + 1
GROUPS = ((2,), (2, 3), (2, 3, 1), (2, 5))


@dataclass(frozen=True)
class HoldemRules:
    """Limit Hold'em betting (defaults: the real game of docs/design.md section 5)."""

    n_rounds: int = 4
    blinds: tuple[int, int] = (1, 2)
    bets: tuple[int, ...] = (2, 2, 4, 4)
    max_bets: int = 4

    def __post_init__(self):
        if not 1 <= self.n_rounds <= 4:
            raise ValueError(f"n_rounds must be 1..4, got {self.n_rounds}")
        if self.max_bets < 1:
            raise ValueError(f"max_bets must be at least 1, got {self.max_bets}")
        if len(self.bets) < self.n_rounds:
            raise ValueError(f"bets must give a size for each of the {self.n_rounds} rounds")

    @property
    def big_blind(self) -> int:
        return self.blinds[1]


@dataclass
class BettingTree:
    """The public betting tree in pre-order (a node's subtree is ``n .. n + size[n] - 1``).

    Arrays (length N unless said): ``ntype`` DECISION / FOLD_END / SHOWDOWN; ``player`` to act
    (decision) or who folded (FOLD_END); ``round``; ``nact``; ``child`` (N, 3) children in
    action order, -1 past ``nact``; ``code`` (N, 3) FOLD / CALL / RAISE of each action;
    ``size``; ``spent`` (N, 2) chips each player has put in; ``parent``; ``history`` ACPC
    letters (``c`` check/call, ``r`` bet/raise, ``f`` fold, ``/`` between rounds).
    """

    rules: HoldemRules
    ntype: np.ndarray
    player: np.ndarray
    round: np.ndarray
    nact: np.ndarray
    child: np.ndarray
    code: np.ndarray
    size: np.ndarray
    spent: np.ndarray
    parent: np.ndarray
    history: list[str] = field(repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.ntype)

    def decision_nodes(self) -> np.ndarray:
        return np.flatnonzero(self.ntype == DECISION)

    def offsets(self, n_buckets) -> tuple[np.ndarray, int]:
        """Layout of the (infoset, action) arrays for bucket counts ``n_buckets`` per round:
        ``off[node, 0] + bucket * off[node, 1] + action``, and the arrays' length.

        Bucket-major: per round, one contiguous block per bucket holding every decision node
        of that round, so the nodes one deal visits (one bucket per player and round) sit in
        a few blocks of kilobytes instead of being scattered over gigabytes (memory latency,
        not arithmetic, bounds a pass)."""
        return self._layout(n_buckets, self.nact)

    def infoset_offsets(self, n_buckets) -> tuple[np.ndarray, int]:
        """Layout of per-information-set arrays, like :meth:`offsets` with one entry per
        (decision node, bucket): ``ioff[node, 0] + bucket * ioff[node, 1]``, and the length
        (:meth:`information_sets`)."""
        return self._layout(n_buckets, np.ones(self.n_nodes, dtype=np.int64))

    def _layout(self, n_buckets, width) -> tuple[np.ndarray, int]:
        """Bucket-major layout with ``width[node]`` entries per (decision node, bucket)."""
        k = np.asarray(n_buckets, dtype=np.int64)
        dec = self.ntype == DECISION
        off = np.zeros((self.n_nodes, 2), dtype=np.int64)
        base = 0
        for r in range(self.rules.n_rounds):
            nodes = np.flatnonzero(dec & (self.round == r))
            w = width[nodes]
            off[nodes, 0] = base + np.concatenate(([0], np.cumsum(w)[:-1]))
            off[nodes, 1] = w.sum()
            base += int(w.sum()) * int(k[r])
        return off, base

    def information_sets(self, n_buckets) -> int:
        """Information sets of the abstract game with ``n_buckets`` per round: a decision
        node of round r and one of its K_r buckets (with perfect recall the bucket names its
        whole sequence; with imperfect recall the earlier ones are forgotten), so perfect and
        imperfect recall abstractions compare at equal size by this count."""
        k = np.asarray(n_buckets, dtype=np.int64)
        dec = self.ntype == DECISION
        return int(k[self.round[dec]].sum())

    def action_names(self, node: int) -> list[str]:
        """fold / check / call / bet / raise of each action at a decision node."""
        facing = self.spent[node, self.player[node]] < self.spent[node, 1 - self.player[node]]
        names = []
        for a in range(self.nact[node]):
            c = self.code[node, a]
            if c == FOLD:
                names.append("fold")
            elif c == CALL:
                names.append("call" if facing else "check")
            else:
                names.append("raise" if facing or self._bets_before(node) else "bet")
        return names

    def _bets_before(self, node: int) -> bool:
        h = self.history[node].split("/")[-1]
        return "r" in h or (self.round[node] == 0)


def build_tree(rules: HoldemRules = HoldemRules()) -> BettingTree:
    """The betting tree of ``rules`` (see the module docstring)."""
    cols = {k: [] for k in ("ntype", "player", "round", "nact", "child", "code", "size",
                            "spent", "parent", "history")}

    def add(ntype, player, rnd, spent, parent, hist):
        cols["ntype"].append(ntype)
        cols["player"].append(player)
        cols["round"].append(rnd)
        cols["nact"].append(0)
        cols["child"].append([-1, -1, -1])
        cols["code"].append([-1, -1, -1])
        cols["size"].append(1)
        cols["spent"].append(tuple(spent))
        cols["parent"].append(parent)
        cols["history"].append(hist)
        return len(cols["ntype"]) - 1

    def decision(rnd, player, spent, bets, acted, parent, hist):
        n = add(DECISION, player, rnd, spent, parent, hist)
        other = 1 - player
        facing = spent[player] < spent[other]
        actions = []
        if facing:
            actions.append(FOLD)
        actions.append(CALL)
        if bets < rules.max_bets:
            actions.append(RAISE)
        cols["nact"][n] = len(actions)
        for a, c in enumerate(actions):
            cols["code"][n][a] = c
            if c == FOLD:
                ch = add(FOLD_END, player, rnd, spent, n, hist + "f")
            elif c == CALL:
                s = list(spent)
                s[player] = s[other]
                if acted[other]:  # the round is over
                    if rnd + 1 < rules.n_rounds:
                        ch = decision(rnd + 1, 1, s, 0, (False, False), n, hist + "c/")
                    else:
                        ch = add(SHOWDOWN, -1, rnd, s, n, hist + "c")
                else:
                    ac = list(acted)
                    ac[player] = True
                    ch = decision(rnd, other, s, bets, tuple(ac), n, hist + "c")
            else:
                s = list(spent)
                s[player] = s[other] + rules.bets[rnd]
                ac = list(acted)
                ac[player] = True
                ch = decision(rnd, other, s, bets + 1, tuple(ac), n, hist + "r")
            cols["child"][n][a] = ch
        cols["size"][n] = len(cols["ntype"]) - n
        return n

    decision(0, 0, rules.blinds, 1, (False, False), -1, "")
    return BettingTree(
        rules=rules,
        ntype=np.array(cols["ntype"], dtype=np.int64),
        player=np.array(cols["player"], dtype=np.int64),
        round=np.array(cols["round"], dtype=np.int64),
        nact=np.array(cols["nact"], dtype=np.int64),
        child=np.array(cols["child"], dtype=np.int64),
        code=np.array(cols["code"], dtype=np.int64),
        size=np.array(cols["size"], dtype=np.int64),
        spent=np.array(cols["spent"], dtype=np.float64),
        parent=np.array(cols["parent"], dtype=np.int64),
        history=cols["history"],
    )
