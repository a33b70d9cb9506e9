"""What a stored strategy does at a concrete situation: real cards and a betting history in.

    lookup(data_dir, "rhode-island-rhode-island-pa-13-50-250-dcfr", hole="As",
           board="Kd7c", history="rc/crr")

maps the situation to the information set it belongs to in the strategy's game (the canonical
hand and public cards up to suit isomorphism, or the bucket sequence of an abstraction) and
returns that information set's action probabilities, who acts (``seat``: "small blind" / "big
blind" in Texas Hold'em, "player 1" / "player 2" elsewhere; ``player`` and ``round`` numbered
from 1) and how well the solver trained it: ``weight`` is the average-strategy weight the
information set received (``schema.strategy``: the accumulator's sum over its actions, or the
own reach of an LP's plan), ``reached`` whether it is positive, and ``training`` one of
"trained", "never trained" (weight 0: the probabilities are the uniform default the table
stores, no advice; in Texas Hold'em also an average still exactly the uniform start,
``schema.strategy.uniform_default``: weight gathered only while regret matching played the
spot uniformly, so the probabilities are the default too), "barely trained" (below ``schema.strategy.BARELY_TRAINED`` = 1% of the mean
weight of the round's trained information sets, ``weight_threshold``: an average of a few
early iterations) or "unknown" (a table written before weights were stored); ``trained`` is
True only for "trained" (None when unknown).

The betting history is in the ACPC match-state notation every poker-AI tool reads: ``c`` check/call, ``r`` bet/raise, ``f`` fold, rounds separated by ``/`` (a history that has
just finished a round ends with ``/``). The cards are the acting player's private cards and the
public cards dealt so far, in the game's card notation (``As``, ``Td``; Leduc ``Ja`` .. ``Kb``;
Kuhn ``J``, ``Q``, ``K``).

Games defined by limit poker rules (Kuhn, Leduc, Rhode Island Hold'em real and abstracted,
plug-ins: ``solve.games.registry``) and limit Texas Hold'em on an abstraction (the bucket of
each round from the abstraction's tables through the canonical hand index, as the solver
looks them up, the weights read from the run's ``average.npy``; :func:`lookup`, one look-up,
reads only the hand's rows of the abstraction's tables) are supported; every bad
input (unknown card, a repeated card, the wrong number of cards, an illegal history, a board that does not match the
history's round, a history after which nobody acts) is a one-line :class:`UserError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from etl.cards import format_card
from etl.cards import parse_cards as parse_holdem
from schema.errors import ParameterError, UserError
from schema.strategy import (BARELY_TRAINED, TRAINING, round_mean_weights, seat_name,
                             training_codes, uniform_default)
from solve.abstractions import load_abstraction
from solve.games import registry
from solve.games.compile import ACTION_NAMES, CompiledGame, compile_game
from solve.games.rules import LimitPokerRules
from solve.holdem import _kernels as HK
from solve.holdem.buckets import HandBuckets, indexer_tables
from solve.holdem.game import HoldemRules, build_tree
from solve.holdem.run import load_policy, run_max_bets, run_spec, spec_parts, weights_path
from solve.holdem.table import round_means, stored_round_mean
from solve.runs import NAME_PATTERN
from solve.table import read_strategy, strategy_path, table_head

_HISTORY_LETTERS = set("crf/")


@dataclass
class Lookup:
    """The answer: where the situation lands and what the strategy plays there."""

    strategy: str
    game: str
    abstraction: str | None
    seat: str                   # "small blind" / "big blind" (holdem), else "player 1" / "player 2"
    player: int                 # 1 or 2: who acts
    round: int                  # 1-based
    history: str
    hole: str                   # as given, normalised ("As")
    board: str
    infoset: str                # "As|Kd7c" (real game, canonical) or "3.17.101" (buckets)
    actions: list[str]
    probabilities: list[float]
    reached: bool               # False: the strategy's own play never gets here
    training: str               # trained, barely trained, never trained, unknown (module doc)
    trained: bool | None        # training == "trained"; None if unknown
    weight: float | None        # average-strategy weight of the information set; None unknown
    weight_threshold: float | None  # below it (and above 0): barely trained

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def training_fields(weight: float | None, round_mean: float | None, reached: bool,
                    uniform: bool = False) -> dict:
    """``reached``, ``training``, ``trained``, ``weight`` and ``weight_threshold`` of a
    :class:`Lookup` from the information set's weight and its round's mean weight (None when
    the table stores no weight: "never trained" if flagged unreached, else "unknown"); an
    information set the table flags unreached is never trained whatever its weight, and so is
    one whose average is still the ``uniform`` start (``schema.strategy.uniform_default``;
    Texas Hold'em only) -- ``reached`` stays true there: play got to it, the solver never
    moved it."""
    if weight is None:
        code = 2 if not reached else 3
        return {"reached": reached, "training": TRAINING[code], "trained": None if code == 3
                else False, "weight": None, "weight_threshold": None}
    mean = float("nan") if round_mean is None else float(round_mean)
    code = int(training_codes(np.array([weight if reached else 0.0]), mean, uniform)[0])
    return {"reached": reached and weight > 0, "training": TRAINING[code], "trained": code == 0,
            "weight": float(weight),
            "weight_threshold": None if np.isnan(mean) else BARELY_TRAINED * mean}


def parse_cards(text: str, rules: LimitPokerRules, what: str) -> list[int]:
    """Card ids of ``text`` ("AsKd", "Ja", "K"; spaces and commas ignored); ``what`` names
    it in a ``ParameterError`` (e.g. "`hole`")."""
    s = "".join(ch for ch in (text or "") if ch not in " ,")
    width = 2 if rules.n_suits > 1 else 1
    if len(s) % width:
        raise ParameterError(f"{what} {text!r}: cards are {width} characters each "
                             f"(rank {rules.rank_symbols}" + (f", suit {rules.suit_symbols})"
                                                               if width == 2 else ")"))
    cards = []
    for i in range(0, len(s), width):
        tok = s[i:i + width]
        r = _index(rules.rank_symbols, tok[0])
        su = _index(rules.suit_symbols, tok[1]) if width == 2 else 0
        if r is None or su is None:
            raise ParameterError(f"{what} {text!r}: {tok!r} is not a card of {rules.name} "
                                 f"(ranks {rules.rank_symbols}"
                                 + (f", suits {rules.suit_symbols}" if width == 2 else "") + ")")
        cards.append(r * rules.n_suits + su)
    return cards


def _index(symbols: str, ch: str) -> int | None:
    i = symbols.find(ch)
    if i < 0:
        i = symbols.lower().find(ch.lower())
    return i if i >= 0 else None


def check_situation(rules: LimitPokerRules, hole: list[int], board: list[int], history: str
                    ) -> None:
    """One-line errors for cards or a history that cannot be a situation of ``rules``."""
    seen = tuple(np.cumsum(rules.public_cards))
    check_deal(rules.name, rules.private_cards, seen, rules.card_str, hole, board, history)


def check_deal(game: str, n_private: int, board_seen: tuple[int, ...], card_str, hole: list[int],
               board: list[int], history: str) -> None:
    """One-line errors unless ``hole`` and ``board`` (card ids, named by ``card_str``) and the
    ACPC ``history`` can be a situation of ``game``: ``n_private`` private cards, a betting round
    per entry of ``board_seen`` (the public cards dealt by then)."""
    if len(hole) != n_private:
        raise ParameterError(f"`hole`: {game} deals {n_private} private card(s), got {len(hole)}")
    seen = hole + board
    if len(set(seen)) != len(seen):
        dup = sorted({c for c in seen if seen.count(c) > 1})
        raise UserError(f"card {card_str(dup[0])} appears twice")
    if not set(history) <= _HISTORY_LETTERS:
        bad = sorted(set(history) - _HISTORY_LETTERS)
        raise ParameterError(f"`history` {history!r}: {bad[0]!r} is not an action (ACPC "
                             "notation: c check/call, r bet/raise, f fold, '/' ends a round)")
    rnd = history.count("/")
    if rnd >= len(board_seen):
        raise ParameterError(f"`history` {history!r}: {game} has {len(board_seen)} betting "
                             f"round(s), the history has {rnd + 1}")
    need = int(board_seen[rnd])
    if len(board) != need:
        raise ParameterError(f"`board`: round {rnd + 1} of {game} (history {history!r}) has "
                             f"{need} public card(s), got {len(board)}")


def locate_infoset(game: CompiledGame, hole: list[int], board: list[int], history: str
                   ) -> tuple[int, int, int]:
    """(decision index, information set id, acting player 0/1) of a checked situation in
    ``game``; ``hole`` is the acting player's private cards."""
    try:
        d, h = game.locate(history, board, tuple(hole))
    except KeyError:
        raise ParameterError(f"`history` {history!r} is not a decision point of "
                             f"{game.rules.name}: illegal betting, or the hand is over (a fold "
                             "or the last call)") from None
    player = int(game.nplayer[game.dnode[d]])
    return d, int(game.info[d, h]), player


class StrategyLookup:
    """One stored strategy, loaded once, looked up at any number of situations (``at``)."""

    def __init__(self, data_dir: str | Path, name: str):
        if not NAME_PATTERN.match(name):
            raise UserError(f"no strategy {name!r}")
        path = strategy_path(Path(data_dir), name)
        if not path.exists():
            raise UserError(f"no strategy {name!r} (looked for {path})")
        head = table_head(path)
        spec = registry.games().get(head["game"])
        if spec is None or not spec.backend.has_rules:
            raise UserError(f"look-up supports the games defined by limit poker rules "
                            f"({', '.join(registry.names(lambda g: g.backend.has_rules))})"
                            f"; {name!r} is a {head['game']} strategy")
        self.name, self.game_name, self.abstraction = name, head["game"], head["abstraction"]
        self.rules = spec.make_rules()
        self.seat_name = spec.backend.seat_name
        ab = load_abstraction(self.abstraction, self.game_name, data_dir) if self.abstraction else None
        self.game = compile_game(self.rules, ab)
        try:
            self.strategy = read_strategy(path, self.game)
        except (ValueError, OSError) as exc:
            raise UserError(f"strategy {name!r}: {exc}") from None
        self.labels = self.game.infoset_labels()
        w = self.strategy.weight
        self.round_mean = (None if w is None else round_mean_weights(
            w, self.game.info_round, int(self.game.info_round.max()) + 1))

    def at(self, hole: str, board: str = "", history: str = "") -> Lookup:
        """What the strategy plays at the situation (module docstring)."""
        rules, game = self.rules, self.game
        hole_ids = parse_cards(hole, rules, "`hole`")
        board_ids = parse_cards(board, rules, "`board`")
        check_situation(rules, hole_ids, board_ids, history)
        d, infoset, player = locate_infoset(game, hole_ids, board_ids, history)
        node = game.dnode[d]
        start, count = int(game.child_start[node]), int(game.child_count[node])
        actions = [ACTION_NAMES[int(a)] for a in game.child_action[start:start + count]]
        probs = [float(p) for p in self.strategy.probs[infoset, :count]]
        reached = True if self.strategy.reached is None else bool(self.strategy.reached[infoset])
        w = self.strategy.weight
        rnd = int(game.info_round[infoset])
        return Lookup(strategy=self.name, game=self.game_name, abstraction=self.abstraction,
                      seat=self.seat_name(player),
                      player=player + 1, round=history.count("/") + 1, history=history,
                      hole="".join(rules.card_str(c) for c in hole_ids),
                      board="".join(rules.card_str(c) for c in board_ids),
                      infoset=str(self.labels[infoset]), actions=actions, probabilities=probs,
                      **training_fields(None if w is None else float(w[infoset]),
                                        None if w is None else self.round_mean[rnd], reached))


class HoldemLookup:
    """A stored limit Texas Hold'em strategy (its average weights, memory-mapped, and its
    abstraction's bucket lookups), looked up at any number of situations (``at``).

    ``single``: for one look-up (``lookup``) -- the buckets of the hand are read from the
    abstraction's tables row by row (``solve.holdem.buckets.HandBuckets``) instead of loading
    every hand's (half a minute for a full-size abstraction), and the round's mean weight is
    the one the strategy table stores (``solve.holdem.table.stored_round_mean``) when the table
    was written from these weights; the answer is the same. Not for a thresholded ``~TAU``,
    an ``ochs`` or a synthetic abstraction (those load everything)."""

    def __init__(self, data_dir: str | Path, name: str, single: bool = False):
        self.name = name
        ddir = Path(data_dir)
        self.data_dir = ddir
        base, it, tau = spec_parts(name)
        self.hands = _hand_buckets(ddir, base) if single and tau is None else None
        self._round_mean = None
        self.tabs = None
        if self.hands is not None:
            self.tree = build_tree(HoldemRules(n_rounds=self.hands.n_rounds,
                                               max_bets=run_max_bets(ddir, base)))
            self.n_buckets = self.hands.n_buckets
            self.offset, size = self.tree.offsets(self.n_buckets)
            try:
                self.weights_file = weights_path(ddir, name)
                self.weights = np.load(self.weights_file, mmap_mode="r")
            except (OSError, ValueError) as exc:
                raise UserError(f"no holdem strategy {name!r} in {ddir / 'strategies'} ({exc})"
                                ) from None
            if len(self.weights) != size:
                raise UserError(f"strategy {name!r} has {len(self.weights)} weights, the "
                                f"abstraction needs {size}")
            self.trained_weights = self.weights
            self.policy, self.abstraction = None, self.hands.name
        else:
            cache: dict = {}
            policy, tree = load_policy(name, ddir, cache)
            self.policy, self.tree = policy, tree
            self.weights, self.offset = policy.weights, policy.offset
            self.n_buckets = policy.buckets.n_buckets
            # how well a spot was trained is a property of the average weights, also for a
            # thresholded NAME~TAU (whose weights are the thresholded probabilities)
            self.trained_weights = policy.weights if tau is None else load_policy(
                base + ("" if it is None else f"@{it}"), ddir, cache)[0].weights
            self.tabs = indexer_tables()
            self.abstraction = policy.buckets.name
        self.node = {self.tree.history[n]: int(n) for n in self.tree.decision_nodes()}

    @property
    def round_mean(self) -> np.ndarray:
        """Per round, the mean weight of its trained information sets (one pass over the
        weights the first time it is asked for)."""
        if self._round_mean is None:
            self._round_mean = round_means(self.tree, _Shape(self.n_buckets),
                                           self.trained_weights, self.offset)
        return self._round_mean

    def _mean_of_round(self, rnd: int) -> float:
        if self._round_mean is None and self.hands is not None:
            table = strategy_path(self.data_dir, self.name)
            got = stored_round_mean(table, self.weights_file, len(self.weights), rnd)
            if got is not None:
                return got
            return float(round_means(self.tree, _Shape(self.n_buckets), self.trained_weights,
                                     self.offset, rounds=(rnd,))[rnd])
        return float(self.round_mean[rnd])

    def _buckets(self, hole_ids: list[int], board_ids: list[int], rnd: int) -> np.ndarray:
        if self.hands is not None:
            return self.hands.of(hole_ids, board_ids)
        padded = np.zeros(5, np.uint8)
        padded[:len(board_ids)] = board_ids
        out = np.zeros(4, np.int64)
        # only the rounds dealt so far: the kernel indexes the cards of every round it is given.
        # Cards as uint8, the solver's own signature: a fresh machine compiles the kernel once.
        HK.hand_buckets(np.uint8(hole_ids[0]), np.uint8(hole_ids[1]), padded, rnd + 1,
                        self.policy.buckets.lookup, self.tabs, np.zeros(7, np.uint8), out)
        return out[:rnd + 1]

    def at(self, hole: str, board: str = "", history: str = "") -> Lookup:
        tree = self.tree
        try:
            hole_ids = [int(c) for c in parse_holdem(hole or "")]
            board_ids = [int(c) for c in parse_holdem(board or "")]
        except ValueError as exc:
            raise UserError(f"{exc}") from None
        check_deal("holdem", 2, (0, 3, 4, 5)[:len(self.n_buckets)], format_card, hole_ids,
                   board_ids, history)
        rnd = history.count("/")
        n = self.node.get(history)
        if n is None:
            raise ParameterError(f"`history` {history!r} is not a decision point of holdem: "
                                 "illegal betting, or the hand is over (a fold or the last "
                                 "call)")
        out = self._buckets(hole_ids, board_ids, rnd)
        k = int(tree.nact[n])
        off = self.offset
        base = int(off[n, 0] + out[rnd] * off[n, 1])
        w = np.asarray(self.weights[base:base + k], dtype=np.float64)
        total = w.sum()
        probs = (w / total if total > 0 else np.full(k, 1.0 / k)).tolist()
        tw = np.asarray(self.trained_weights[base:base + k], np.float64)
        trained = float(tw.sum())
        uniform = bool(uniform_default(tw / trained)) if trained > 0 else True
        return Lookup(strategy=self.name, game="holdem", abstraction=self.abstraction,
                      seat=seat_name(int(tree.player[n]), blinds=True),
                      player=int(tree.player[n]) + 1, round=rnd + 1, history=history,
                      hole="".join(format_card(c) for c in hole_ids),
                      board="".join(format_card(c) for c in board_ids),
                      infoset=".".join(str(int(b)) for b in out[:rnd + 1]),
                      actions=tree.action_names(n), probabilities=probs,
                      **training_fields(trained, self._mean_of_round(rnd), trained > 0,
                                        uniform))


@dataclass
class _Shape:
    """Buckets per round: what ``solve.holdem.table.round_means`` reads of an abstraction."""

    n_buckets: tuple

    @property
    def n_rounds(self) -> int:
        return len(self.n_buckets)


def _hand_buckets(ddir: Path, name: str) -> HandBuckets | None:
    """Row-by-row buckets of run ``name``'s stored abstraction, None where they do not apply
    (a synthetic or ``ochs`` abstraction)."""
    spec = run_spec(ddir, name)
    if spec.startswith("synthetic:"):
        return None
    try:
        return HandBuckets(spec, ddir)
    except ValueError:
        return None


def open_lookup(data_dir: str | Path, name: str):
    """The look-up of stored strategy ``name``: :class:`HoldemLookup` for a Texas Hold'em
    strategy (also ``NAME@ITERATIONS`` and ``~TAU``, as ``load_policy`` reads them),
    :class:`StrategyLookup` for the others."""
    return _open(data_dir, name, single=False)


def _open(data_dir, name: str, single: bool):
    base = spec_parts(name)[0]
    run = Path(data_dir) / "strategies" / base
    if NAME_PATTERN.match(base) and (run / "run.json").exists() \
            and (run / "average.npy").exists():
        return HoldemLookup(data_dir, name, single=single)
    return StrategyLookup(data_dir, name)


def lookup(data_dir: str | Path, name: str, hole: str, board: str = "", history: str = ""
           ) -> Lookup:
    """What stored strategy ``name`` plays at the situation (module docstring): one look-up,
    reading only what it needs (``HoldemLookup``'s ``single``)."""
    return _open(data_dir, name, single=True).at(hole, board, history)
