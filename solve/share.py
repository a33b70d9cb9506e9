"""Share a build: one archive file per abstraction or strategy, importable into another data
directory (issue 19).

An archive is a tar (written uncompressed: the Parquet files are compressed already; a
gzipped one imports too) holding ``manifest.json`` first, then ``files/<relative path>``. The
manifest records the kind (``abstraction`` or ``strategy``), the name, the catalog row, every
file's size and SHA-256, and for an abstraction the equity tables of the data directory it
was built in (per table: code version and a digest of its partitions' checksums; empty for
Rhode Island, whose hands are computed in memory).

Import is a transaction. Before anything goes live it checks: the manifest's size and shape;
the name, by the rule every command uses; the catalog row, built from the manifest's name and
known, typed fields only; the total size against a cap (``--max-size``) and the free disk;
every member's size against the manifest before it is copied, and its bytes and SHA-256 while
it is copied (into a staging folder); every Parquet file opened, its schema the declared one
(``schema/``) and all its pages read. Then, holding the name's lock (a build or another import
of the name waits), files and row go live together (``schema.publish``): any failure or
Ctrl-C leaves the previous build of the name exactly as it was. The row's ``created`` time is
kept, so a strategy imported with its abstraction stays "of the current build".

Refused, each with a one-line error: an unreadable, damaged, malformed or oversized archive;
a name that exists in the target (unless ``replace``); an abstraction built on equity tables
the target lacks (the ``etl`` command to run is named) or has otherwise; a strategy whose
abstraction the target lacks. Checkpoints are not exported
(``strategies/<name>/checkpoint*``): a shared strategy is final.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import duckdb
import pyarrow.parquet as pq

from abstraction import games as card_games
from abstraction.store import check_name as check_abstraction_name
from abstraction.store import name_lock as abstraction_lock
from etl.lock import file_lock
from schema.abstraction import (BUCKETS_SCHEMA, CENTROIDS_SCHEMA, RIVER_CODEBOOK_SCHEMA,
                                RIVER_CODES_SCHEMA, THRESHOLDS_SCHEMA)
from schema.catalog import catalog_path, open_read_only, session_scope
from schema.catalog_abstraction import Abstraction
from schema.catalog_solve import SolveRun
from schema.errors import ParameterError, UserError, first_line
from schema.paths import stored_path
from schema.publish import publish
from schema.storage import AtomicFile, file_sha256
from schema.strategy import FORMAT_KEY, FORMATS, STRATEGY_SCHEMAS, TABLE_FILE
from solve.runs import NAME_PATTERN

FORMAT = "poker-share-1"
KINDS = {"abstraction": (Abstraction, "abstractions"), "strategy": (SolveRun, "strategies")}
EQUITY_TABLES = ("equity_preflop", "equity_flop", "equity_turn", "equity_river", "hist_flop",
                 "hist_turn", "handval")
#: A manifest lists a handful of files: anything near this is not one of ours.
MANIFEST_MAX = 16 << 20
#: Default cap on an archive's uncompressed total (``--max-size``); the largest Texas Hold'em
#: abstractions are a few GB.
MAX_SIZE = 64 << 30
_CHUNK = 1 << 20
_MANIFEST_KEYS = {"format", "kind", "name", "row", "files", "equity_tables", "exported_at"}
_SHA256 = re.compile(r"[0-9a-f]{64}")
_ROW_TYPES = {int: "whole number", float: "number", str: "string", dt.datetime: "ISO time"}
_JSON_TYPES = {str: "string", dict: "object", list: "list", int: "number", float: "number",
               bool: "boolean", type(None): "null"}
#: The declared schema of every Parquet file a build folder may hold (by file name).
_ABSTRACTION_TABLES = ((re.compile(r"round\d{1,2}\.parquet"), (BUCKETS_SCHEMA,)),
                       (re.compile(r"centroids\.parquet"), (CENTROIDS_SCHEMA,)),
                       (re.compile(r"thresholds\.parquet"), (THRESHOLDS_SCHEMA,)),
                       (re.compile(r"river_codes\.parquet"), (RIVER_CODES_SCHEMA,)),
                       (re.compile(r"river_codebook\.parquet"), (RIVER_CODEBOOK_SCHEMA,)))
_REQUIRED = {"abstraction": ("round0.parquet", "centroids.parquet", "thresholds.parquet"),
             "strategy": (TABLE_FILE,)}


@dataclass
class Imported:
    kind: str
    name: str
    files: int
    bytes: int


def _row_dict(row) -> dict:
    out = {}
    for col in row.__table__.columns:
        v = getattr(row, col.name)
        out[col.name] = v.isoformat() if isinstance(v, dt.datetime) else v
    return out


def _find(data_dir: Path, name: str) -> tuple[str, dict]:
    with session_scope(data_dir) as s:
        for kind, (model, _) in KINDS.items():
            row = s.get(model, name)
            if row is not None:
                return kind, _row_dict(row)
    raise UserError(f"no abstraction or strategy named {name!r} in {data_dir}")


def equity_fingerprint(data_dir: Path) -> dict:
    """Per equity table recorded in ``data_dir``: its code versions and a SHA-256 over its
    partitions' (key, checksum) pairs."""
    path = catalog_path(data_dir)
    if not path.exists():
        return {}
    try:
        con = open_read_only(path, attempts=1)
    except (duckdb.Error, UserError) as exc:
        raise UserError(f"cannot read the catalog {path}: {first_line(exc)}") from None
    try:
        rows = con.execute("SELECT table_name, key, checksum, code_version FROM etl_partitions "
                           "WHERE list_contains(?, table_name) ORDER BY 1, 2",
                           [list(EQUITY_TABLES)]).fetchall()
    except duckdb.Error:
        return {}
    finally:
        con.close()
    out: dict = {}
    for table, key, checksum, version in rows:
        t = out.setdefault(table, {"versions": set(), "h": hashlib.sha256(), "partitions": 0})
        t["versions"].add(version)
        t["h"].update(f"{key}:{checksum}\n".encode())
        t["partitions"] += 1
    return {k: {"versions": sorted(v["versions"]), "partitions": v["partitions"],
                "digest": v["h"].hexdigest()} for k, v in out.items()}


def export(data_dir: str | Path, name: str, file: str | Path) -> dict:
    """Write the archive of abstraction or strategy ``name``; returns its manifest."""
    data_dir = Path(data_dir)
    if not str(file).strip():
        raise UserError("export needs a FILE to write, got an empty name")
    if Path(file).is_dir():
        raise UserError(f"cannot write the archive {file}: it is a directory")
    kind, row = _find(data_dir, name)
    folder = data_dir / KINDS[kind][1] / name
    if not folder.is_dir():
        raise UserError(f"{kind} {name!r} has no files (looked in {folder})")
    files = sorted(p for p in folder.rglob("*") if p.is_file()
                   and not p.name.startswith(".") and not p.name.startswith("checkpoint")
                   and "checkpoint" not in p.relative_to(folder).parts)
    manifest = {
        "format": FORMAT, "kind": kind, "name": name, "row": row,
        "files": [{"path": p.relative_to(folder).as_posix(), "bytes": p.stat().st_size,
                   "sha256": file_sha256(p)} for p in files],
        "equity_tables": equity_fingerprint(data_dir) if kind == "abstraction" and
        card_games.has(row.get("game"), lambda g: g.equity_tables) else {},
        "exported_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }
    with AtomicFile(file, checksum=False) as f:
        with tarfile.open(f.tmp, "w") as tar:
            data = json.dumps(manifest, indent=1).encode()
            info = tarfile.TarInfo("manifest.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            for p, entry in zip(files, manifest["files"]):
                tar.add(p, arcname=f"files/{entry['path']}")
    return manifest


def parse_size(text: str) -> int:
    """Bytes from ``123``, ``500M``, ``64G`` (K, M, G, T: powers of 1024)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", str(text), re.IGNORECASE)
    if not m:
        raise ParameterError(f"`max_size` must be a size such as 500M or 64G, got {text!r}")
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " "))


def _size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _open_stream(file: str | Path) -> tarfile.TarFile:
    """The archive read front to back (``r|*``): nothing is read ahead or out of order, so a
    member is judged by its header before its bytes are."""
    return tarfile.open(file, "r|*")


_DAMAGE = (OSError, EOFError, tarfile.TarError, zlib.error)


def read_manifest(file: str | Path) -> dict:
    """The archive's manifest (its first member), checked for shape (:func:`check_manifest`).

    Raises:
        UserError: not an archive of this tool, a manifest too large or malformed.
    """
    try:
        with _open_stream(file) as tar:
            first = tar.next()
            if first is None or first.name != "manifest.json" or not first.isreg():
                raise UserError(f"{file} is not a build archive of this tool (its first member "
                                f"is {first.name if first else 'missing'!r}, not manifest.json)")
            if first.size > MANIFEST_MAX:
                raise UserError(f"{file}: its manifest.json is {_size(first.size)}, more than "
                                f"a manifest can be ({_size(MANIFEST_MAX)})")
            data = tar.extractfile(first).read(MANIFEST_MAX + 1)
    except UserError:
        raise
    except _DAMAGE as exc:
        raise UserError(f"{file} is not a readable build archive ({first_line(exc)})") from None
    try:
        manifest = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"{file}: manifest.json is not JSON ({first_line(exc)})") from None
    return check_manifest(manifest, file)


def check_manifest(m, file) -> dict:
    """``m`` if it is a manifest of this tool's shape, else a one-line ``UserError``."""
    def bad(what: str):
        return UserError(f"{file}: malformed manifest: {what}")

    if not isinstance(m, dict):
        raise bad(f"a JSON {type(m).__name__}, not an object")
    if m.get("format") != FORMAT or m.get("kind") not in KINDS:
        raise UserError(f"{file} is not a build archive of this tool (format "
                        f"{str(m.get('format'))[:40]!r}, kind {str(m.get('kind'))[:40]!r})")
    unknown = sorted(map(str, set(m) - _MANIFEST_KEYS))
    if unknown:
        raise bad(f"unknown field(s) {', '.join(unknown)[:200]}")
    for key, kind in (("name", str), ("row", dict), ("files", list)):
        if not isinstance(m.get(key), kind):
            raise bad(f"{key!r} must be a JSON {_JSON_TYPES[kind]}, got "
                      + (_JSON_TYPES.get(type(m[key]), type(m[key]).__name__) if key in m
                         else "nothing"))
    check_build_name(m["kind"], m["name"], file)
    seen = set()
    for e in m["files"]:
        if not (isinstance(e, dict) and set(e) == {"path", "bytes", "sha256"}):
            raise bad("every 'files' entry must be an object of path, bytes and sha256")
        if not (isinstance(e["bytes"], int) and not isinstance(e["bytes"], bool)
                and e["bytes"] >= 0):
            raise bad(f"'bytes' of a file must be a whole number, got {str(e['bytes'])[:40]!r}")
        if not (isinstance(e["sha256"], str) and _SHA256.fullmatch(e["sha256"])):
            raise bad("'sha256' of a file must be 64 hexadecimal digits")
        _check_path(m["kind"], e["path"], file)
        if e["path"] in seen:
            raise bad(f"{e['path']!r} is listed twice")
        seen.add(e["path"])
    missing = [f for f in _REQUIRED[m["kind"]] if f not in seen]
    if missing:
        raise bad(f"a {m['kind']} needs {', '.join(missing)}, which it does not list")
    eq = m.get("equity_tables", {})
    if not (isinstance(eq, dict) and all(
            t in EQUITY_TABLES and isinstance(v, dict) and isinstance(v.get("digest"), str)
            and isinstance(v.get("partitions"), int) and isinstance(v.get("versions"), list)
            and all(isinstance(x, str) for x in v["versions"]) for t, v in eq.items())):
        raise bad("'equity_tables' must map equity table names to versions, partitions and "
                  "digest")
    return m


def check_build_name(kind: str, name, file) -> str:
    """``name`` if it passes the rule every command applies to an abstraction or strategy
    name (a folder name: letters, digits, '_', '.', '-', and '+' for strategies)."""
    if kind == "abstraction":
        try:
            return check_abstraction_name(name if isinstance(name, str) else "")
        except ValueError:
            pass
    elif isinstance(name, str) and NAME_PATTERN.match(name):
        return name
    raise UserError(f"{file}: bad {kind} name {str(name)[:80]!r} in the manifest (letters, "
                    f"digits, '_', '.', '-'{'' if kind == 'abstraction' else ', +'} only)")


def _check_path(kind: str, path, file) -> None:
    """A path inside the build folder, of a file that a build of ``kind`` has."""
    ok = (isinstance(path, str) and 0 < len(path) < 256 and "\0" not in path
          and "\\" not in path)
    parts = PurePosixPath(path).parts if ok else ()
    ok = ok and not PurePosixPath(path).is_absolute() and all(
        p not in ("", ".", "..") and not p.startswith(".") and not p.startswith("checkpoint")
        for p in parts) and "/".join(parts) == path
    if ok and kind == "abstraction":
        ok = len(parts) == 1 and _declared(kind, path) is not None
    elif ok and path.endswith(".parquet"):
        ok = _declared(kind, path) is not None  # a strategy folder's one table
    if not ok:
        raise UserError(f"{file}: malformed manifest: {str(path)[:80]!r} is not a file a "
                        f"{kind} has")


def _declared(kind: str, path: str):
    """The schemas a Parquet file at ``path`` of a build of ``kind`` may have, or None."""
    if kind == "strategy":
        return STRATEGY_SCHEMAS if path == TABLE_FILE else None
    return next((s for pattern, s in _ABSTRACTION_TABLES if pattern.fullmatch(path)), None)


def catalog_row(kind: str, name: str, raw: dict, file):
    """The catalog row of the import: the manifest's ``name``, the fields of ``raw`` that the
    catalog has, each of its type (``path`` is set by the import). Unknown or missing fields
    are refused: nothing else of the archive's row is trusted."""
    model = KINDS[kind][0]
    cols = {c.name: c for c in model.__table__.columns}
    unknown = sorted(map(str, set(raw) - set(cols)))
    if unknown:
        raise UserError(f"{file}: the {kind} row has unknown field(s) {', '.join(unknown)[:200]}")
    if raw.get("name", name) != name:
        raise UserError(f"{file}: the row is of {kind} {str(raw['name'])[:80]!r}, the manifest "
                        f"of {name!r}")
    values = {"name": name, "path": ""}
    for col_name, col in cols.items():
        if col_name in ("name", "path"):
            continue
        v = raw.get(col_name)
        if v is None:
            if not col.nullable:
                raise UserError(f"{file}: the {kind} row has no {col_name!r}")
            values[col_name] = None
            continue
        want = col.type.python_type
        if want is dt.datetime:
            try:
                v = dt.datetime.fromisoformat(v) if isinstance(v, str) else None
            except ValueError:
                v = None
            if v is not None and v.tzinfo is not None:  # the catalog's times are naive UTC
                v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        elif want is float and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        if not isinstance(v, want) or isinstance(v, bool) and want is not bool:
            raise UserError(f"{file}: the {kind} row's {col_name!r} is not a "
                            f"{_ROW_TYPES.get(want, want.__name__)}: "
                            f"{str(raw.get(col_name))[:40]!r}")
        values[col_name] = v
    if kind == "strategy" and values.get("abstraction") is not None:
        check_build_name("abstraction", values["abstraction"], file)
    return values


def import_(data_dir: str | Path, file: str | Path, replace: bool = False,
            max_size: int = MAX_SIZE) -> Imported:
    """Check archive ``file`` whole, then add its abstraction or strategy to ``data_dir``
    (files and catalog row together), replacing one of the same name if ``replace``."""
    data_dir = Path(data_dir)
    manifest = read_manifest(file)
    kind, name = manifest["kind"], manifest["name"]
    model, sub = KINDS[kind]
    values = catalog_row(kind, name, manifest["row"], file)
    files = {e["path"]: e for e in manifest["files"]}
    if kind == "strategy" and values["sha256"] != files[TABLE_FILE]["sha256"]:
        raise UserError(f"{file}: the row's sha256 is not the one of its {TABLE_FILE}")
    total = sum(e["bytes"] for e in files.values())
    if total > max_size:
        raise ParameterError(f"{file} holds {_size(total)} uncompressed, more than the cap of "
                             f"{_size(max_size)} (raise it with `max_size` if it is expected)")
    root = data_dir / sub / name
    _check_target(data_dir, kind, name, values, replace)
    if kind == "abstraction" and manifest.get("equity_tables"):
        _check_equity(manifest["equity_tables"], equity_fingerprint(data_dir), name)
    _check_room(data_dir, total, file)
    # staged per process, so two imports of one name check their archives side by side; only
    # going live takes the name's lock (a build of the name takes it too)
    staging = data_dir / ".staging" / f"import-{kind}-{name}-{os.getpid()}"
    _remove_stale(staging)
    lock = (abstraction_lock(data_dir, name) if kind == "abstraction"
            else data_dir / ".locks" / f"strategy-{name}.lock")
    try:
        _extract(file, files, staging)
        for path in files:
            schemas = _declared(kind, path)
            if schemas is not None:
                _check_table(staging / path, schemas, path, file)
        values["path"] = stored_path(data_dir, root / TABLE_FILE if kind == "strategy"
                                     else root)
        with file_lock(lock, note=f"note: another build or import of {kind} {name!r} is "
                                  f"under way; waiting for it to finish"):
            publish(data_dir, staging, root, model(**values),
                    check=lambda s: _check_target(data_dir, kind, name, values, replace, s))
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return Imported(kind, name, len(files), total)


def _check_target(data_dir: Path, kind: str, name: str, values: dict, replace: bool,
                  s=None) -> None:
    """Refuse a taken name (unless ``replace``) and a strategy whose abstraction is missing;
    with session ``s`` (the catalog held, just before going live) or a short one of its own."""
    if s is None:
        with session_scope(data_dir) as s:
            return _check_target(data_dir, kind, name, values, replace, s)
    model = KINDS[kind][0]
    abstraction = values.get("abstraction") if kind == "strategy" else None
    if abstraction and s.get(Abstraction, abstraction) is None:
        raise UserError(f"strategy {name!r} is of abstraction {abstraction!r}, which "
                        f"{data_dir} does not have: import the abstraction first")
    if not replace and s.get(model, name) is not None:
        raise ParameterError(f"{kind} {name!r} exists in {data_dir} (`replace` overwrites it)")


def _remove_stale(staging: Path) -> None:
    """Remove ``staging`` and the staging folders of imports of the same name by processes
    that are gone (killed: a Ctrl-C'd import removes its own)."""
    stem = staging.name.rsplit("-", 1)[0]
    for d in staging.parent.glob(f"{stem}-*"):
        pid = d.name.rsplit("-", 1)[1]
        if d.is_dir() and pid.isdigit() and (d == staging or not _alive(int(pid))):
            shutil.rmtree(d, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def _check_room(data_dir: Path, total: int, file) -> None:
    where = next((p for p in (data_dir.absolute(), *data_dir.absolute().parents) if p.exists()))
    free = shutil.disk_usage(where).free
    if total > free:
        raise UserError(f"{file} holds {_size(total)} uncompressed; {where} has {_size(free)} "
                        f"free")


def _extract(file, files: dict, staging: Path) -> None:
    """Copy the members listed in ``files`` (path -> manifest entry) into ``staging``, each
    refused before its copy starts if its header disagrees with the manifest, and while it is
    copied if its bytes do (count or SHA-256); any other member is refused."""
    seen = set()
    try:
        with _open_stream(file) as tar:
            tar.next()  # the manifest, read already
            while (m := tar.next()) is not None:
                if m.isdir() and (m.name == "files" or m.name.startswith("files/")):
                    continue
                path = m.name[len("files/"):] if m.name.startswith("files/") else None
                entry = files.get(path)
                if entry is None or path in seen:
                    raise UserError(f"{file}: member {m.name[:80]!r} is not in the manifest"
                                    + (" (or is there twice)" if entry else ""))
                if not m.isreg():
                    raise UserError(f"{file}: member {m.name[:80]!r} is not a regular file")
                if m.size != entry["bytes"]:
                    raise UserError(f"{file} is damaged: {path} is {_size(m.size)} in the "
                                    f"archive, {_size(entry['bytes'])} in the manifest")
                seen.add(path)
                _copy(tar.extractfile(m), staging / path, entry, file)
    except UserError:
        raise
    except _DAMAGE as exc:
        raise UserError(f"{file} is damaged ({first_line(exc)})") from None
    missing = sorted(set(files) - seen)
    if missing:
        raise UserError(f"{file} is damaged: {', '.join(missing)[:200]} missing")


def _copy(src, out: Path, entry: dict, file) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    h, n = hashlib.sha256(), 0
    with open(out, "wb") as fh:
        while chunk := src.read(_CHUNK):
            n += len(chunk)
            if n > entry["bytes"]:  # the header is checked, but the stream is what is written
                raise UserError(f"{file} is damaged: {entry['path']} is longer than the "
                                f"manifest says")
            h.update(chunk)
            fh.write(chunk)
    if n != entry["bytes"] or h.hexdigest() != entry["sha256"]:
        raise UserError(f"{file} is damaged: {entry['path']} does not match its checksum")


def _check_table(path: Path, schemas: tuple, label: str, file) -> None:
    """Refuse a Parquet file that does not open, whose schema is not one of ``schemas`` or
    whose pages do not all read (batch by batch: memory stays small)."""
    try:
        pf = pq.ParquetFile(path, page_checksum_verification=True)
        got = pf.schema_arrow
        if not any(got.equals(s, check_metadata=False) for s in schemas):
            raise UserError(f"{file}: {label} has columns ({', '.join(got.names)[:200]}) "
                            f"that are not its declared schema")
        fmt = (got.metadata or {}).get(FORMAT_KEY)
        if fmt is not None and fmt.decode(errors="replace") not in FORMATS:
            raise UserError(f"{file}: {label} has unknown strategy format {fmt[:40]!r}")
        for _ in pf.iter_batches(batch_size=1 << 16):
            pass
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 (Arrow raises many types for a foreign file)
        raise UserError(f"{file}: {label} is not a readable Parquet table "
                        f"({first_line(exc)})") from None


#: The equity tables an imported abstraction is used with: the solver and the look-ups find a
#: Texas Hold'em river hand's bucket from its ``equity_river`` key. The others it was built on
#: are checked only where the target has them.
USED_TABLES = ("equity_river",)


def _check_equity(theirs: dict, ours: dict, name: str) -> None:
    """Refuse an abstraction built on equity tables that the target lacks (or has only in
    part) and that its use needs (the ``etl`` command that builds them is named; being exact,
    they come out the same), or that the target has built otherwise."""
    order = {t: i for i, t in enumerate(EQUITY_TABLES)}  # as `etl` lists them
    missing = sorted((t for t in theirs if t in USED_TABLES and
                      (t not in ours or ours[t]["partitions"] < theirs[t]["partitions"])),
                     key=lambda t: (order.get(t, len(order)), t))
    if missing:
        raise UserError(f"abstraction {name!r} is built on equity tables this data directory "
                        f"lacks or has in part ({', '.join(missing)}): run `python cli.py etl "
                        f"--tables {','.join(missing)}` first, then import it again")
    for table, fp in theirs.items():
        mine = ours.get(table)
        if mine is not None and mine["partitions"] >= fp["partitions"] \
                and mine["digest"] != fp["digest"]:
            raise UserError(f"abstraction {name!r} was built on other {table} partitions "
                            f"(versions {', '.join(fp['versions'])}) than this data directory "
                            f"has (versions {', '.join(mine['versions'])}): rebuild it here")
