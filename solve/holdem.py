"""Heads-up limit Texas Hold'em over a built card abstraction (issue 6; DESIGN.md section 5).

The game: blinds 1 and 2, bets of 2 on the preflop and flop and 4 on the turn and river, at
most 4 bets per round (the big blind is the first preflop bet); the small blind (player 0,
whose values the tables report) acts first preflop, the big blind (player 1) first after.
Best five of seven cards at showdown. ``HoldemRules(n_rounds=k)`` keeps the first k betting
rounds (the board is still dealt to five cards for the showdown): the tests use small
versions.

The abstract game: each player sees only its own bucket at every round. A built abstraction
(``abstraction/``, DESIGN.md sections 2 and 4) maps the canonical preflop [2], flop [2,3] and
turn [2,3,1] hands to buckets (``round<r>.parquet``) and a river hand to an equity range within
its turn bucket (``thresholds.parquet``; the river equity is the exact ``2*wins + ties`` key of
the [2,5] ``equity_river`` row). Buckets form a tree, so the current bucket determines the
whole bucket sequence and an information set is (betting node, current bucket).

Chance is not tabulated: the solver and the evaluators sample real deals and look each
player's buckets up (``HoldemBuckets``) -- see the README section "Texas Hold'em solver" for
the costs that decided this. The betting tree (``BettingTree``) is a flat pre-order array of
a few thousand nodes; regrets and average strategies are float32 arrays indexed by
``offset[node] + bucket * n_actions[node] + action``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from schema.errors import UserError

FOLD, CALL, RAISE = 0, 1, 2
DECISION, FOLD_END, SHOWDOWN = 0, 1, 2
#: River equity keys 2*wins + ties over the 990 opponent hands (DESIGN.md section 3).
RIVER_KEYS = 2 * 990 + 1
GROUPS = ((2,), (2, 3), (2, 3, 1), (2, 5))


@dataclass(frozen=True)
class HoldemRules:
    """Limit Hold'em betting (defaults: the real game of DESIGN.md section 5)."""

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
        k = np.asarray(n_buckets, dtype=np.int64)
        dec = self.ntype == DECISION
        off = np.zeros((self.n_nodes, 2), dtype=np.int64)
        base = 0
        for r in range(self.rules.n_rounds):
            nodes = np.flatnonzero(dec & (self.round == r))
            width = self.nact[nodes]
            off[nodes, 0] = base + np.concatenate(([0], np.cumsum(width)[:-1]))
            off[nodes, 1] = width.sum()
            base += int(width.sum()) * int(k[r])
        return off, base

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


# ---------------------------------------------------------------------------------------------
# Bucket lookups
# ---------------------------------------------------------------------------------------------

def indexer_tables():
    """``HandIndexer`` tables of [2], [2,3], [2,3,1], [2,5] (the ``tabs`` of the kernels)."""
    from etl.isomorphism import HandIndexer

    return tuple(HandIndexer(g).tables for g in GROUPS)


_EMPTY = np.zeros(1, dtype=np.int32)


@dataclass
class HoldemBuckets:
    """Per-round bucket lookups of one abstraction (see the module docstring).

    Attributes:
        name: abstraction name.
        n_buckets: buckets per round (one per betting round used).
        arrays: (preflop per [2] index, flop per [2,3], turn per [2,3,1], river
            ``lut[turn_bucket * RIVER_KEYS + key]``) as int32; unused rounds hold a dummy.
        parents: per round, the parent bucket of every bucket (-1 in round 0).
        river_key: ``2*wins + ties`` per [2,5] index (uint16), or a dummy below 4 rounds.
    """

    name: str
    n_buckets: tuple[int, ...]
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    parents: list[np.ndarray]
    river_key: np.ndarray

    @property
    def n_rounds(self) -> int:
        return len(self.n_buckets)

    def child_ranges(self) -> np.ndarray:
        """(4, max K + 1): ``[r, b] .. [r, b+1]-1`` are the round r+1 children of bucket b
        (children of a parent are contiguous, ordered by parent)."""
        kmax = max(self.n_buckets)
        out = np.zeros((4, kmax + 1), dtype=np.int64)
        for r in range(self.n_rounds - 1):
            par = self.parents[r + 1]
            if np.any(np.diff(par) < 0):
                raise ValueError(f"round {r + 1} buckets are not grouped by parent")
            out[r, :self.n_buckets[r] + 1] = np.searchsorted(par, np.arange(self.n_buckets[r] + 1))
        return out

    @classmethod
    def from_arrays(cls, name, rounds: list[np.ndarray], parents: list[np.ndarray],
                    river_lut: np.ndarray | None = None, river_key: np.ndarray | None = None):
        """Lookups from per-round bucket arrays (round r indexed by the canonical index of
        ``GROUPS[r]``) and, for the river, a (K_turn, RIVER_KEYS) table and the key array."""
        arrays = [np.ascontiguousarray(a, dtype=np.int32) for a in rounds]
        n = [len(p) for p in parents]
        if river_lut is not None:
            arrays.append(np.ascontiguousarray(river_lut, dtype=np.int32).ravel())
        while len(arrays) < 4:
            arrays.append(_EMPTY)
        for r, a in enumerate(rounds):
            if len(a) and (a.min() < 0 or a.max() >= n[r]):
                raise ValueError(f"round {r} buckets outside 0..{n[r] - 1}")
        rk = np.zeros(1, np.uint16) if river_key is None else np.ascontiguousarray(river_key,
                                                                                    np.uint16)
        return cls(name, tuple(n), tuple(arrays), [np.asarray(p, np.int64) for p in parents], rk)


def river_lut(thresholds, n_turn: int) -> tuple[np.ndarray, np.ndarray]:
    """The river lookup ``(K_turn, RIVER_KEYS) -> river bucket`` from the river rows of
    ``thresholds.parquet`` (each bucket an equity range ``key/1980`` within its turn bucket),
    and the parent of every river bucket. Keys no river hand of a turn bucket has (never
    looked up in a real deal) take the nearest bucket below (above for the lowest)."""
    par = np.asarray(thresholds["parent_bucket"], dtype=np.int64)
    bucket = np.asarray(thresholds["bucket"], dtype=np.int64)
    lo = np.rint(np.asarray(thresholds["min_equity"]) * (RIVER_KEYS - 1)).astype(np.int64)
    hi = np.rint(np.asarray(thresholds["max_equity"]) * (RIVER_KEYS - 1)).astype(np.int64)
    lut = np.full((n_turn, RIVER_KEYS), -1, dtype=np.int32)
    order = np.lexsort((lo, par))
    for i in order:
        lut[par[i], lo[i]:hi[i] + 1] = bucket[i]
    for t in range(n_turn):  # fill the gaps between ranges
        row = lut[t]
        have = np.flatnonzero(row >= 0)
        if len(have) == 0:
            raise ValueError(f"turn bucket {t} has no river buckets")
        idx = np.maximum.accumulate(np.where(row >= 0, np.arange(RIVER_KEYS), -1))
        idx[idx < 0] = have[0]
        lut[t] = row[idx]
    parents = np.full(len(bucket), -1, dtype=np.int64)
    parents[bucket] = par
    return lut, parents


def river_keys(data_dir) -> np.ndarray:
    """``2*wins + ties`` of every [2,5] hand from ``equity_river`` (uint16, 123,156,254)."""
    from etl import storage
    from etl.isomorphism import HandIndexer

    size = HandIndexer((2, 5)).size
    out = np.zeros(size, dtype=np.uint16)
    files = storage.partition_files(data_dir, "equity_river")
    if not files:
        raise UserError("table 'equity_river' has no partitions: run `cli.py etl --tables "
                        "equity_river`")
    seen = 0
    for key in sorted(files):
        t = storage.read_table(data_dir, "equity_river", columns=["idx", "wins", "ties"],
                               keys=[key])
        idx = t.column("idx").to_numpy()
        out[idx] = (2 * t.column("wins").to_numpy().astype(np.int64)
                    + t.column("ties").to_numpy()).astype(np.uint16)
        seen += len(idx)
    if seen != size:
        raise UserError(f"equity_river has {seen} rows, expected {size}")
    return out


def load_buckets(name: str, data_dir) -> HoldemBuckets:
    """The lookups of abstraction ``name`` built by ``cli.py build-abstraction --game holdem``.

    Raises:
        UserError: no such abstraction, not a Hold'em one, or its files are missing.
    """
    import pyarrow.parquet as pq

    from schema.catalog import session_scope
    from schema.catalog_abstraction import Abstraction

    with session_scope(data_dir) as s:
        row = s.get(Abstraction, name)
        if row is None:
            raise UserError(f"no abstraction {name!r} (see `cli.py abstractions`)")
        game, stored = row.game, row.path
    from schema.paths import resolve_stored

    path = resolve_stored(data_dir, stored, Path(data_dir) / "abstractions" / name)
    if game != "holdem":
        raise UserError(f"abstraction {name!r} is for {game!r}, not holdem")
    try:
        rounds, parents = [], []
        for r in range(3):
            t = pq.read_table(path / f"round{r}.parquet", columns=["hand", "bucket"])
            hand = t.column("hand").to_numpy()
            b = np.empty(len(hand), dtype=np.int32)
            b[hand] = t.column("bucket").to_numpy()
            del t
            rounds.append(b)
        th = pq.read_table(path / "thresholds.parquet").to_pandas()
    except (OSError, KeyError) as exc:
        raise UserError(f"abstraction {name!r}: cannot read its tables ({exc})") from None
    for r in range(3):
        rows = th[th["round"] == r].sort_values("bucket")
        parents.append(rows["parent_bucket"].to_numpy(np.int64))
    lut, river_par = river_lut(th[th["round"] == 3], len(parents[2]))
    parents.append(river_par)
    return HoldemBuckets.from_arrays(name, rounds, parents, lut, river_keys(data_dir))


def synthetic_buckets(n_buckets, n_rounds: int = 4, name: str = "synthetic") -> HoldemBuckets:
    """A hand-strength bucketing that needs no equity tables (tests, benchmarks): round 0 by
    pair/high cards, each later round splits its parent's hands into ``n_buckets[r] /
    n_buckets[r-1]`` strength quantiles of the evaluator value of the cards seen (the river
    uses the 7-card value as its key). Perfect recall like a built abstraction."""
    from solve import _holdem_kernels as K

    tabs = indexer_tables()
    sizes = (2, 5, 6, 7)
    rounds, parents = [], []
    prev = None
    lut = key = None
    for r in range(n_rounds):
        k = int(n_buckets[r])
        n_idx = {0: 169, 1: 1_286_792, 2: 55_190_538, 3: 123_156_254}[r]
        score = np.empty(n_idx, dtype=np.int64)
        K.strength_keys(tabs[r], sizes[r], score)
        if r == 3:
            # river: the key is a rank of the 7-card value into 0..RIVER_KEYS-1; buckets are
            # per turn bucket equal-width key ranges
            key = (score * (RIVER_KEYS - 1) // 7461).astype(np.uint16)
            per = k // len(parents[-1])
            cut = np.minimum(np.arange(RIVER_KEYS) * per // RIVER_KEYS, per - 1)
            lut = np.arange(len(parents[-1]))[:, None] * per + cut[None, :]
            parents.append(np.repeat(np.arange(len(parents[-1])), per))
            break
        if r == 0:
            bucket = _quantile_buckets(score, np.zeros(n_idx, np.int64), 1, k)
            parents.append(np.full(k, -1))
        else:
            pidx = np.empty(n_idx, dtype=np.int64)
            K.parent_index(tabs[r], sizes[r], tabs[r - 1], sizes[r - 1], pidx)
            per = k // len(parents[-1])
            bucket = _quantile_buckets(score, prev[pidx], len(parents[-1]), per)
            parents.append(np.repeat(np.arange(len(parents[-1])), per))
        rounds.append(bucket)
        prev = bucket
    return HoldemBuckets.from_arrays(name, rounds, parents, lut, key)


def _quantile_buckets(score, parent, n_parents, per):
    """Bucket ``parent * per + q`` with q the strength quantile of ``score`` within parent."""
    order = np.lexsort((score, parent))
    counts = np.bincount(parent, minlength=n_parents)
    start = np.concatenate(([0], np.cumsum(counts)))
    rank = np.empty(len(score), dtype=np.int64)
    rank[order] = np.arange(len(score)) - start[parent[order]]
    q = np.minimum(rank * per // np.maximum(counts[parent], 1), per - 1)
    return (parent * per + q).astype(np.int32)


# ---------------------------------------------------------------------------------------------
# Solver
# ---------------------------------------------------------------------------------------------

class HoldemCFR:
    """Chance-sampled CFR+ on the abstract game (Zinkevich et al. 2007 chance sampling;
    Tammelin et al. 2015 regret-matching+ with alternating updates and linear averaging).

    Each iteration samples one real deal, looks up both players' buckets, and walks the whole
    betting tree twice (once per traverser) in numba, skipping subtrees that neither player
    reaches. Regrets ``regrets_`` and average-strategy sums ``average_`` are float32 arrays
    of length ``size_`` laid out by ``BettingTree.offsets``.

    Args:
        tree: the betting tree; buckets: the abstraction's lookups; seed: the deal stream;
        threads: numba threads sharing the arrays (results reproducible only with 1).
    """

    def __init__(self, tree: BettingTree, buckets: HoldemBuckets, seed: int = 0,
                 threads: int = 1):
        if buckets.n_rounds != tree.rules.n_rounds:
            raise ValueError(f"abstraction has {buckets.n_rounds} rounds, game has "
                             f"{tree.rules.n_rounds}")
        self.tree, self.buckets, self.seed, self.threads = tree, buckets, int(seed), int(threads)
        self.offset_, self.size_ = tree.offsets(buckets.n_buckets)
        self.regrets_ = np.zeros(self.size_, dtype=np.float32)
        self.average_ = np.zeros(self.size_, dtype=np.float32)
        self.iteration_ = 0
        self._tabs = indexer_tables()

    def iterate(self, n: int) -> None:
        from solve import _holdem_kernels as K

        t = self.tree
        chunk_seed = (self.seed * 1_000_003 + self.iteration_) % (2 ** 31 - 1)
        K.cfr_chunk(t.ntype, t.player, t.round, t.nact, t.child, t.size, t.spent, self.offset_,
                    self.buckets.arrays, *self._tabs, self.buckets.river_key, t.rules.n_rounds,
                    self.regrets_, self.average_, self.iteration_, int(n), chunk_seed,
                    self.threads)
        self.iteration_ += int(n)

    def save(self, directory: Path, extra: dict | None = None) -> None:
        """Checkpoint: the two arrays and ``state.json`` (written last, so a checkpoint is
        complete when its state file names it)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for name, arr in (("regrets", self.regrets_), ("average", self.average_)):
            _atomic_npy(directory / f"{name}.npy", arr)
        state = {"iteration": self.iteration_, "seed": self.seed, "size": self.size_,
                 "abstraction": self.buckets.name, "n_buckets": list(self.buckets.n_buckets),
                 "rules": asdict(self.tree.rules)}
        state.update(extra or {})
        tmp = directory / ".state.json.tmp"
        tmp.write_text(json.dumps(state, indent=1))
        tmp.replace(directory / "state.json")

    def load(self, directory: Path) -> dict:
        """Restore a checkpoint written by :meth:`save`; returns its state dict.

        Raises:
            ValueError: the checkpoint belongs to another abstraction or game.
        """
        directory = Path(directory)
        state = json.loads((directory / "state.json").read_text())
        if (state["abstraction"] != self.buckets.name or state["size"] != self.size_
                or state["rules"] != json.loads(json.dumps(asdict(self.tree.rules)))):
            raise ValueError("checkpoint is for another abstraction or game")
        self.regrets_ = np.load(directory / "regrets.npy")
        self.average_ = np.load(directory / "average.npy")
        if len(self.regrets_) != self.size_ or len(self.average_) != self.size_:
            raise ValueError("checkpoint arrays have the wrong size")
        self.iteration_ = int(state["iteration"])
        self.seed = int(state["seed"])
        return state


def _atomic_npy(path: Path, arr: np.ndarray) -> None:
    from schema.storage import AtomicFile

    with AtomicFile(path, checksum=False) as f, open(f.tmp, "wb") as fh:
        np.save(fh, arr)


# ---------------------------------------------------------------------------------------------
# Strategy tables
# ---------------------------------------------------------------------------------------------

def bucket_labels(buckets: HoldemBuckets) -> list:
    """Per round, a pyarrow string array: the bucket sequence "3.17.101" of every bucket."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = []
    prev = None
    for r in range(buckets.n_rounds):
        own = pa.array(np.arange(buckets.n_buckets[r]), pa.int64()).cast(pa.string())
        lab = own if r == 0 else pc.binary_join_element_wise(
            prev.take(pa.array(buckets.parents[r])), own, ".")
        out.append(lab)
        prev = lab
    return out


def write_strategy_table(path: Path, name: str, tree: BettingTree, buckets: HoldemBuckets,
                         average: np.ndarray, offset: np.ndarray) -> str:
    """Write the average strategy as ``schema.strategy.STRATEGY_SCHEMA`` rows (one per
    information set and action; ``cards`` = bucket sequence) to ``path`` atomically, one row
    group per batch of decision nodes. Returns the file's SHA-256."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from schema.storage import AtomicFile
    from schema.strategy import STRATEGY_SCHEMA

    labels = bucket_labels(buckets)

    def const(value, n):
        return pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([value]))

    with AtomicFile(path) as out, \
            pq.ParquetWriter(out.tmp, STRATEGY_SCHEMA, compression="zstd") as writer:
        batch: list[pa.Table] = []
        rows = 0
        for n in tree.decision_nodes():
            r, k = int(tree.round[n]), int(tree.nact[n])
            kb = buckets.n_buckets[r]
            idx = (offset[n, 0] + np.arange(kb)[:, None] * offset[n, 1]
                   + np.arange(k)[None, :])
            w = average[idx].astype(np.float64)
            s = w.sum(axis=1, keepdims=True)
            # float32 precision, like the weights: compresses to ~6 bytes a row, not 8
            prob = np.where(s > 0, w / np.where(s > 0, s, 1), 1.0 / k).ravel()
            prob = prob.astype(np.float32).astype(np.float64)
            m = kb * k
            names = tree.action_names(n)
            t = pa.Table.from_arrays([
                const(name, m), const("holdem", m), const(buckets.name, m),
                pa.array(np.full(m, r, np.int8)), pa.array(np.full(m, tree.player[n], np.int8)),
                labels[r].take(pa.array(np.repeat(np.arange(kb), k))),
                const(tree.history[n], m),
                pa.DictionaryArray.from_arrays(np.tile(np.arange(k, dtype=np.int32), kb),
                                               pa.array(names)),
                pa.array(prob, pa.float64())], schema=STRATEGY_SCHEMA)
            batch.append(t)
            rows += m
            if rows >= 1 << 21:
                writer.write_table(_unify(batch))
                batch, rows = [], 0
        if batch:
            writer.write_table(_unify(batch))
    return out.digest


def _unify(tables):
    import pyarrow as pa

    return pa.concat_tables(tables).unify_dictionaries().combine_chunks()
