"""``cli.py etl``: build the equity database, show its state, verify it exactly.

- ``etl [--tables a,b] [--workers N] [--refresh] [--scheduler tcp://HOST:PORT] [--wait]``
- ``etl status [--tables a,b] [--quick]``: every partition: ok, missing, stale or damaged.
- ``etl verify``: exact counts that take minutes (canonical index sizes of K. Waugh 2013, hand
  categories of docs/design.md section 3), expected against found.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from typing import Any, Callable

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from etl.evaluator import hand_category
from etl.handval import build_handval
from etl.isomorphism import verify_counts
from etl.records import last_built, rebuild_catalog, status
from etl.runner import run
from etl.storage import read_column_array
from etl.tables import all_tables
from etl.verify_equity import check_equity
from schema.errors import UserError
from schema.listing import human_bytes

#: Exact sizes of the canonical indexes checked by ``etl verify`` (docs/design.md section 2).
CANONICAL_COUNTS: dict[tuple[int, ...], int] = {
    (2, 4): 13_960_050,
    (2, 5): 123_156_254,
    (2, 3, 1): 55_190_538,
}

#: Seven-card category counts, high card .. straight flush (docs/design.md section 3).
SEVEN_CARD_CATEGORIES: dict[str, int] = {
    "high card": 23_294_460, "one pair": 58_627_800, "two pair": 31_433_400,
    "three of a kind": 6_461_620, "straight": 6_180_020, "flush": 4_047_644,
    "full house": 3_473_184, "four of a kind": 224_848, "straight flush": 41_584,
}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "etl", help="build the equity tables (missing partitions), show status, verify",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", nargs="?", default="run", choices=("run", "status", "verify"),
                   help="run (default): build missing partitions; status; verify")
    p.add_argument("--tables", default=None,
                   help="comma-separated table names (default: all); dependencies are added")
    p.add_argument("--workers", type=int, default=None,
                   help="local worker processes (default: number of cores; 1 = in-process)")
    p.add_argument("--rebuild-catalog", action="store_true",
                   help="the catalog (poker.duckdb) is damaged: move it aside and record every "
                        "partition file again from its footer and checksum")
    p.add_argument("--refresh", action="store_true",
                   help="also rebuild stale (other code version) and damaged partitions")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run on this Dask distributed scheduler (workers must see the data dir)")
    p.add_argument("--wait", action="store_true",
                   help="wait for another run's lock instead of exiting")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="content parameter of the tables (e.g. bins=50); repeatable")
    p.add_argument("--checks", default=None,
                   help="verify: comma-separated subset of: canonical, handval, equity (default: all)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.epilog = ("etl status checks the tables in use (those with a recorded partition; with "
                "--tables, the tables named): it exits 0 when every partition is ok, 3 when "
                "some are missing or stale (a run or --refresh builds them), 4 when some are damaged or a table "
                "folder holds stray files (--refresh repairs; strays go to quarantine/), 2 when "
                "it could not run")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="status: a table (default) or one JSON document for a monitor")
    p.add_argument("--quick", action="store_true",
                   help="status: hash only the files changed since the ETL verified them (size, "
                        "footer, rows of all); the full status hashes every file")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    options = _parse_options(args.option)
    try:
        tables = all_tables(options)
    except ValueError as exc:  # a bad --option value, e.g. bins=x
        raise UserError(f"--option: {exc}") from None
    known = {k for spec in tables.values() for k in spec.options}
    unknown = sorted(set(options) - known)
    if unknown:
        raise UserError(f"unknown --option {unknown[0]!r} "
                        f"(known: {', '.join(sorted(known)) or 'none'})")
    names = _names("--tables", args.tables)
    data = args.data_dir
    if args.rebuild_catalog:
        if args.action != "run":
            raise UserError("--rebuild-catalog is an action of its own (no status/verify)")
        return _rebuild_catalog(data, tables)
    if args.action == "status":
        return _status(data, tables, names, checksum=not args.quick, fmt=args.format)
    if args.action == "verify":
        return _verify(data, _names("--checks", args.checks))
    return _run(data, tables, names, args)


def _names(flag: str, text: str | None) -> list[str] | None:
    """A comma-separated list option; None if not given. An empty list is refused (it would
    otherwise mean "all", or nothing)."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UserError(f"{flag} needs at least one name, got {text!r}")
    return names


def _parse_options(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"--option expects KEY=VALUE, got {item!r}")
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def _run(data, tables, names, args) -> int:
    if args.workers is not None and args.workers < 1:
        raise UserError(f"--workers must be at least 1, got {args.workers}")
    report = run(data, tables, names, workers=args.workers, refresh=args.refresh,
                 scheduler=args.scheduler, wait=args.wait, progress=not args.no_progress)
    out = Table(title=f"etl: {report.wall_seconds:.1f} s wall, executor {report.executor}"
                      + (f" ({report.workers} workers)" if "processes" in report.executor else ""))
    for col, justify in (("table", "left"), ("parts", "right"), ("built", "right"),
                         ("rows", "right"), ("on disk", "right"), ("build s", "right"),
                         ("wall s", "right"), ("state", "left")):
        out.add_column(col, justify=justify)
    for t in report.tables:
        _add_row(out, t.name, f"{t.partitions:,}", f"{t.built:,}", f"{t.rows:,}",
                    human_bytes(t.bytes), f"{t.compute_seconds:.1f}", f"{t.wall_seconds:.1f}",
                    _state(t))
    _console().print(out)
    for note in report.view_errors:
        print(f"note: {note}", file=sys.stderr)
    failed = [t for t in report.tables if t.failures]
    if failed:
        t = failed[0]
        key, msg = t.failures[0]
        more = sum(len(x.failures) for x in failed) - 1
        raise _Failed(f"{t.name} partition {key} failed: {msg}"
                      + (f" (and {more} more failure(s))" if more else ""))
    damaged = [t for t in report.tables if t.damaged]
    if damaged:
        t = damaged[0]
        raise UserError(f"{t.name}: damaged partition(s) {', '.join(t.damaged[:5])}: "
                        f"rebuild with `cli.py etl --refresh`")
    blocked = [t for t in report.tables if t.blocked_by]
    if blocked:
        raise UserError(f"{blocked[0].name} not built: dependency {blocked[0].blocked_by} "
                        f"is not complete")
    return 0


def _rebuild_catalog(data, tables) -> int:
    got = rebuild_catalog(data, tables)
    if got.moved_to is not None:
        print(f"moved the old catalog to {got.moved_to}")
    print(f"recorded {got.recorded:,} partition(s) from their files"
          + (f"; {got.unknown_version:,} name no code version (stale: `cli.py etl --refresh` "
             f"rebuilds them)" if got.unknown_version else ""))
    if got.unreadable:
        print(f"left out {len(got.unreadable)} unreadable file(s) (rebuilt by the next run): "
              + ", ".join(got.unreadable[:5]))
    print("abstractions, strategies and evaluations are not recorded in the partition files: "
          "rebuild them with their commands if you need them in the catalog")
    return 0


class _Failed(UserError):
    """A partition's computation raised (a bug or a resource limit, not bad input)."""


def _state(t) -> str:
    if t.failures:
        return f"{len(t.failures)} failed"
    if t.blocked_by:
        return f"blocked by {t.blocked_by}"
    parts = []
    if t.damaged:
        parts.append(f"{len(t.damaged)} damaged (use --refresh)")
    if t.stale:
        parts.append(f"{len(t.stale)} stale (use --refresh)")
    if t.removed_extra:
        parts.append(f"{t.removed_extra} obsolete removed")
    if t.quarantined:
        parts.append(f"{len(t.quarantined)} stray moved to quarantine/")
    return ", ".join(parts) or "complete"


def _status(data, tables, names, checksum: bool, fmt: str = "table") -> int:
    results = status(data, tables, names, checksum=checksum)
    # Without --tables, only the tables in use count: a table nobody asked for is not a fault.
    not_built = [] if names is not None else [st.name for st in results if not st.in_use]
    results = [st for st in results if st.name not in not_built]
    code = status_code(results)
    if fmt == "json":
        built = last_built(data)
        doc = {"data_dir": os.path.abspath(data), "exit_status": code,
               "state": {STATUS_OK: "ok", STATUS_TO_BUILD: "to-build",
                         STATUS_DAMAGED: "damaged"}[code],
               "checksums": "all" if checksum else "changed files only (--quick)",
               "checked_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
               "tables": [{
                   "name": st.name, "code_version": st.version, "partitions": len(st.checks),
                   **{state: st.count(state) for state in ("ok", "missing", "stale", "damaged")},
                   "rows": st.rows, "bytes": st.bytes,
                   "last_built": built.get(st.name),
                   "problems": [{"key": c.key, "state": c.state, "reason": c.reason}
                                for c in st.checks if c.state != "ok"],
                   "obsolete": st.extra, "stray": st.stray} for st in results],
               "not_built": not_built}
        print(json.dumps(doc, indent=1))
        return code
    out = Table(title=f"etl status: {os.path.abspath(data)}")
    for col in ("table", "version", "partitions", "ok", "missing", "stale", "damaged", "rows",
                "on disk"):
        out.add_column(col, justify="left" if col in ("table", "version") else "right")
    for st in results:
        _add_row(out, st.name, st.version, f"{len(st.checks):,}", f"{st.count('ok'):,}",
                    f"{st.count('missing'):,}", f"{st.count('stale'):,}",
                    f"{st.count('damaged'):,}", f"{st.rows:,}", human_bytes(st.bytes))
    _console().print(out)
    for st in results:
        for c in st.checks:
            if c.state in ("damaged", "stale"):
                print(f"{c.state}: {st.name} part-{c.key} ({c.reason})")
        if st.extra:
            print(f"obsolete: {st.name} part-{', part-'.join(st.extra)} (removed by --refresh)")
        for f in st.stray:
            print(f"stray: {st.name} {f} (not part of the table; --refresh moves it to "
                  f"quarantine/{st.name}/)")
    if not_built:
        print(f"not built (never asked for, not a fault): {', '.join(not_built)}; "
              f"`python cli.py etl --tables {','.join(not_built)}` builds them")
    return code


#: ``etl status`` exit statuses, for a monitor (also in the README).
STATUS_OK, STATUS_TO_BUILD, STATUS_DAMAGED = 0, 3, 4


def status_code(results) -> int:
    """0: every partition ok; 3: some missing or stale (a run or --refresh builds them); 4:
    some damaged, or stray files in a table folder (--refresh repairs). 2 is a one-line error
    (could not run), as for every command."""
    if any(st.count("damaged") or st.stray for st in results):
        return STATUS_DAMAGED
    if any(st.count("missing") or st.count("stale") or st.extra for st in results):
        return STATUS_TO_BUILD
    return STATUS_OK


# --- verify --------------------------------------------------------------------------------


def _verify(data, only: list[str] | None = None) -> int:
    """Run the exact checks; print expected against found; exit 1 on any mismatch."""
    unknown = [c for c in only or [] if c not in VERIFY_CHECKS]
    if unknown:
        raise UserError(f"unknown check {unknown[0]!r} (known: {', '.join(VERIFY_CHECKS)})")
    console = _console()
    out = Table(title="etl verify")
    for col in ("check", "expected", "found", "result", "seconds"):
        out.add_column(col, justify="left" if col in ("check", "result") else "right")
    bad = 0
    for title, fn in VERIFY_CHECKS.items():
        if only and title not in only:
            continue
        t0 = time.perf_counter()
        try:
            rows = fn(data)
        except _Unavailable as exc:
            _add_row(out, title, "", "", f"not available: {exc}", "")
            bad += 1
            continue
        secs = time.perf_counter() - t0
        for what, expected, found in rows:
            ok = expected == found
            bad += not ok
            _add_row(out, what, _fmt(expected), _fmt(found), "ok" if ok else "MISMATCH",
                     f"{secs:.1f}")
    console.print(out)
    return 1 if bad else 0


class _Unavailable(Exception):
    pass


def _check_canonical_counts(data) -> list[tuple[str, Any, Any]]:
    rows = []
    for groups, expected in CANONICAL_COUNTS.items():
        rows += _canonical_rows(list(groups), expected, verify_counts(list(groups)))
    return rows


#: Error counters of ``etl.isomorphism.verify_counts``; each must be 0.
_ERROR_FIELDS = ("out_of_range", "not_invariant", "not_isomorphic", "roundtrip_errors",
                 "bad_representatives")


def _canonical_rows(groups: list[int], expected: int, result: Any) -> list[tuple[str, Any, Any]]:
    """Rows of one ``verify_counts`` result (a dict of counts, or just the size found)."""
    name = f"canonical {groups}"
    if not isinstance(result, dict):
        return [(f"{name}: size", expected, int(result))]
    rows = [(f"{name}: size", expected, int(result["size"]))]
    if "hits" in result:
        rows.append((f"{name}: indexes hit", expected, int(result["hits"])))
    if "burnside" in result:
        rows.append((f"{name}: Burnside count", expected, int(result["burnside"])))
    if "raw" in result and "visited" in result:
        rows.append((f"{name}: raw hands visited", int(result["raw"]), int(result["visited"])))
    errors = [f for f in _ERROR_FIELDS if f in result]
    if errors:
        rows.append((f"{name}: errors", 0, sum(int(result[f]) for f in errors)))
    if "ok" in result:
        rows.append((f"{name}: ok", True, bool(result["ok"])))
    return rows


def _check_handval_categories(data) -> list[tuple[str, Any, Any]]:
    """Category counts of the stored handval table (or, if not built, of a fresh build)."""
    tables = all_tables()
    if "handval" in tables and all(st.complete for st in status(data, tables, ["handval"],
                                                                 checksum=False)):
        source, cats = "table", read_column_array(data, "handval", "category")
    else:
        source, cats = "built in memory", hand_category(build_handval())
    found = np.bincount(np.asarray(cats, dtype=np.int64), minlength=9)
    rows = [(f"handval ({source}): {name}", expected, int(found[i]))
            for i, (name, expected) in enumerate(SEVEN_CARD_CATEGORIES.items())]
    rows.append((f"handval ({source}): total", 133_784_560, int(found.sum())))
    return rows


def _check_equity(data) -> list[tuple[str, Any, Any]]:
    """Exact identities within and between the equity tables (``etl/verify_equity.py``)."""
    try:
        return check_equity(data)
    except FileNotFoundError as exc:
        raise _Unavailable(str(exc)) from None


def _console() -> Console:
    # not a terminal (pipe, file, CI log): do not squeeze tables into 80 columns
    return Console(width=None if sys.stdout.isatty() else 200)


def _add_row(table: Table, *cells: str) -> None:
    table.add_row(*(Text(c) for c in cells))  # Text: no rich markup in names like "v1[bins=50]"


#: ``etl verify`` checks by name: ``fn(data_dir) -> [(what, expected, found)]``.
VERIFY_CHECKS: dict[str, Callable[[Any], list[tuple[str, Any, Any]]]] = {
    "canonical": _check_canonical_counts,
    "handval": _check_handval_categories,
    "equity": _check_equity,
}


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    return f"{value:,}" if isinstance(value, int) else str(value)
