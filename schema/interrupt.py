"""Stop a long loop at a safe point: Ctrl-C (SIGINT) and SIGTERM set a flag instead of raising
wherever the interpreter happens to be, so the loop can finish its step, save and then stop.

    with deferred_stop() as stop:
        while work_left():
            step()                      # never cut in the middle
            if stop.requested:
                save_checkpoint()
                raise KeyboardInterrupt  # the CLI: "interrupted: completed work is kept"

Outside the main thread signal handlers cannot be installed: there the block runs with the
process's own handling and ``requested`` stays False.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """Whether a stop was asked for inside a :func:`deferred_stop` block, and by which signal."""

    def __init__(self) -> None:
        self.signal: int | None = None

    @property
    def requested(self) -> bool:
        return self.signal is not None

    def _set(self, signum, _frame) -> None:
        self.signal = signum


@contextmanager
def deferred_stop() -> Iterator[StopRequest]:
    """SIGINT and SIGTERM only record a stop request for the block; the previous handlers come
    back when it ends (a second Ctrl-C after the block raises as usual)."""
    stop = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {s: signal.signal(s, stop._set) for s in SIGNALS}
    try:
        yield stop
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
