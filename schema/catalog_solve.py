"""Catalog of solve runs: one row per named strategy (issue 3)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from schema.catalog import Base, created_column, game_column, path_column


class SolveRun(Base):
    """A solved strategy profile stored at ``strategies/<name>/strategy.parquet``.

    ``exploitability`` is in chips in the real (unabstracted) game; ``abstract_exploitability``
    within the abstraction (None for real-game strategies); ``value`` is the expected value of
    the profile for player 1 (in chips per game).
    """

    __tablename__ = "solve_runs"

    name: Mapped[str] = mapped_column(sa.String, primary_key=True)
    game: Mapped[str] = game_column()
    abstraction: Mapped[str | None] = mapped_column(sa.String, nullable=True)
    algorithm: Mapped[str] = mapped_column(sa.String, nullable=False)
    iterations: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    wall_seconds: Mapped[float] = mapped_column(sa.Float, nullable=False)
    exploitability: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    abstract_exploitability: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    value: Mapped[float] = mapped_column(sa.Float, nullable=False)
    path: Mapped[str] = path_column()
    sha256: Mapped[str] = mapped_column(sa.String, nullable=False)
    created: Mapped[dt.datetime] = created_column()
