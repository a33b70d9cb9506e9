"""The floor plan (issue 16): one import direction, schema -> etl -> abstraction -> solve ->
queries -> cli, and library code never imports CLI code. Checked on the source (AST), at any
nesting level, so an import hidden inside a function counts too."""

from __future__ import annotations

import ast
import re
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
#: What stands for parsed command-line arguments: a library function takes typed options.
NAMESPACES = {"Namespace", "SimpleNamespace"}
#: The project's environment variables, which only CLI code reads (issue 48:
#: queries/environment_cli.py, cli.py).
ENV_VARIABLE = re.compile(r"POKER_[A-Z_]+")
#: A command-line flag (``--jobs``), or the start of one built from a name (``f"--{name}"``).
FLAG = re.compile(r"(?<![\w-])--(?:[a-z][a-z0-9-]*|$)")

#: Library modules allowed to fail the checks below while being fixed (listed by name so that
#: nothing else can join them); empty since the typed abstraction options (issue 48).
PENDING: set[str] = set()


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of ``tree``'s module, classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _library(sources):
    """``(path relative to the root, tree)`` of the modules of ``sources`` that are not CLI
    code (:func:`is_cli`)."""
    for _, f, tree in sources:
        if not is_cli(".".join(f.relative_to(ROOT).with_suffix("").parts)):
            yield f.relative_to(ROOT), tree


def cli_code_in_library(sources) -> list[str]:
    """``file:line what`` for every import or use of argparse, parser-building call, use of a
    namespace (:data:`NAMESPACES`) or mention of a ``POKER_*`` environment variable (outside
    docstrings) in a module that is not CLI code (:func:`is_cli`): library functions take
    typed parameters and an explicit ``data_dir``; the CLI builds the parser, reads the
    environment and passes them on."""
    bad = []
    for where, tree in _library(sources):
        docs = _docstrings(tree)
        for line, m in imported(tree):
            if m.split(".")[0] == "argparse":
                bad.append(f"{where}:{line} imports {m}")
            elif m.split(".")[-1] in NAMESPACES:
                bad.append(f"{where}:{line} imports {m}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in PARSER_CALLS):
                bad.append(f"{where}:{node.lineno} calls {node.func.attr}")
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id == "argparse"):
                bad.append(f"{where}:{node.lineno} uses argparse.{node.attr}")
            elif ((isinstance(node, ast.Name) and node.id in NAMESPACES)
                  or (isinstance(node, ast.Attribute) and node.attr in NAMESPACES)):
                bad.append(f"{where}:{node.lineno} uses "
                           f"{node.id if isinstance(node, ast.Name) else node.attr}")
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docs):
                bad += [f"{where}:{node.lineno} reads {v}"
                        for v in sorted(set(ENV_VARIABLE.findall(node.value)))]
    return sorted(set(bad))


def test_library_code_builds_no_parser_and_reads_no_environment_variable():
    bad = [b for b in cli_code_in_library(modules()) if b.split(":")[0] not in PENDING]
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


def test_planted_namespaces_and_environment_reads_are_caught():
    """An argparse use without an import of it (a parameter's annotation), a SimpleNamespace
    standing for parsed arguments, and any POKER_* variable, not only the data directory."""
    planted = ast.parse("from types import SimpleNamespace\nimport os\n\n"
                        "def f(args: 'x', p=None):\n"
                        "    ns = SimpleNamespace(jobs=args.jobs)\n"
                        "    return argparse.Namespace(**vars(ns)), "
                        "os.getenv('POKER_GAME_PLUGINS')\n")
    assert cli_code_in_library([("queries", ROOT / "queries" / "planted.py", planted)]) == [
        "queries/planted.py:1 imports types.SimpleNamespace",
        "queries/planted.py:5 uses SimpleNamespace",
        "queries/planted.py:6 reads POKER_GAME_PLUGINS",
        "queries/planted.py:6 uses argparse.Namespace"]
    legal = ast.parse("from dataclasses import dataclass\n\n@dataclass\nclass Options:\n"
                      "    jobs: int = 1\n")
    assert cli_code_in_library([("queries", ROOT / "queries" / "legal.py", legal)]) == []


def _message_nodes(tree: ast.AST):
    """The expressions that make error messages: what a ``raise`` raises, and the arguments
    of a call to an ``...Error`` (an exception built to be raised or returned)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            yield node.exc
        elif isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if name.endswith("Error"):
                yield node


def flags_in_library_errors(sources) -> list[str]:
    """``file:line --flag`` for every command-line flag in an error message of a module that
    is not CLI code: the library names parameters (``ParameterError``: "`jobs` must be at
    least 1"), which the CLI prints as its flags. A flag in a command the message tells the
    user to run (after ``cli.py`` in the same string: "rebuild: `cli.py etl --refresh`") is a
    command, not a parameter, and stands. Also caught anywhere outside docstrings: a string
    that is only a flag, or ends starting one (``"--hole"`` handed to a helper that puts it in
    a message, ``f"--{name}"``)."""
    bad = set()
    for where, tree in _library(sources):
        docs = _docstrings(tree)
        in_messages = {id(c) for m in _message_nodes(tree) for c in ast.walk(m)}
        in_f_strings = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)
                        for v in n.values}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value
            if id(node) in in_messages:
                bad |= {f"{where}:{node.lineno} {m.group(0)}" for m in FLAG.finditer(text)
                        if "cli.py " not in text[:m.start()]}
            elif id(node) in docs:
                continue
            elif re.fullmatch(r"\s*--[a-z][a-z0-9-]*\s*", text):
                bad.add(f"{where}:{node.lineno} {text.strip()}")
            elif id(node) in in_f_strings and re.search(r"(?<![\w-])--$", text):
                bad.add(f"{where}:{node.lineno} --")
    return sorted(bad)


def test_library_errors_name_parameters_not_flags():
    bad = [b for b in flags_in_library_errors(modules()) if b.split(":")[0] not in PENDING]
    assert not bad, "\n".join(bad)


def test_planted_flags_in_library_errors_are_caught():
    planted = ast.parse(
        'def f(jobs, name):\n'
        '    if jobs < 1:\n'
        '        raise UserError(f"--jobs must be at least 1, got {jobs}")\n'
        '    if not name:\n'
        '        raise ParameterError(f"--{name} is empty; rebuild: `cli.py etl --refresh`")\n'
        '    check(name, "--hole", f"--{name}")\n'
        '    return ValueError("use --replace")\n')
    assert flags_in_library_errors([("solve", ROOT / "solve" / "planted.py", planted)]) == [
        "solve/planted.py:3 --jobs", "solve/planted.py:5 --", "solve/planted.py:6 --",
        "solve/planted.py:6 --hole", "solve/planted.py:7 --replace"]
    legal = ast.parse(
        'def f(jobs):\n'
        '    """Takes ``--jobs`` on the command line."""\n'
        '    if jobs < 1:\n'
        '        raise ParameterError(f"`jobs` must be at least 1, got {jobs}")\n'
        '    print("checkpoint kept for --resume")\n'
        '    plt.plot(x, y, ls="--")\n'
        '    raise UserError("table missing: run `python cli.py etl --tables x`")\n')
    assert flags_in_library_errors([("solve", ROOT / "solve" / "legal.py", legal)]) == []
    as_cli = [("solve", ROOT / "solve" / "cli" / "planted.py", planted)]
    assert flags_in_library_errors(as_cli) == []


def test_pending_lists_only_modules_that_still_fail():
    """A module fixed (or gone) leaves PENDING: the set only ever shrinks."""
    failing = {b.split(":")[0] for b in cli_code_in_library(modules())
               + flags_in_library_errors(modules())}
    assert PENDING <= failing, sorted(PENDING - failing)
