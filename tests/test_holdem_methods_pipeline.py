"""``bench/holdem_methods_pipeline.py``'s driver (issue 20's Hold'em comparison): steps start in
dependency order, and a stop request reaches every running step as Ctrl-C and is waited for."""

import importlib
import sys
import types
from pathlib import Path


def load_pipeline():
    return importlib.import_module("bench.holdem_methods_pipeline")


#: a step that waits for Ctrl-C, then records it and exits as a stopped solve does
WAITS = ("import pathlib, sys, time\n"
         "pathlib.Path(sys.argv[1] + '.started').touch()\n"
         "try:\n    time.sleep(60)\n"
         "except KeyboardInterrupt:\n    pathlib.Path(sys.argv[1] + '.stopped').touch()\n"
         "    sys.exit(130)\n")


class StopAfterStart:
    """A stop request that arrives once the steps marking ``marks`` have all started."""

    def __init__(self, marks: list[Path]):
        self.marks = marks

    @property
    def requested(self) -> bool:
        return all(m.with_name(m.name + ".started").exists() for m in self.marks)


def test_driver_runs_in_order_and_passes_a_stop_on(tmp_path, capsys):
    pipe = load_pipeline()
    first, a, b = tmp_path / "first", tmp_path / "a", tmp_path / "b"
    quick = [sys.executable, "-c", "import pathlib, sys; pathlib.Path(sys.argv[1]).touch()"]
    waits = [sys.executable, "-c", WAITS]
    plan = [pipe.Step("first", quick + [str(first)]),
            pipe.Step("a", waits + [str(a)], ["first"]),
            pipe.Step("b", waits + [str(b)], ["first"]),
            pipe.Step("later", quick + [str(tmp_path / "later")], ["a", "b"])]
    args = types.SimpleNamespace(jobs=2, memory_gb=100.0)
    rc = pipe.drive(plan, list(plan), set(), args, tmp_path, tmp_path, tmp_path / "out.json",
                    StopAfterStart([a, b]))
    assert rc == 130
    assert first.exists() and not (tmp_path / "later").exists()
    for m in (a, b):
        assert Path(f"{m}.stopped").exists()  # each got Ctrl-C and finished its own way
    out = capsys.readouterr().out
    assert "done first" in out and "stopped a (exit 130)" in out and "stopped b" in out
