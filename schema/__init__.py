"""schema: the bottom layer, what every stage stores and how (it imports no other project package).

Arrow schemas of the stored tables (equity database, abstractions, strategies, evaluations);
the catalog, SQLAlchemy models in DuckDB with one row per ETL partition, built abstraction, solve
run and evaluation (``catalog``, ``catalog_*``); where data lives (``paths``); atomic Parquet
writes (``storage``); progress output (``progress``); the one user-facing error type
(``errors``); and importing a module that a stage may not have written yet (``optional``).
"""
