"""Pytest root: makes the top-level packages (schema, etl, ...) importable."""
