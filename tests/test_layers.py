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
    parts = module.split(".")
    return module == "cli" or "cli" in parts or parts[-1] == "commands" or parts[-1].endswith("_cli")


def upward(sources) -> list[str]:
    """``file:line imports module`` for every import of a higher layer in ``sources``
    ((layer, path, tree) triples)."""
    return [f"{f.relative_to(ROOT)}:{line} imports {m}" for layer, f, tree in sources
            for line, m in imported(tree)
            if m.split(".")[0] in RANK and RANK[m.split(".")[0]] > RANK[layer]]


def test_nothing_imports_upward():
    bad = upward(modules())
    assert not bad, "\n".join(bad)


def test_a_planted_upward_import_is_caught():
    """The check is not vacuous: an upward import, even inside a function, is reported."""
    planted = ast.parse("import numpy\n\ndef f():\n    from queries.views import connect\n")
    legal = ast.parse("from schema.errors import UserError\nfrom etl import storage\n")
    assert upward([("etl", ROOT / "etl" / "planted.py", planted)]) == \
        ["etl/planted.py:4 imports queries.views", "etl/planted.py:4 imports queries.views.connect"]
    assert upward([("abstraction", ROOT / "abstraction" / "legal.py", legal)]) == []


def test_library_code_never_imports_cli_code():
    bad = []
    for layer, f, tree in modules():
        me = ".".join(f.relative_to(ROOT).with_suffix("").parts)
        if is_cli(me):
            continue
        bad += [f"{f.relative_to(ROOT)}:{line} imports {m}" for line, m in imported(tree)
                if m.split(".")[0] in RANK and is_cli(m)]
    assert not bad, "\n".join(bad)


#: Third-party packages a function may import when it needs them: heavy or optional, and
#: needed by one command only (plots, the Dask cluster, exact rational LP, the HTTP server).
LAZY = {"matplotlib", "distributed", "sympy", "scipy", "threadpoolctl", "fastapi", "uvicorn",
        "sklearn", "ot"}  # sklearn (and POT, which loads it): ~3 s at every CLI start-up, for
#                           the builds only


def hidden_imports(sources) -> list[str]:
    """``file:line imports module`` for every import inside a function that is not of a
    :data:`LAZY` package (project modules, the standard library, the core dependencies)."""
    bad = []
    for _, f, tree in sources:
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for line, m in imported(fn):
                    if m.split(".")[0] not in LAZY:
                        bad.append(f"{f.relative_to(ROOT)}:{line} imports {m}")
    return sorted(set(bad))


def test_imports_are_at_module_level():
    """No import hides inside a function (issue 16): a cycle cannot be dodged that way, and
    what a module needs is read at its top."""
    bad = hidden_imports(modules())
    assert not bad, "\n".join(bad)


def test_a_planted_hidden_import_is_caught():
    planted = ast.parse("def f():\n    import matplotlib\n    from solve.loop import measure\n")
    assert hidden_imports([("solve", ROOT / "solve" / "planted.py", planted)]) == \
        ["solve/planted.py:3 imports solve.loop", "solve/planted.py:3 imports solve.loop.measure"]


#: What builds a command line: argparse and its parser methods.
PARSER_CALLS = {"add_argument", "add_argument_group", "add_parser", "add_subparsers",
                "add_mutually_exclusive_group"}
#: The environment variable naming the data directory, which only the CLI reads (issue 48).
DATA_DIR_ENV = "POKER_DATA_DIR"


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of ``tree``'s module, classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def cli_code_in_library(sources) -> list[str]:
    """``file:line what`` for every import of argparse, parser-building call or mention of
    ``POKER_DATA_DIR`` (outside docstrings) in a module that is not CLI code (:func:`is_cli`):
    library functions take typed parameters and an explicit ``data_dir``; the CLI builds the
    parser, reads the environment and passes them on."""
    bad = []
    for _, f, tree in sources:
        me = ".".join(f.relative_to(ROOT).with_suffix("").parts)
        if is_cli(me):
            continue
        docs = _docstrings(tree)
        where = f.relative_to(ROOT)
        for line, m in imported(tree):
            if m.split(".")[0] == "argparse":
                bad.append(f"{where}:{line} imports {m}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in PARSER_CALLS):
                bad.append(f"{where}:{node.lineno} calls {node.func.attr}")
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and DATA_DIR_ENV in node.value and id(node) not in docs):
                bad.append(f"{where}:{node.lineno} reads {DATA_DIR_ENV}")
    return sorted(set(bad))


def test_library_code_builds_no_parser_and_reads_no_data_dir_variable():
    bad = cli_code_in_library(modules())
    assert not bad, "\n".join(bad)


def test_planted_cli_code_in_a_library_module_is_caught():
    planted = ast.parse('"""Reads POKER_DATA_DIR? No: a docstring may say so."""\n'
                        "import os\nfrom argparse import Namespace\n\n"
                        "def f(p):\n    p.add_argument('--x')\n"
                        "    return os.environ.get('POKER_DATA_DIR')\n")
    assert cli_code_in_library([("solve", ROOT / "solve" / "planted.py", planted)]) == [
        "solve/planted.py:3 imports argparse", "solve/planted.py:3 imports argparse.Namespace",
        "solve/planted.py:6 calls add_argument", "solve/planted.py:7 reads POKER_DATA_DIR"]
    as_cli = [("solve", ROOT / "solve" / "cli" / "planted.py", planted)]
    assert cli_code_in_library(as_cli) == []
