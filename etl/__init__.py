"""etl: the equity database (docs/design.md sections 2-3), built as Parquet partitions.

Card codes (``cards``), the hand evaluator (``evaluator``), the colex and suit-isomorphic
canonical indexes (``colex``, ``isomorphism``), the handval and equity tables (``handval``,
``equity``; Rhode Island Hold'em's hands and exact equities in ``rhode_island``), registered by
name in ``tables``; the runner that builds the missing, stale or damaged partitions in local
processes or on a Dask cluster (``runner``, ``spec``, ``storage``, ``records``, ``lock``,
``cluster``), records them in the catalog, checks files before they are trusted
(``integrity``), verifies the tables exactly (``verify_equity``) and puts DuckDB views over them
(``views``); ``commands`` is ``cli.py etl``. Numba kernels are in the ``_*_kernels.py`` modules.
"""
