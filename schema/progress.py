"""Progress for long work: a tqdm bar on a terminal, plain timestamped lines otherwise.

Under cron or systemd, or with stderr sent to a file, a progress bar is either silent or a
stream of carriage returns. :func:`progress_bar` takes tqdm's arguments and returns a tqdm bar
when stderr is a terminal, else a :class:`LogProgress` that writes lines like

    2026-11-24T05:40:00Z toy: 5/12 part (41.7%), 2.1 part/s, ETA 3 s

when it starts, at most once every ``interval`` seconds (default 60) while it runs, and when it
ends -- the same information, no control characters. Their rate and ETA are over the last
quarter of an hour or so (``RATE_WINDOW``), as tqdm's bar smooths its own. :func:`force_mode`
forces a mode (``bar``, ``log`` or ``off``: nothing); the command line forces the one its
``POKER_PROGRESS`` environment variable names, and ``off`` with ``--quiet``.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
from collections import deque

from tqdm import tqdm

LOG_INTERVAL = 60.0  # seconds between lines when logging
#: a logged rate (and so the ETA) is the work done over about the last this many seconds, not
#: since the start: a run of hours that was paused, or shared the machine for a while, would
#: otherwise show a stale ETA for hours after
RATE_WINDOW = 900.0


MODES = ("bar", "log", "off")
_forced: str | None = None  # force_mode


def force_mode(mode: str | None) -> None:
    """Every progress bar from now on in this mode (one of :data:`MODES`); None (or any
    other value, e.g. an empty string) lets :func:`mode` choose."""
    global _forced
    mode = (mode or "").strip().lower()
    _forced = mode if mode in MODES else None


def forced_mode() -> str | None:
    """The mode :func:`force_mode` set (what a worker process is given to do the same)."""
    return _forced


def mode(file=None) -> str:
    """"bar", "log" or "off": the one :func:`force_mode` set, else bar on a terminal, log
    otherwise."""
    if _forced is not None:
        return _forced
    f = file or sys.stderr
    try:
        return "bar" if f.isatty() else "log"
    except (AttributeError, ValueError):
        return "log"


def progress_bar(iterable=None, *, total=None, desc: str = "", unit: str = "it", initial=0,
                 disable: bool = False, file=None, interval: float | None = None,
                 log_each: bool = False, postfix: dict | None = None, **kwargs):
    """A tqdm bar or a :class:`LogProgress` (see module docstring), same interface.
    ``log_each``: when logging, a line for every update (e.g. one per ETL partition) rather
    than at most one per ``interval``. ``postfix``: shown from the first line on (then
    ``set_postfix``)."""
    m = mode(file)
    if m == "bar":
        return tqdm(iterable, total=total, desc=desc, unit=unit, initial=initial,
                    disable=disable, file=file, postfix=postfix, **kwargs)
    return LogProgress(iterable, total=total, desc=desc, unit=unit, initial=initial,
                       disable=disable or m == "off", file=file, postfix=postfix,
                       interval=0.0 if log_each else
                       (LOG_INTERVAL if interval is None else interval))


class LogProgress:
    """The subset of tqdm the project uses (``update``, ``set_postfix``, ``close``, ``n``,
    ``total``, iteration, context manager), written as timestamped lines."""

    def __init__(self, iterable=None, *, total=None, desc: str = "", unit: str = "it",
                 initial=0, disable: bool = False, file=None, interval: float = LOG_INTERVAL,
                 postfix: dict | None = None):
        self.iterable = iterable
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.total, self.desc, self.unit = total, desc, unit
        self.n = initial
        self.disable = disable
        self.file = file
        self.interval = interval
        self.postfix = ""
        if postfix:
            self.set_postfix(postfix)
        self._t0 = time.monotonic()
        self._last = self._t0
        # (time, n) marks at least RATE_WINDOW / 30 apart; the first is the newest one at
        # least RATE_WINDOW old (or the start): the base of the rate
        self._marks = deque([(self._t0, self.n)])
        self._closed = False
        self._line("started")

    def __iter__(self):
        for item in self.iterable:
            yield item
            self.update(1)
        self.close()

    def __enter__(self) -> "LogProgress":
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self._finish("stopped" if exc_type is not None else "done")

    def update(self, n=1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self._marks[-1][0] >= RATE_WINDOW / 30:
            self._marks.append((now, self.n))
            while len(self._marks) > 1 and now - self._marks[1][0] >= RATE_WINDOW:
                self._marks.popleft()
        if now - self._last >= self.interval:
            self._last = now
            self._line()

    def set_postfix(self, ordered_dict=None, refresh: bool = True, **kwargs) -> None:
        items = dict(ordered_dict or {}, **kwargs)
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def set_description(self, desc: str, refresh: bool = True) -> None:
        self.desc = desc

    def refresh(self) -> None:
        pass

    def write(self, text: str) -> None:
        """A message of its own (tqdm.write): one line, not a progress line."""
        print(text, file=self.file or sys.stderr, flush=True)

    def close(self) -> None:
        self._finish("done")

    def _finish(self, state: str) -> None:
        if not self._closed:
            self._closed = True
            self._line(state)

    def _line(self, state: str = "") -> None:
        if self.disable:
            return
        now = time.monotonic()
        elapsed = now - self._t0
        t0, n0 = self._marks[0]
        rate = (self.n - n0) / (now - t0) if now > t0 else 0.0
        count = f"{self.n:,}" + (f"/{self.total:,}" if self.total else "") + f" {self.unit}"
        if self.total:
            count += f" ({100.0 * self.n / self.total:.1f}%)"
        parts = [count]
        if state != "started":
            parts.append(f"{rate:.3g} {self.unit}/s, {_duration(elapsed)} elapsed")
            if self.total and rate > 0 and self.n < self.total and state == "":
                parts.append(f"ETA {_duration((self.total - self.n) / rate)}")
        if self.postfix:
            parts.append(self.postfix)
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        label = f"{self.desc}: " if self.desc else ""
        tail = f" [{state}]" if state else ""
        print(f"{stamp} {label}{', '.join(parts)}{tail}", file=self.file or sys.stderr,
              flush=True)


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"
