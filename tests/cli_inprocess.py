"""Run ``cli.py`` in the test's own process, with what a subprocess would see.

``run(argv, cwd=..., env=...)`` calls ``cli.main`` with ``os.environ`` replaced by ``env``, the
working directory set to ``cwd`` and ``sys.stdout`` / ``sys.stderr`` captured, and returns a
``subprocess.CompletedProcess`` with the exit status and both streams, like ``subprocess.run``
with ``capture_output=True, text=True``. An exception that escapes ``main`` is printed as the
interpreter prints it (``Traceback (most recent call last):`` ...) and exits 1, so the tests'
"no traceback" checks see what a user would. Everything is put back afterwards: the
environment, the working directory, the process-wide settings ``main`` reads from the
environment (``queries.environment_cli.configure``) and the SIGINT handler.

A fresh ``python cli.py`` costs about 1.2-1.6 CPU s of imports and cached-kernel loads before it
does anything; the tests whose subject is the command's behaviour (its output, exit status,
what it writes) run here, and the tests whose subject is the process (Ctrl-C, concurrent
processes, a server, the README as a shell runs it) keep a real one.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Mapping, Sequence

import cli
from queries import environment_cli


def run(argv: Sequence[str], cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """``cli.main(argv)`` as ``subprocess.run([python, "cli.py", *argv], cwd=cwd, env=env,
    capture_output=True, text=True)`` would see it."""
    argv = [str(a) for a in argv]
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_sigint = signal.getsignal(signal.SIGINT)
    out, err = io.StringIO(), io.StringIO()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:  # argparse's usage errors, --help
                code = 0 if exc.code is None else exc.code
                if not isinstance(code, int):  # sys.exit("message"): printed, exit 1
                    print(code, file=sys.stderr)
                    code = 1
            except Exception:  # noqa: BLE001 (what the interpreter would print, then exit 1)
                traceback.print_exc()
                code = 1
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        environment_cli.configure()
        signal.signal(signal.SIGINT, saved_sigint)
    return subprocess.CompletedProcess(["cli.py", *argv], code, out.getvalue(), err.getvalue())
