"""For programs that run as Herald jobs (docs/jobs.md): report progress, results and log lines.

Herald reads a job's stdout line by line. A line that is one JSON object with ``progress``,
``completed``/``total``, ``result`` or ``items`` updates the job; any other line is a log line
(and one that holds a percentage, ``45%``, also moves the bar). These functions write those lines:

    import herald

    for i, name in enumerate(names):
        herald.report(completed=i, total=len(names), message=name)
        herald.log(f"working on {name}")
    herald.result({"files": len(names)})

or, for a loop, the tqdm-like bar, which reports at most ten times a second and always at the end:

    for name in herald.tqdm(names, desc="encoding"):
        ...

For a kind declared with ``"progressFrom": "fd3"`` Herald reads the protocol from file descriptor 3
only; when this module finds itself in such a job (``HERALD_JOB_ID`` set and descriptor 3 open), it
writes the protocol lines there, and log lines to stdout. `set_output` chooses another file (say a
test's buffer). Every line is flushed at once. Nothing here needs a server or a connection, and
nothing here imports tqdm.

Thread: the functions may be called from several threads; each line is written whole under a lock.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any, Generic, Iterable, Iterator, Optional, TextIO, TypeVar

__all__ = ["report", "result", "items", "log", "set_output", "tqdm", "trange"]

_lock = threading.Lock()
# The file protocol lines go to, once chosen; None until the first write (see `_protocol_file`).
# Guarded by `_lock`.
_protocol_output: Optional[TextIO] = None
_log_output: Optional[TextIO] = None


def set_output(protocol: TextIO | None, log: TextIO | None = None) -> None:
    """Writes the protocol lines to `protocol` and the log lines to `log` (default: the same file).
    None goes back to choosing by itself: descriptor 3 in a ``progressFrom: "fd3"`` job, else stdout."""
    global _protocol_output, _log_output
    with _lock:
        _protocol_output = protocol
        _log_output = log if log is not None else protocol


def _protocol_file() -> TextIO:
    """Thread: callers hold `_lock`."""
    global _protocol_output
    if _protocol_output is None:
        if "HERALD_JOB_ID" in os.environ and _descriptor_is_open(3):
            # Herald closes every other descriptor before it runs a job: an open descriptor 3 is the
            # protocol pipe of a `progressFrom: "fd3"` kind.
            _protocol_output = os.fdopen(3, "w", buffering=1, encoding="utf-8", closefd=False)
        else:
            return sys.stdout
    return _protocol_output


def _descriptor_is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _write(line: str, *, protocol: bool) -> None:
    with _lock:
        output = _protocol_file() if protocol else (_log_output or sys.stdout)
        output.write(line + "\n")
        output.flush()


def _emit(message: dict[str, Any]) -> None:
    _write(json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False), protocol=True)


def report(
    progress: float | None = None,
    *,
    completed: int | None = None,
    total: int | None = None,
    message: str | None = None,
) -> None:
    """Moves the job's bar: either `progress`, a fraction from 0 to 1, or `completed` of `total`
    units (the server derives rate and ETA). `message` says what is going on; left out, the last one
    stays. Herald sends at most ``--progress-rate`` updates a second, always the last one."""
    if progress is not None:
        if completed is not None or total is not None:
            raise ValueError("report: give progress, or completed and total, not both")
        line: dict[str, Any] = {"progress": min(1.0, max(0.0, float(progress)))}
    elif completed is not None:
        line = {"completed": max(0, int(completed)), "total": max(0, int(total or 0))}
    else:
        raise ValueError("report: give progress (0…1), or completed and total")
    if message is not None:
        line["message"] = message
    _emit(line)


def result(summary: dict[str, Any] | None = None, **fields: Any) -> None:
    """Sets the job's `summary` (shown once it succeeds): a JSON object of at most 64 KiB, given as a
    dict or as keywords. The last one reported wins."""
    value = {**(summary or {}), **fields}
    _emit({"result": value})


def items(batch: Iterable[Any]) -> None:
    """Publishes a batch of results (a `results` event; kept for paging up to ``--max-results``)."""
    _emit({"items": list(batch)})


def log(*values: object, sep: str = " ", stream: str = "stdout") -> None:
    """Writes a log line (like `print`; `stream` ``"stderr"`` marks it as an error line). Each line of
    a text with several becomes a log line of its own. Herald cannot tell a log line that looks like
    protocol apart: one that is a JSON object with a protocol key updates the job, and one holding a
    percentage (``45%``) moves its bar."""
    text = sep.join(str(value) for value in values)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if stream == "stderr":
        with _lock:
            for line in lines:
                sys.stderr.write(line + "\n")
            sys.stderr.flush()
    elif stream == "stdout":
        for line in lines:
            _write(line, protocol=False)
    else:
        raise ValueError(f"log: stream must be 'stdout' or 'stderr', not {stream!r}")


T = TypeVar("T")


class tqdm(Generic[T]):  # noqa: N801: named as the class it stands in for
    """A stand-in for ``tqdm.tqdm`` that reports to Herald instead of drawing a bar.

    Iterate it (``for x in tqdm(xs)``) or drive it by hand (``update(n)``); `desc` (and
    `set_description`, `set_postfix`) becomes the job's progress message. Reports go out at most
    every `mininterval` seconds, and the last value always does (`close`, the end of the loop, or the
    end of a ``with`` block). Arguments of tqdm's that mean nothing here (`ncols`, `leave`,
    `position`, …) are accepted and ignored, so code written for tqdm runs unchanged.
    """

    def __init__(
        self,
        iterable: Iterable[T] | None = None,
        desc: str | None = None,
        total: float | None = None,
        *,
        initial: float = 0,
        mininterval: float = 0.1,
        disable: bool = False,
        unit: str = "it",
        **ignored: Any,
    ) -> None:
        self.iterable = iterable
        self.desc = desc
        if total is None and iterable is not None:
            try:
                total = len(iterable)  # type: ignore[arg-type]
            except (TypeError, AttributeError):
                total = None
        self.total = total
        self.n = initial
        self.unit = unit
        self.mininterval = mininterval
        self.disable = disable
        self.postfix: str | None = None
        self._last_report = -float("inf")
        self._reported: tuple[float, str | None] | None = None
        self._closed = False

    def __len__(self) -> int:
        return int(self.total or 0)

    def __iter__(self) -> Iterator[T]:
        if self.iterable is None:
            raise TypeError("tqdm: nothing to iterate; give an iterable, or call update()")
        try:
            for value in self.iterable:
                yield value
                self.update(1)
        finally:
            self.close()

    def __enter__(self) -> tqdm[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def update(self, n: float = 1) -> bool | None:
        """Adds `n` units done; reports if `mininterval` passed since the last report."""
        self.n += n
        now = time.monotonic()
        if now - self._last_report >= self.mininterval:
            self.refresh()
            return True
        return None

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc
        if refresh:
            self.refresh()

    def set_description_str(self, desc: str | None = None, refresh: bool = True) -> None:
        self.set_description(desc, refresh)

    def set_postfix(self, ordered_dict: dict[str, Any] | None = None, refresh: bool = True, **kwargs: Any) -> None:
        """Appends ``key=value`` pairs to the message, as tqdm shows them after the bar."""
        pairs = {**(ordered_dict or {}), **kwargs}
        self.postfix = ", ".join(f"{key}={value}" for key, value in pairs.items()) or None
        if refresh:
            self.refresh()

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s or None
        if refresh:
            self.refresh()

    def reset(self, total: float | None = None) -> None:
        self.n = 0
        if total is not None:
            self.total = total
        self.refresh()

    @property
    def message(self) -> str | None:
        """What the job's progress message says: the description, then the postfix."""
        parts = [part for part in (self.desc, self.postfix) if part]
        return ", ".join(parts) or None

    def refresh(self) -> None:
        """Reports the current count now (unless it is what was last reported)."""
        if self.disable:
            return
        self._last_report = time.monotonic()
        state = (self.n, self.message)
        if state == self._reported:
            return
        self._reported = state
        completed = int(self.n)
        if self.total is not None and self.total > 0:
            report(completed=completed, total=int(self.total), message=self.message)
        else:
            report(completed=completed, total=0, message=self.message)

    def close(self) -> None:
        """Reports the final count, once."""
        if self._closed:
            return
        self._closed = True
        self.refresh()

    @staticmethod
    def write(s: str, file: TextIO | None = None, end: str = "\n") -> None:
        """A log line, as ``tqdm.write`` prints a message above the bar."""
        if file is not None:
            file.write(s + end)
            file.flush()
        else:
            log(s)


def trange(*args: int, **kwargs: Any) -> tqdm[int]:
    """``tqdm(range(*args), **kwargs)``."""
    return tqdm(range(*args), **kwargs)
