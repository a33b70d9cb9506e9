"""queries: reading, comparing and serving what the stages below have stored.

``compare`` measures strategies or abstractions on the four measures of docs/design.md section 6
(what it needs from each game in ``support``, ``limit_support`` and ``holdem_compare``; missing
solves in parallel in ``parallel_solve``), stores the results as evaluations (``evaluations``)
and shows them as terminal tables (``tables``) or a Markdown and PNG report (``report``);
``experiment``, ``rules_experiment`` and ``holdem_methods`` (with its evaluation,
``holdem_methods_eval``) run named end-to-end experiments; ``range_grid`` draws
a Texas Hold'em strategy's 13x13 range grid. ``views`` and the ``*.sql`` files put DuckDB views
over everything on disk, ``sandbox`` runs untrusted ad-hoc SQL read-only and ``api`` is the
JSON API. ``commands`` is the stage's CLI: ``sql`` and ``serve``, and the registration of
``compare``, ``experiment`` and ``plot-range`` (each defined beside its library code).
"""
