"""Share a build: one archive file per abstraction or strategy, importable into another data
directory (issue 19).

An archive is an uncompressed tar (the Parquet files are compressed already) holding
``manifest.json`` and ``files/<relative path>``. The manifest records the kind
(``abstraction`` or ``strategy``), the name, the catalog row, every file's size and SHA-256,
the code version, and for an abstraction the equity tables of the data directory it was built
in (per table: code version and a digest of its partitions' checksums; empty for Rhode Island,
whose hands are computed in memory). Import checks all of it before writing anything, then
writes the files (staged, then renamed into place) and the catalog row (the row's ``created``
time is kept, so a strategy imported with its abstraction stays "of the current build").

Refused, each with a one-line error: an unreadable or damaged archive (a checksum, a size, a
missing file), a name that exists in the target (unless ``replace``), an abstraction built on
equity tables that differ from the target's, a strategy whose abstraction the target lacks.
Checkpoints are not exported (``strategies/<name>/checkpoint*``): a shared strategy is final.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

import duckdb

from schema.catalog import catalog_path, open_read_only, session_scope
from schema.catalog_abstraction import Abstraction
from schema.catalog_solve import SolveRun
from schema.errors import UserError, first_line
from schema.paths import stored_path
from schema.storage import AtomicFile, file_sha256

FORMAT = "poker-share-1"
KINDS = {"abstraction": (Abstraction, "abstractions"), "strategy": (SolveRun, "strategies")}
EQUITY_TABLES = ("equity_preflop", "equity_flop", "equity_turn", "equity_river", "hist_flop",
                 "hist_turn", "handval")


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
        row.get("game") == "holdem" else {},
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


def read_manifest(file: str | Path) -> dict:
    try:
        with tarfile.open(file, "r") as tar:
            member = tar.extractfile("manifest.json")
            manifest = json.loads(member.read())
    except (OSError, KeyError, ValueError, tarfile.TarError, AttributeError) as exc:
        raise UserError(f"{file} is not a readable build archive ({first_line(exc)})") from None
    if manifest.get("format") != FORMAT or manifest.get("kind") not in KINDS:
        raise UserError(f"{file} is not a build archive of this tool (format "
                        f"{manifest.get('format')!r})")
    return manifest


def import_(data_dir: str | Path, file: str | Path, replace: bool = False) -> Imported:
    """Check archive ``file`` and add its abstraction or strategy to ``data_dir``."""
    data_dir = Path(data_dir)
    manifest = read_manifest(file)
    kind, name, row = manifest["kind"], manifest["name"], dict(manifest["row"])
    model, sub = KINDS[kind]
    if not name or "/" in name or name.startswith("."):
        raise UserError(f"{file}: bad name {name!r} in the manifest")
    with session_scope(data_dir) as s:
        exists = s.get(model, name) is not None
        abstraction = row.get("abstraction") if kind == "strategy" else None
        if abstraction and s.get(Abstraction, abstraction) is None:
            raise UserError(f"strategy {name!r} is of abstraction {abstraction!r}, which "
                            f"{data_dir} does not have: import the abstraction first")
    if exists and not replace:
        raise UserError(f"{kind} {name!r} exists in {data_dir} (use --replace)")
    if kind == "abstraction" and manifest.get("equity_tables"):
        _check_equity(manifest["equity_tables"], equity_fingerprint(data_dir), name)
    staging = data_dir / ".staging" / f"import-{kind}-{name}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    total = 0
    try:
        with tarfile.open(file, "r") as tar:
            for entry in manifest["files"]:
                rel = Path(entry["path"])
                if rel.is_absolute() or ".." in rel.parts:
                    raise UserError(f"{file}: unsafe path {entry['path']!r} in the manifest")
                member = tar.extractfile(f"files/{entry['path']}")
                if member is None:
                    raise KeyError(entry["path"])
                out = staging / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                with open(out, "wb") as fh:
                    shutil.copyfileobj(member, fh)
                if out.stat().st_size != entry["bytes"] or file_sha256(out) != entry["sha256"]:
                    raise UserError(f"{file} is damaged: {entry['path']} does not match its "
                                    f"checksum")
                total += entry["bytes"]
        root = data_dir / sub / name
        old = staging.with_name(staging.name + ".old")
        root.parent.mkdir(parents=True, exist_ok=True)
        if root.exists():
            root.rename(old)
        staging.rename(root)
        if old.exists():
            shutil.rmtree(old)
    except (OSError, KeyError, tarfile.TarError) as exc:
        raise UserError(f"{file} is damaged ({first_line(exc)})") from None
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    row["path"] = stored_path(data_dir, root / "strategy.parquet" if kind == "strategy" else root)
    for col in ("created", "built_at"):
        if isinstance(row.get(col), str):
            row[col] = dt.datetime.fromisoformat(row[col])
    with session_scope(data_dir) as s:
        s.merge(model(**row))
    return Imported(kind, name, len(manifest["files"]), total)


def _check_equity(theirs: dict, ours: dict, name: str) -> None:
    """Refuse an abstraction built on other equity tables than the target's (tables the
    target does not have yet are fine: building them gives the same exact tables)."""
    for table, fp in theirs.items():
        mine = ours.get(table)
        if mine is None:
            continue
        if mine["digest"] != fp["digest"]:
            raise UserError(f"abstraction {name!r} was built on other {table} partitions "
                            f"(versions {', '.join(fp['versions'])}) than this data directory "
                            f"has (versions {', '.join(mine['versions'])}): rebuild it here")
