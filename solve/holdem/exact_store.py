"""Where an exact best response keeps its finished flops (``solve.holdem.best_response``).

A :class:`FlopStore` is one folder per evaluation: ``flop<i>.npy`` per finished canonical flop
(its ``flop_values`` array, float64), each written atomically; ``key.json`` what they were
computed from (a folder of another key is refused, not mixed); ``seconds.jsonl`` the CPU
seconds each flop took where its runner measured them.

Beside them, ``prefix.npz`` carries the *prefix*: the sum, in flop order, of every flop's
vectors before the first flop not yet done (what the run adds flop by flop anyway), with the
number of flops it covers and their seconds. It is a few hundred kilobytes whatever the
number of flops, and it is keyed by the strategy's *content* (:func:`content_digest`: its
weights, its abstraction's bucket look-ups, the rules, the deck), not by file names or
times. So a prefix copied to another machine (``evaluate NAME --best-response exact
--progress-file FILE``) resumes there on the same strategy solved again, with the same bits as
one uninterrupted run: the flops after the prefix are added to it in the same order.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np

from etl.lock import try_file_lock
from schema.errors import UserError
from schema.npz import read_npy, read_npz
from schema.paths import check_dir
from schema.storage import AtomicFile

#: part of every store's key: bump it when what a stored flop result means changes (flops
#: stored before seat 1's own values were dropped still carry them; nothing reads them, so
#: those flops and later ones mix)
BR_VERSION = 1
PREFIX = "prefix.npz"
#: the plain-text twin of the prefix's flop count, for the SQL progress view
PREFIX_JSON = "prefix.json"


def content_digest(weights: np.ndarray, lookups, rules, deck: np.ndarray,
                   isomorphism: bool = True) -> str:
    """SHA-256 of everything an exact best response's flop vectors depend on: the strategy's
    weights, its abstraction's bucket look-up arrays (``HoldemBuckets.lookup``), the betting
    rules, the deck and the flop symmetry; equal on two machines exactly when the inputs'
    bytes are (a strategy solved again to the same iterations from the same abstraction build)."""
    h = hashlib.sha256()
    h.update(json.dumps({"rules": [rules.n_rounds, list(rules.blinds), list(rules.bets),
                                   rules.max_bets],
                         "deck": [int(c) for c in deck], "isomorphism": bool(isomorphism),
                         "br_version": BR_VERSION}, sort_keys=True).encode())
    for a in (weights, *lookups):
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(memoryview(a.reshape(-1).view(np.uint8)))
    return h.hexdigest()


class FlopStore:
    """Finished flops of one exact best response (see the module docstring); ``content``:
    the :func:`content_digest` a prefix carries and must carry to be read (None: a reader that
    does not know it, e.g. a bench reading the times, takes the folder's prefix as it is, and
    a prefix written then carries ``key``'s hash, good for this folder only); ``mirror``: a
    file every prefix written here is copied to (``--progress-file``)."""

    def __init__(self, directory: Path, key: dict, content: str | None = None,
                 mirror: Path | None = None):
        self.dir = Path(directory)
        self.key = {**key, "br_version": BR_VERSION}
        self.content = content
        self.mirror = Path(mirror) if mirror is not None else None

    def _content(self) -> str:
        return self.content or hashlib.sha256(
            json.dumps(self.key, sort_keys=True).encode()).hexdigest()

    def check_mirror(self) -> None:
        """Refuse, before any flop is walked, a ``mirror`` that could not be written (a
        directory, or in a folder that is a file, lies under one or cannot be written:
        ``schema.paths.check_dir``); its folder is made.

        Raises:
            UserError: the mirror could not be written.
        """
        m = self.mirror
        if m is None:
            return
        if m.is_dir():
            raise UserError(f"progress file {m} is a directory")
        check_dir(m.parent, f"cannot keep progress in {m}: folder", writable=True)
        m.parent.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def folder(parent: Path, key: dict) -> Path:
        """A folder under ``parent`` named by a hash of ``key``."""
        k = {**key, "br_version": BR_VERSION}
        digest = hashlib.sha256(json.dumps(k, sort_keys=True).encode()).hexdigest()[:16]
        return Path(parent) / f"exact-br-{digest}"

    def _check_key(self) -> None:
        path = self.dir / "key.json"
        if path.exists():
            if json.loads(path.read_text()) != self.key:
                raise UserError(f"{self.dir} holds flops of another best response")
        else:
            with AtomicFile(path, checksum=False) as f:
                f.tmp.write_text(json.dumps(self.key, sort_keys=True))

    @contextmanager
    def locked(self) -> Iterator["FlopStore"]:
        """Hold the store's lock for the block (one run at a time; the kernel frees a
        ``flock`` when its holder dies, so a killed run leaves none behind).

        Raises:
            UserError: another run holds it, or the folder holds another key's flops.
        """
        with try_file_lock(self.dir / ".lock") as held:
            if not held:
                raise UserError(f"another exact best response is running on {self.dir}")
            self._check_key()
            yield self

    def path(self, i: int) -> Path:
        return self.dir / f"flop{i:04d}.npy"

    def load(self, n: int, shape: tuple, start: int = 0) -> dict[int, np.ndarray]:
        """The finished flops from ``start`` on (a file of another shape or unreadable reads
        as not done)."""
        out = {}
        for i in range(start, n):
            p = self.path(i)
            if p.exists():
                try:  # a .npy file whose header fits its bytes (np.load opens zip archives
                    a = read_npy(p.read_bytes())  # and allocates what a header claims)
                except (OSError, ValueError):
                    continue
                if a.shape == shape and a.dtype == np.float64:
                    out[i] = a
        return out

    def put(self, i: int, values: np.ndarray, cpu_seconds: float | None = None) -> None:
        with AtomicFile(self.path(i), checksum=False) as f:
            with open(f.tmp, "wb") as fh:
                np.save(fh, np.asarray(values, np.float64))
        if cpu_seconds is not None:  # a line lost to a crash only loses the timing
            with open(self.dir / "seconds.jsonl", "a") as fh:
                fh.write(json.dumps({"flop": i, "cpu_s": round(float(cpu_seconds), 3)}) + "\n")

    def _logged_seconds(self) -> dict[int, float]:
        out: dict[int, float] = {}
        path = self.dir / "seconds.jsonl"
        if path.exists():
            for line in path.read_text().splitlines():
                try:
                    rec = json.loads(line)
                    out[int(rec["flop"])] = float(rec["cpu_s"])
                except (ValueError, KeyError, TypeError):
                    continue
        return out

    def seconds(self) -> dict[int, float]:
        """The measured CPU seconds of the finished flops: those the prefix carries, then the
        last line of each stored flop (a torn line is skipped; a flop neither in the prefix
        nor stored is not done)."""
        k, _, secs = self.prefix() or (0, None, np.zeros(0))
        out = {i: float(t) for i, t in enumerate(secs[:k]) if not math.isnan(t)}
        out.update({i: t for i, t in self._logged_seconds().items()
                    if i >= k and self.path(i).exists()})
        return out

    # --- the prefix -------------------------------------------------------------------------

    @staticmethod
    def read_prefix(path: Path) -> tuple[dict, np.ndarray, np.ndarray]:
        """(meta, total, seconds) of a prefix file. Raises ValueError if it is not one."""
        try:
            z = read_npz(path, ("meta", "total", "seconds"))
            meta = json.loads(str(z["meta"]))
            total, secs = z["total"], z["seconds"]
        except (ValueError, RecursionError) as exc:  # JSONDecodeError; nesting past the stack
            raise ValueError(f"{path} is not an exact best response's progress ({exc})") from None
        bad = (not isinstance(meta, dict) or not {"content", "flops", "of"} <= set(meta)
               or not isinstance(meta["content"], str)
               or not all(isinstance(meta[x], int) and not isinstance(meta[x], bool)
                          for x in ("flops", "of"))
               or not 0 <= meta["flops"] <= meta["of"]
               or total.dtype != np.float64 or secs.dtype != np.float64
               or secs.shape != (meta["of"],))
        if bad:
            raise ValueError(f"{path} is not an exact best response's progress")
        return meta, total, secs

    def prefix(self, shape: tuple | None = None) -> tuple[int, np.ndarray, np.ndarray] | None:
        """(flops covered, their summed vectors, seconds per flop (nan: not measured)) of this
        store's prefix, or None (none, unreadable, of other content or of another shape)."""
        try:
            meta, total, secs = self.read_prefix(self.dir / PREFIX)
        except ValueError:
            return None
        if self.content is not None and meta["content"] != self.content:
            return None
        if shape is not None and total.shape != shape:
            return None
        return meta["flops"], total, secs

    def put_prefix(self, k: int, n: int, total: np.ndarray, seconds: np.ndarray,
                   mirror: bool = True) -> None:
        """Keep the sum of flops ``0..k-1`` of ``n`` (atomically; then, with ``mirror``, its
        mirror)."""
        meta = json.dumps({"content": self._content(), "flops": int(k), "of": int(n),
                           "shape": list(total.shape)})
        with AtomicFile(self.dir / PREFIX, checksum=False) as f:
            with open(f.tmp, "wb") as fh:
                np.savez(fh, meta=np.array(meta), total=np.asarray(total, np.float64),
                         seconds=np.asarray(seconds, np.float64))
        with AtomicFile(self.dir / PREFIX_JSON, checksum=False) as f:
            f.tmp.write_text(json.dumps({"flops": int(k), "of": int(n)}))
        if mirror and self.mirror is not None:
            with AtomicFile(self.mirror, checksum=False) as f:
                shutil.copyfile(self.dir / PREFIX, f.tmp)

    def adopt(self, path: Path, shape: tuple) -> int:
        """Take the prefix in file ``path`` (``--progress-file``) when it covers more flops than
        this store's own; returns the flops it covers.

        Raises:
            UserError: the file is unreadable, of another strategy's content or another shape.
        """
        try:
            meta, total, secs = self.read_prefix(path)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        if meta["content"] != self._content():
            raise UserError(f"{path} is the progress of another strategy or game (content "
                            f"{meta['content'][:12]}, this one {self._content()[:12]})")
        if total.shape != shape:
            raise UserError(f"{path} holds vectors of shape {total.shape}, this best response "
                            f"{shape}")
        own = self.prefix(shape)
        k = meta["flops"]
        if own is None or own[0] < k:  # not copied back onto the file it came from
            self.put_prefix(k, meta["of"], total, secs, mirror=False)
            return k
        return own[0]
