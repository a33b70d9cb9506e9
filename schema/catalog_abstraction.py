"""Catalog of built abstractions: one row per named abstraction (issue 4)."""

from __future__ import annotations

import datetime as dt
import json

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from schema.catalog import Base, code_version_column, created_column, game_column, path_column


class Abstraction(Base):
    """An abstraction stored at ``abstractions/<name>/`` (see ``schema.abstraction``).

    ``buckets`` is what was asked (comma-separated per round), ``built`` what was made (fewer
    when a round has fewer distinct hands; the reason is in ``errors``). ``params`` holds the
    method's parameters, ``errors`` the per-round report (IP objective, equal-split error,
    bucket sizes, reason), ``timings`` seconds per round and in total (JSON text each).
    ``params["public_board"]``: the abstraction is played with the public cards visible
    (always for ``lossless``), see :attr:`public_board`.
    """

    __tablename__ = "abstractions"

    name: Mapped[str] = mapped_column(sa.String, primary_key=True)
    method: Mapped[str] = mapped_column(sa.String, nullable=False)
    game: Mapped[str] = game_column()
    buckets: Mapped[str] = mapped_column(sa.String, nullable=False)
    built: Mapped[str] = mapped_column(sa.String, nullable=False)
    seed: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    params: Mapped[str] = mapped_column(sa.Text, nullable=False)
    errors: Mapped[str] = mapped_column(sa.Text, nullable=False)
    timings: Mapped[str] = mapped_column(sa.Text, nullable=False)
    code_version: Mapped[str] = code_version_column()
    path: Mapped[str] = path_column()
    created: Mapped[dt.datetime] = created_column()

    @property
    def built_at(self) -> float:
        """POSIX time of this build (``created`` is naive UTC): checkpoints and strategies
        older than it belong to an earlier build, whose bucket numbering may differ."""
        return self.created.replace(tzinfo=dt.timezone.utc).timestamp()

    @property
    def public_board(self) -> bool:
        """Whether solvers refine the buckets by the public board (``lossless`` always; other
        methods when built with ``--public-board``)."""
        return self.method == "lossless" or bool(json.loads(self.params or "{}")
                                                 .get("public_board"))

    @property
    def perfect_recall(self) -> bool:
        """False for an abstraction built with ``--recall imperfect`` (every round clustered
        on its own; information sets are the betting history and the round's own bucket)."""
        return json.loads(self.params or "{}").get("recall", "perfect") != "imperfect"
