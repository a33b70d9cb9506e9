"""``cli.py experiment holdem-methods`` (``queries.holdem_methods``, issue 20's Hold'em
comparison): steps start in dependency order, a stop request reaches every running step as
Ctrl-C and is waited for, a stored step is skipped and a solve with a checkpoint resumes, one
driver per data directory; a step's process reports a bad step in one line."""

import json
import sys
from contextlib import contextmanager
from pathlib import Path

import cli
from queries import holdem_methods
from queries.holdem_methods import PRIORITY, Step

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


def test_driver_runs_in_order_and_passes_a_stop_on(tmp_path, capsys, monkeypatch):
    first, a, b = tmp_path / "first", tmp_path / "a", tmp_path / "b"
    quick = [sys.executable, "-c", "import pathlib, sys; pathlib.Path(sys.argv[1]).touch()"]
    waits = [sys.executable, "-c", WAITS]
    plan = [Step("first", quick + [str(first)]),
            Step("a", waits + [str(a)], ["first"]),
            Step("b", waits + [str(b)], ["first"]),
            Step("later", quick + [str(tmp_path / "later")], ["a", "b"])]
    data = tmp_path / "data"
    monkeypatch.setattr(holdem_methods, "steps", lambda ddir, out_json: plan)

    @contextmanager
    def stop_after_start():  # the driver's Ctrl-C, once a and b run
        yield StopAfterStart([a, b])

    monkeypatch.setattr(holdem_methods, "deferred_stop", stop_after_start)
    rc = cli.main(["--data-dir", str(data), "experiment", "holdem-methods", "--jobs", "2",
                   "--memory-gb", "100"])
    assert rc == 130
    assert first.exists() and not (tmp_path / "later").exists()
    for m in (a, b):
        assert Path(f"{m}.stopped").exists()  # each got Ctrl-C and finished its own way
    out = capsys.readouterr().out
    assert "done first" in out and "stopped a (exit 130)" in out and "stopped b" in out
    # each step's output in its own log
    assert sorted(p.name for p in (data / "pipeline-logs").iterdir()) == \
        ["a.log", "b.log", "first.log"]


def test_dry_run_lists_what_is_left_and_resumes(tmp_path, capsys):
    data = tmp_path / "data"
    argv = ["--data-dir", str(data), "experiment", "holdem-methods", "--dry-run"]
    assert cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == PRIORITY  # 28 steps, every one left
    by_step = dict(line.split(": ", 1) for line in lines)
    assert by_step["pa-pcs-1t"].startswith("solve(abstraction='holdem-pa-20-800-4800-28800'")
    assert "resume" not in by_step["pa-pcs-1t"]
    assert "from_strategy='pa169-pcs-1t'" in by_step["holdem-strategy-20-800-4800-28800"]
    assert "round_robin=True" in by_step["compare"]
    # a solve with a checkpoint resumes it; a finished solve and a stored row are skipped
    ckpt = data / "strategies" / "pa-pcs-1t" / "checkpoint"
    ckpt.mkdir(parents=True)
    (ckpt / "state.json").write_text(json.dumps({"iterations": 1}))
    (data / "strategies" / "eb-pcs-1t").mkdir()
    (data / "strategies" / "eb-pcs-1t" / "run.json").write_text("{}")
    rows = data / "holdem-methods-figures" / "rows"
    rows.mkdir(parents=True)
    (rows / "ochs-pcs-1t.json").write_text("{}")
    assert cli.main(argv) == 0
    by_step = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert by_step["pa-pcs-1t"].endswith("resume=True)")
    assert "eb-pcs-1t" not in by_step and "eval-ochs-pcs-1t" not in by_step
    assert "eval-eb-pcs-1t" in by_step and "compare" in by_step


def test_one_driver_per_data_directory_and_bad_steps(tmp_path, capsys):
    data = tmp_path / "data"
    lock = data / ".locks" / "holdem-methods-pipeline.lock"
    with holdem_methods.try_file_lock(lock) as mine:
        assert mine
        assert cli.main(["--data-dir", str(data), "experiment", "holdem-methods"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: another holdem-methods pipeline") and err.count("\n") == 1
    assert cli.main(["--data-dir", str(data), "experiment", "holdem-methods",
                     "--jobs", "0"]) == 2
    assert capsys.readouterr().err.startswith("error: --jobs must be at least 1")
    # a step's process (`python -m queries.holdem_methods DATA_DIR STEP OUT_JSON`)
    out = str(data / "out.json")
    for argv in ([str(data), "no-such-step", out], [str(data), "compare", out], [str(data)]):
        assert holdem_methods.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
