"""Strategy vectors of hands, read from a stored strategy (the feature of the strategy-based
abstraction, ``abstraction.methods.StrategyBased``): every round of Rhode Island Hold'em, the
preflop of Texas Hold'em.

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

The vectors are computed the same way for both games (:func:`round_vectors`) from the
strategy table's decisions and, per round, every hand's information-set label (the ``cards``
column of the strategy table: the bucket sequence "3.17.101"); the games differ only in where
the labels come from:

- Rhode Island Hold'em (:func:`rhode_island_labels`): any stored Rhode Island strategy on an
  abstraction (the lossless one gives the unabstracted game's play), every round. Each
  canonical hand (rows of ``etl.rhode_island.hand_tree()``) is labelled by its bucket sequence
  (refined by the public board when the abstraction is played so), exactly as the solver
  labels it.
- Texas Hold'em (:func:`holdem_labels`): a strategy of ``solve --game holdem`` solved on a
  finer preflop -- a stored abstraction with one preflop bucket for each of the 169 lossless
  preflop classes -- with the later rounds abstracted; only its preflop is read (the flop,
  turn and river of a GS4 build on Hold'em stay potential-aware). Each of the 169 canonical
  preflop hands (``etl.isomorphism.HandIndexer((2,))`` order, the ``hand`` column of the
  abstraction's ``round0.parquet``) is labelled by its preflop bucket there, and its vector
  covers every preflop decision of both seats (the small blind acts first). Only the preflop
  rows of the table are read (a full-size table also holds every flop, turn and river
  information set).

Histories are in ACPC letters (``c`` check/call, ``r`` bet/raise, ``f`` fold, ``/`` between
rounds; ``solve.holdem.game.BettingTree`` writes Hold'em's the same way, the big blind's
preflop option after a call being "check"/"raise"); which seat acts at a history is read from
the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from abstraction import store
from abstraction.games import GAMES, HAND_COUNTS
from abstraction.public_board import public_board_buckets
from etl.rhode_island import hand_tree
from schema.strategy import strategy_path

#: ACPC letter -> the action names it stands for in strategy tables
LETTER_ACTIONS = {"c": ("check", "call"), "r": ("bet", "raise"), "f": ("fold",)}

#: the strategy table's columns the vectors are read from
COLUMNS = ["round", "player", "cards", "history", "action", "probability"]

#: per game, the rounds whose strategy vectors a stored strategy gives (None: every round)
VECTOR_ROUNDS = {"rhode-island": None, "holdem": (0,)}

#: Texas Hold'em's lossless preflop: the canonical starting hands (suit isomorphism)
HOLDEM_PREFLOP_CLASSES = HAND_COUNTS["holdem"][0]


def _parent(history: str) -> tuple[str, str]:
    """(the decision before ``history``, the letter played there)."""
    h = history[:-1] if history.endswith("/") else history
    return h[:-1], h[-1]


def _stored_abstraction(data_dir, abstraction: str, game: str) -> dict:
    """The catalog row of the strategy's abstraction (refusing one not stored or of another
    game)."""
    rows = {r["name"]: r for r in store.list_abstractions(data_dir)}
    if abstraction not in rows:
        hint = (" (a solve on a synthetic:K0,... bucketing has none; solve on a built "
                "abstraction)" if abstraction.startswith("synthetic") else "")
        raise ValueError(f"the strategy's abstraction {abstraction!r} is not stored{hint}")
    if rows[abstraction]["game"] != game:
        raise ValueError(f"the strategy's abstraction {abstraction!r} is a "
                         f"{rows[abstraction]['game']} abstraction, not {game}")
    return rows[abstraction]


def rhode_island_labels(data_dir, abstraction: str) -> list[list[np.ndarray]]:
    """Per round r, for s = 0..r, the round-s information-set label ("b0.b1...bs") of every
    round-r canonical Rhode Island hand (rows of ``etl.rhode_island.hand_tree()``): its
    round-s ancestor's bucket sequence in ``abstraction``."""
    row = _stored_abstraction(data_dir, abstraction, "rhode-island")
    if not row.get("perfect_recall", True):
        raise ValueError(f"the strategy's abstraction {abstraction!r} has imperfect recall; "
                         "strategy vectors are read from a perfect-recall strategy")
    tree = hand_tree()
    rounds = len(tree)
    buckets = [store.load_buckets(abstraction, r, data_dir).column("bucket").to_numpy()
               .astype(np.int64) for r in range(rounds)]
    if row["public_board"]:
        buckets = public_board_buckets(buckets)
    own_round = []  # per round, the label of each of its own hands
    for r, b in enumerate(buckets):
        own = b.astype(str)
        own_round.append(own if r == 0 else
                         np.char.add(np.char.add(own_round[-1][tree[r].parent], "."), own))
    out = []
    for r in range(rounds):
        # the round-s ancestor of every round-r hand, and its label there
        anc = [np.arange(len(tree[r].weight))]
        for s in range(r, 0, -1):
            anc.insert(0, tree[s].parent[anc[0]])
        out.append([own_round[s][anc[s]] for s in range(r + 1)])
    return out


def holdem_labels(data_dir, abstraction: str) -> list[list[np.ndarray]]:
    """``[[label]]``: the preflop information-set label (the preflop bucket) of each of the 169
    canonical preflop hands (``HandIndexer((2,))`` order) in ``abstraction``, which must give
    every preflop class its own bucket."""
    _stored_abstraction(data_dir, abstraction, "holdem")
    t = store.load_buckets(abstraction, 0, data_dir)
    hand = t.column("hand").to_numpy().astype(np.int64)
    bucket = t.column("bucket").to_numpy().astype(np.int64)
    n = HOLDEM_PREFLOP_CLASSES
    if len(hand) != n or not np.array_equal(np.sort(hand), np.arange(n)):
        raise ValueError(f"the strategy's abstraction {abstraction!r} has {len(hand)} preflop "
                         f"hands in its round0 table, not the {n} preflop classes")
    label = np.empty(n, dtype=np.int64)
    label[hand] = bucket
    k = len(np.unique(label))
    if k != n:
        raise ValueError(f"the strategy's abstraction {abstraction!r} has {k} preflop buckets; "
                         f"GS4 on holdem reads a strategy solved with the {n} preflop classes "
                         f"(an abstraction built with buckets {n},...)")
    return [[label.astype(str)]]


#: per game, its source of labels (``labels(data_dir, abstraction)``, as the functions above)
LABELS = {"rhode-island": rhode_island_labels, "holdem": holdem_labels}


@dataclass(frozen=True)
class Decision:
    """One betting history's decision in a strategy table: the round, the acting seat (0/1)
    and ``probs[i, j]``, the probability of ``actions[j]`` for the information set labelled
    ``labels[i]`` (NaN where the table has no row; labels and actions sorted)."""

    round: int
    player: int
    labels: np.ndarray
    actions: np.ndarray
    probs: np.ndarray

    def rows(self, labels: np.ndarray) -> np.ndarray:
        """The row of each of ``labels`` (-1 where the table has none)."""
        i = np.minimum(np.searchsorted(self.labels, labels), len(self.labels) - 1)
        return np.where(self.labels[i] == labels, i, -1)


def _sorted_codes(col: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, the distinct values as str in sorted order), read through the
    column's dictionary (no Python object per row)."""
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col)
    col = col.unify_dictionaries()
    names = np.asarray(col.chunk(0).dictionary.to_pylist(), dtype=str)
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in col.chunks])
    order = np.argsort(names, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[codes], names[order]


def read_decisions(path: Path, rounds: tuple[int, ...] | None = None) -> dict[str, Decision]:
    """The decisions of the strategy table at ``path``, per history in the table's order.
    ``rounds``: read only the rows of these rounds (None: all)."""
    filters = None if rounds is None else [("round", "in", [int(r) for r in rounds])]
    t = pq.read_table(path, columns=COLUMNS, filters=filters)
    if t.num_rows == 0:
        return {}
    # one sort of the whole table, then a (labels x actions) matrix per history from integer
    # codes (a table has hundreds of histories and millions of rows)
    hist_code, hist_names = _sorted_codes(t.column("history"))
    card_code, card_names = _sorted_codes(t.column("cards"))
    act_code, act_names = _sorted_codes(t.column("action"))
    rnds, players, probs = (t.column(c).to_numpy() for c in ("round", "player", "probability"))
    rows = np.argsort(hist_code, kind="stable")
    bounds = np.searchsorted(hist_code[rows], np.arange(len(hist_names) + 1))
    present = [g for g in range(len(hist_names)) if bounds[g] < bounds[g + 1]]
    decisions = {}
    for g in sorted(present, key=lambda g: rows[bounds[g]]):  # first appearance in the table
        sel = rows[bounds[g]:bounds[g + 1]]
        cards, ci = np.unique(card_code[sel], return_inverse=True)
        acts, ai = np.unique(act_code[sel], return_inverse=True)
        wide = np.full((len(cards), len(acts)), np.nan)
        wide[ci[::-1], ai[::-1]] = probs[sel][::-1]  # the first row of a repeated (cards, action)
        decisions[str(hist_names[g])] = Decision(int(rnds[sel[0]]), int(players[sel[0]]),
                                                 card_names[cards], act_names[acts], wide)
    return decisions


def round_vectors(decisions: dict[str, Decision], labels: list[np.ndarray], r: int,
                  name: str = "strategy") -> tuple[np.ndarray, list[tuple[str, int, str]]]:
    """The round-``r`` strategy vectors (module docstring) of ``n`` hands and what each column
    is, (history, seat 0/1 acting there, action name).

    Args:
        decisions: per history, its decision, as :func:`read_decisions` gives them; every
            decision of rounds ``0..r``.
        labels: for s = 0..r, the round-s information-set label of each of the ``n`` hands.
        name: the strategy's name, for the error messages.
    """
    labels = [np.asarray(x, dtype=str) for x in labels]  # once, not per history
    n = len(labels[r])
    order = sorted((h for h in decisions if decisions[h].round <= r), key=len)
    reach: dict[tuple[str, int], np.ndarray] = {}
    blocks, columns = [], []
    for h in order:
        dec = decisions[h]
        for p in (0, 1):
            if h == "":
                reach[h, p] = np.ones(n)
                continue
            par, letter = _parent(h)
            if par not in decisions:
                raise ValueError(f"strategy {name!r} has no decision at {par!r}, before {h!r}")
            pdec = decisions[par]
            reach[h, p] = reach[par, p]
            if pdec.player == p:  # the seat's own decision: times its probability of the letter
                col = next((j for a in LETTER_ACTIONS[letter]
                            for j in np.flatnonzero(pdec.actions == a)), None)
                if col is None:
                    raise ValueError(f"strategy {name!r} has no action for {letter!r} at "
                                     f"{par!r} (actions {', '.join(pdec.actions)})")
                idx = pdec.rows(labels[pdec.round])
                if (idx < 0).any():
                    raise ValueError(f"strategy {name!r} has no information set for some "
                                     f"round-{pdec.round} hands at {par!r}")
                reach[h, p] = reach[h, p] * pdec.probs[idx, col]
        if dec.round == r:
            idx = dec.rows(labels[r])
            if (idx < 0).any():
                raise ValueError(f"strategy {name!r} has no information set for some "
                                 f"round-{r} hands at {h!r}")
            probs = np.nan_to_num(dec.probs[idx])  # actions absent at this decision
            blocks.append(reach[h, dec.player][:, None] * probs)
            columns += [(h, dec.player, str(a)) for a in dec.actions]
    if not blocks:
        raise ValueError(f"strategy {name!r} has no decision in round {r}")
    return np.hstack(blocks), columns


def strategy_vectors(data_dir: str | Path, name: str, game: str | None = None
                     ) -> list[np.ndarray]:
    """The (hands, d_r) strategy vectors from stored strategy ``name`` (module docstring): per
    round of Rhode Island Hold'em (rows of ``etl.rhode_island.hand_tree()``); for Texas
    Hold'em a list of one, the preflop's (169 rows, ``HandIndexer((2,))`` order). ``game``:
    the game the vectors are for (refuses a strategy of another game)."""
    return [v for v, _ in strategy_vectors_with_columns(data_dir, name, game)]


def strategy_vectors_with_columns(data_dir: str | Path, name: str, game: str | None = None
                                  ) -> list[tuple[np.ndarray, list[tuple[str, int, str]]]]:
    """``strategy_vectors`` with, per round, what each column is: (history, seat 0/1 acting
    there, action name)."""
    path = strategy_path(data_dir, name)
    if not path.exists():
        raise ValueError(f"no strategy {name!r} (looked for {path})")
    table_game, abstraction = _game_of(path, name)
    if game is not None and table_game != game:
        raise ValueError(f"strategy {name!r} is a {table_game} strategy; a {game} build reads "
                         f"a {game} strategy")
    if abstraction is None:
        raise ValueError(f"strategy {name!r} is a {table_game} strategy of the unabstracted "
                         "game; strategy vectors are read from a strategy on an abstraction")
    labels = LABELS[table_game](data_dir, str(abstraction))
    decisions = read_decisions(path, VECTOR_ROUNDS[table_game])
    return [round_vectors(decisions, labels[r], r, name) for r in range(len(labels))]


def _game_of(path: Path, name: str) -> tuple[str, str | None]:
    """(game, abstraction) of a strategy table, from its first row; refuses games other than
    those of :data:`abstraction.games.GAMES`."""
    pf = pq.ParquetFile(path)
    if pf.metadata.num_rows == 0:
        raise ValueError(f"strategy {name!r} has an empty table ({path})")
    head = next(pf.iter_batches(batch_size=1, columns=["game", "abstraction"]))
    game, abstraction = head.column(0)[0].as_py(), head.column(1)[0].as_py()
    if game not in GAMES:
        raise ValueError(f"strategy {name!r} is a {game} strategy; strategy vectors are read "
                         f"from a {' or '.join(GAMES)} strategy on an abstraction")
    return str(game), abstraction
