"""Records numba's compile events of this Python process (``bench/compile_events.py``).

On ``PYTHONPATH`` with ``COMPILE_EVENTS_DIR`` set, every Python process started below it
(pytest's workers, ``cli.py`` subprocesses) appends one line per compiled signature to a file
of its own in that directory at exit: CPU seconds with and without the compiles nested in it,
the function and its argument types. Without the variable it does nothing.
"""

import atexit
import json
import os
import time


def _install(out_dir: str) -> None:
    try:
        from numba.core import event
    except ImportError:  # numba not installed: nothing to record
        return
    stack: list[list[float]] = []  # per compile under way: [start CPU s, nested CPU s]
    rows: list[dict] = []

    class _Listener(event.Listener):
        def on_start(self, ev):
            stack.append([time.process_time(), 0.0])

        def on_end(self, ev):
            if not stack:
                return
            t0, nested = stack.pop()
            total = time.process_time() - t0
            if stack:
                stack[-1][1] += total
            d = ev.data["dispatcher"]
            rows.append({"function": f"{d.py_func.__module__}.{d.py_func.__qualname__}",
                         "args": str(ev.data["args"]), "total": total,
                         "own": total - nested})

    event.register("numba:compile", _Listener())

    def _dump() -> None:
        if rows:
            with open(os.path.join(out_dir, f"events-{os.getpid()}.jsonl"), "w") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")

    atexit.register(_dump)


if os.environ.get("COMPILE_EVENTS_DIR"):
    _install(os.environ["COMPILE_EVENTS_DIR"])
