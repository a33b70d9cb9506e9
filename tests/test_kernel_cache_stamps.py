"""Numba's on-disk cache must not run stale kernels (issue 51).

Numba keys a cached function by the source file it is defined in (its modification time and
size), not by the files of the kernels it calls: after a change to ``solve/holdem/_simd.py``
alone, ``_br_lanes``'s and ``_br_kernels``'s cached machine code still has the old
intrinsics compiled in, and a user who pulls the change runs them (this happened while the
exact best response was developed: an edited ``_br_lanes`` ran the old code through
``_br_kernels.flop_values``' cache until the cache was deleted).

So every module with cached kernels that calls kernels of other modules carries a stamp, a
hash of those modules' sources (all the way down); a change to any of them changes the stamp,
hence the module's own file, hence numba's key. This test fails until the stamps are
updated: ``python -m tests.test_kernel_cache_stamps`` writes them.
"""

from __future__ import annotations

import ast
import hashlib
import re
import sys
from pathlib import Path

from tests.test_layers import imported

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schema", "etl", "abstraction", "solve", "queries")
PREFIX = "# numba cache stamp (python -m tests.test_kernel_cache_stamps):"
STAMP = re.compile(r"^" + re.escape(PREFIX) + r" ([0-9a-f]{16})\n", re.M)


def _module_path(name: str) -> Path | None:
    p = ROOT.joinpath(*name.split("."))
    for c in (p.with_suffix(".py"), p / "__init__.py"):
        if c.is_file():
            return c
    return None


def _source(path: Path) -> str:
    return STAMP.sub("", path.read_text())


def _imports(path: Path) -> set[str]:
    """Project modules ``path`` imports (``tests/test_layers.py``'s reading of its imports, a
    ``from package import module`` included)."""
    return {n for _, n in imported(ast.parse(path.read_text()))
            if n.split(".")[0] in PACKAGES and _module_path(n) is not None}


def _kernel_deps(name: str) -> set[str]:
    """The modules with numba kernels that ``name`` reaches through its imports."""
    seen, todo = set(), [name]
    while todo:
        for d in _imports(_module_path(todo.pop())):
            if d not in seen and "njit" in _source(_module_path(d)):
                seen.add(d)
                todo.append(d)
    seen.discard(name)
    return seen


def cached_modules() -> list[str]:
    out = []
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            if "cache=True" in p.read_text():
                out.append(".".join(p.relative_to(ROOT).with_suffix("").parts))
    return out


def expected_stamp(name: str) -> str | None:
    deps = sorted(_kernel_deps(name))
    if not deps:
        return None
    h = hashlib.sha256()
    for d in deps:
        h.update(d.encode() + b"\0" + _source(_module_path(d)).encode() + b"\0")
    return h.hexdigest()[:16]


def stale() -> dict[str, tuple[str | None, str | None]]:
    """{module: (stamp found, stamp expected)} for every module whose stamp is wrong."""
    bad = {}
    for name in cached_modules():
        found = STAMP.findall(_module_path(name).read_text())
        want = expected_stamp(name)
        if found != ([want] if want else []):
            bad[name] = (found[0] if len(found) == 1 else None, want)
    return bad


def write_stamps() -> list[str]:
    """Put the expected stamp line after each stale module's docstring; returns their names."""
    changed = []
    for name, (_, want) in stale().items():
        path = _module_path(name)
        text = STAMP.sub("", path.read_text())
        if want:
            tree = ast.parse(text)
            doc = tree.body[0] if tree.body and isinstance(tree.body[0], ast.Expr) else None
            lines = text.splitlines(keepends=True)
            at = doc.end_lineno if doc else 0
            lines.insert(at, f"{PREFIX} {want}\n")
            text = "".join(lines)
        path.write_text(text)
        changed.append(name)
    return changed


def test_kernel_modules_that_call_other_kernels_are_stamped():
    assert "solve.holdem._br_lanes" in cached_modules()
    assert {"solve.holdem._simd", "solve.holdem._kernels"} <= _kernel_deps(
        "solve.holdem._br_lanes")
    bad = stale()
    assert not bad, ("numba would run stale cached kernels: these modules' cache stamps do not "
                     "match the kernels they call (run `python -m tests.test_kernel_cache_stamps`)"
                     f": {bad}")


def test_a_change_below_changes_the_stamps_above(monkeypatch):
    a = expected_stamp("solve.holdem._br_kernels")
    real = _source

    def edited(path):
        text = real(path)
        return text + "\n# edited\n" if path.name == "_simd.py" else text

    monkeypatch.setattr(sys.modules[__name__], "_source", edited)
    assert expected_stamp("solve.holdem._br_kernels") != a
    assert expected_stamp("solve.holdem._br_lanes") is not None
    assert expected_stamp("solve.holdem._simd") is None  # calls no other kernels


if __name__ == "__main__":
    for n in write_stamps():
        print("stamped", n)
