"""The floor plan (issue 16): one import direction, schema -> etl -> abstraction -> solve ->
queries -> cli, and library code never imports CLI code. Checked on the source (AST), at any
nesting level, so an import hidden inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("schema", "etl", "abstraction", "solve", "queries", "cli")
RANK = {name: i for i, name in enumerate(LAYERS)}


def modules():
    for layer in LAYERS:
        files = [ROOT / "cli.py"] if layer == "cli" else sorted((ROOT / layer).rglob("*.py"))
        for f in files:
            yield layer, f, ast.parse(f.read_text(), filename=str(f))


def imported(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
            for a in node.names:  # "from solve import holdem_cli"
                yield node.lineno, f"{node.module}.{a.name}"


def is_cli(module: str) -> bool:
    last = module.split(".")[-1]
    return module == "cli" or last == "commands" or last.endswith("_cli")


def test_nothing_imports_upward():
    bad = [f"{f.relative_to(ROOT)}:{line} imports {m}" for layer, f, tree in modules()
           for line, m in imported(tree)
           if m.split(".")[0] in RANK and RANK[m.split(".")[0]] > RANK[layer]]
    assert not bad, "\n".join(bad)


def test_library_code_never_imports_cli_code():
    bad = []
    for layer, f, tree in modules():
        me = ".".join(f.relative_to(ROOT).with_suffix("").parts)
        if is_cli(me):
            continue
        bad += [f"{f.relative_to(ROOT)}:{line} imports {m}" for line, m in imported(tree)
                if m.split(".")[0] in RANK and is_cli(m)]
    assert not bad, "\n".join(bad)
