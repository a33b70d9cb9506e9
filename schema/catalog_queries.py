"""Catalog of evaluations (issue 5): one row per stored evaluation (``schema.evaluation``)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from schema.catalog import Base, code_version_column, created_column, game_column, path_column


class Evaluation(Base):
    """One evaluation; ``path`` is the Parquet file holding the same row (same ``id``).

    Columns as in :data:`schema.evaluation.EVALUATION_SCHEMA`.
    """

    __tablename__ = "evaluations"

    id: Mapped[str] = mapped_column(sa.String, primary_key=True)
    game: Mapped[str] = game_column()
    measure: Mapped[str] = mapped_column(sa.String, nullable=False)
    seat: Mapped[int | None] = mapped_column(sa.SmallInteger, nullable=True)
    strategy_a: Mapped[str] = mapped_column(sa.String, nullable=False)
    sha_a: Mapped[str] = mapped_column(sa.String, nullable=False)
    strategy_b: Mapped[str | None] = mapped_column(sa.String, nullable=True)
    sha_b: Mapped[str | None] = mapped_column(sa.String, nullable=True)
    value: Mapped[float] = mapped_column(sa.Float, nullable=False)
    ci_low: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    ci_high: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    exact: Mapped[bool] = mapped_column(sa.Boolean, nullable=False)
    seconds: Mapped[float] = mapped_column(sa.Float, nullable=False)
    code_version: Mapped[str] = code_version_column()
    created: Mapped[dt.datetime] = created_column()
    path: Mapped[str] = path_column()
