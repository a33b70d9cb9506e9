"""Card abstractions for the solver: how a bucketing enters a compiled game.

A card abstraction maps each player's private information in each round (private cards
and the public cards seen so far) to a bucket; the abstracted game's information sets are
(bucket sequence, betting history). An abstraction built with ``public_board`` (always so for
``lossless``) keeps the public cards visible: its buckets are refined by the board (up to suit
isomorphism) before the game is compiled, see :func:`public_board_buckets`. Pass any object
with ``name`` and ``bucket(round, hands (H, k), board (m,)) -> (H,)`` to
:func:`solve.games.compile.compile_game`, e.g. a :class:`FunctionAbstraction`, or load one
built by ``abstraction/`` (``<data_dir>/abstractions/<name>/round<r>.parquet``, schema
``schema.abstraction.BUCKETS_SCHEMA``) with :func:`load_abstraction`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from abstraction import games as card_games
from abstraction.public_board import public_board_buckets  # noqa: F401 (re-exported)
from etl.rhode_island import hand_rank3, hand_tree
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from schema.errors import ParameterError, UserError, first_line
from schema.paths import resolve_stored


class FunctionAbstraction:
    """Abstraction from a function ``fn(round, hands, board) -> buckets``."""

    def __init__(self, name: str, fn: Callable[[int, np.ndarray, np.ndarray], np.ndarray]):
        self.name = name
        self._fn = fn

    def bucket(self, round: int, hands: np.ndarray, board: np.ndarray) -> np.ndarray:
        return np.asarray(self._fn(round, hands, board), dtype=np.int64)


def ri_rank_category(r: int, hands: np.ndarray, board: np.ndarray) -> np.ndarray:
    """A hand-made Rhode Island Hold'em bucketing, ``ri-13-25-125`` in tests and benchmarks:
    13 buckets (rank), then 25 (rank x paired with the flop card, the two ace buckets merged),
    then up to 125 (x the 3-card hand category, straights and better merged): nested and
    suit-invariant. Use as ``FunctionAbstraction("ri-13-25-125", ri_rank_category)``."""
    rank = hands[:, 0] // 4
    if r == 0:
        return rank
    b1 = np.minimum(rank * 2 + (rank == board[0] // 4), 24)
    if r == 1:
        return b1
    cards = np.column_stack([hands[:, 0], np.full(len(hands), board[0]), np.full(len(hands), board[1])])
    return b1 * 5 + np.minimum(hand_rank3(cards) >> 12, 4)


class RhodeIslandTableAbstraction:
    """Rhode Island Hold'em buckets per canonical hand (rows of ``etl.rhode_island.hand_tree``).

    ``round_buckets[r][i]`` is the bucket of canonical round-r hand ``i``; suit-invariant by
    construction (``suit_invariant``: ``compile_game`` does not check it again, one bucket
    look-up per suit permutation of every board). With ``public_board``, the buckets the game
    uses are those refined by the public board (:func:`public_board_buckets`); ``labels`` keeps
    the given ones."""

    suit_invariant = True  # buckets are looked up by canonical hand index

    def __init__(self, name: str, round_buckets: list[np.ndarray], public_board: bool = False,
                 created: float | None = None, perfect_recall: bool = True, n_ranks: int = 13):
        if len(round_buckets) != 3:
            raise ValueError("Rhode Island abstractions need buckets for 3 rounds")
        self.name = name
        self.created = created  # POSIX time the stored abstraction was built (None: in memory)
        self.public_board = bool(public_board)
        # False: information sets are (history, the round's own bucket), see
        # abstraction.imperfect_recall
        self.perfect_recall = bool(perfect_recall)
        self.n_ranks = int(n_ranks)  # the deck (a reduced one: rules.rhode_island(n_ranks=..))
        self.labels = [np.asarray(b, dtype=np.int64) for b in round_buckets]
        self.round_buckets = (public_board_buckets(self.labels, self.n_ranks) if public_board
                              else self.labels)

    def bucket(self, round: int, hands: np.ndarray, board: np.ndarray) -> np.ndarray:
        return self.bucket_boards(round, hands, np.broadcast_to(board, (len(hands), len(board))))

    def bucket_boards(self, round: int, hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
        """:meth:`bucket` with a board per hand: ``boards`` (H, m), row i hand i's board."""
        cards = np.column_stack([hands[:, :1], np.asarray(boards)[:, :round]])
        return self.round_buckets[round][hand_tree(n_ranks=self.n_ranks)[round].index_of(cards)]

    @property
    def n_buckets(self) -> tuple[int, ...]:
        """Buckets per round as the game sees them (refined by the board if ``public_board``)."""
        return tuple(int(b.max()) + 1 for b in self.round_buckets)


def load_abstraction(name: str, game: str, data_dir: str | Path) -> RhodeIslandTableAbstraction:
    """Load abstraction ``name`` written by ``abstraction/`` for ``game``.

    Raises:
        UserError: if it is missing, for another game, or its files are incomplete.
    """
    with session_scope(data_dir) as s:
        row = s.get(Abstraction, name)
        if row is None:
            raise UserError(f"no abstraction named {name!r} in {data_dir}")
        row_game, path = row.game, row.path
        board = row.public_board
        recall = row.perfect_recall
        created = row.built_at
    if row_game != game:
        raise UserError(f"abstraction {name!r} is for {row_game}, not {game}")
    compiled = card_games.names(lambda g: not g.equity_tables)  # the rules games' abstractions
    if game not in compiled:
        raise UserError(f"abstractions are supported for {', '.join(compiled)} only, not {game}")

    folder = resolve_stored(data_dir, path, Path(data_dir) / "abstractions" / name)
    rounds = []
    for r in range(3):
        f = folder / f"round{r}.parquet"
        if not f.exists():
            raise UserError(f"abstraction {name!r} is missing {f.name}")
        try:
            t = pq.read_table(f, columns=["hand", "bucket"])
            hand = t.column("hand").to_numpy()
            b = np.empty(len(hand), dtype=np.int64)
            b[hand] = t.column("bucket").to_numpy()
        except (OSError, ValueError, KeyError, IndexError, pa.ArrowException) as exc:
            raise UserError(f"abstraction {name!r} has a damaged {f.name} ({first_line(exc)}); "
                            "rebuild it with `cli.py build-abstraction ... --replace`") from None
        rounds.append(b)
    return RhodeIslandTableAbstraction(name, rounds, public_board=board, created=created,
                                       perfect_recall=recall)


#: GameShrink's lossless abstraction of Rhode Island Hold'em as ``experiment`` builds it
#: (played with the public cards visible: the real game)
LOSSLESS = "rhode-island-lossless-full"
#: its classes played with the public cards hidden inside the class (Gilpin's thesis's
#: reference game, ``queries.lossless_reference``); made from ``LOSSLESS``, never stored
LOSSLESS_HIDDEN = "rhode-island-lossless-hidden"


def hidden_lossless(data_dir: str | Path) -> RhodeIslandTableAbstraction:
    """GameShrink's 13/205/1,774 classes of the stored ``rhode-island-lossless-full``
    (nested: a class fixes the classes before it), played with the public board hidden: an
    information set is the betting history and the sequence of classes so far.

    Raises:
        UserError: the lossless abstraction is not built in ``data_dir``.
    """
    full = load_abstraction(LOSSLESS, "rhode-island", data_dir)
    return RhodeIslandTableAbstraction(LOSSLESS_HIDDEN, full.labels, public_board=False,
                                       created=full.created)


def built_at(name: str, data_dir: str | Path) -> float | None:
    """POSIX time stored abstraction ``name`` was (re)built, or None if there is none."""
    with session_scope(data_dir) as s:
        row = s.get(Abstraction, name)
        return None if row is None else row.built_at


def predates(path: Path, built: float | None) -> bool:
    """Whether file ``path`` (a checkpoint) was written before its abstraction was (re)built
    at POSIX time ``built`` (e.g. ``RhodeIslandTableAbstraction.created``), so its bucket
    numbering may not be the abstraction's."""
    return built is not None and path.exists() and path.stat().st_mtime < built


def refuse_stale_checkpoint(path: Path, built: float | None, name: str, abstraction: str) -> None:
    """``--resume`` of run ``name``: a one-line error if its checkpoint ``path`` predates the
    current build of ``abstraction`` (see :func:`predates`)."""
    if predates(path, built):
        raise ParameterError(f"cannot resume {name!r}: its checkpoint predates abstraction "
                        f"{abstraction!r}, which was rebuilt since; solve without `resume`")
