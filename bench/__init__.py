"""Benchmark scripts, run from the project root as modules: ``python -m bench.NAME --help``.

They import the pipeline's packages (and ``tests/``'s helpers) by their names, never by editing
``sys.path``: ``python -m`` puts the current directory, the project root, on the import path.
Their figures go to BENCHMARKS.md.
"""
