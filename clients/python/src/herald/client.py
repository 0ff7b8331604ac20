"""`Herald`, a connection to one server, and `Job`, a handle on one of its jobs.

Starting, cancelling and paging go over the REST API (docs/rest.md), each call on its own; following
goes over the WebSocket stream (`EventStream`), which resumes by epoch and seq after a drop.

    with Herald("http://127.0.0.1:8080") as server:
        job = server.start("sort", {"count": 100_000})
        record = job.wait(timeout=60, raise_on_failure=True)
        first = next(iter(job.results()))

Thread: a `Herald` may be shared between threads (each REST call stands alone); each `EventStream`,
and each iterator a `Job` hands out, belongs to the one thread that reads it.
"""

from __future__ import annotations

import ssl
import threading
import time
import urllib.parse
import weakref
from typing import Any, Iterable, Iterator, NamedTuple

from ._http import HTTPTransport, split_url
from .errors import HeraldError, JobFailed
from .stream import Event, EventStream, Position

#: The states a job never leaves (docs/protocol.md, "JOB").
FINAL_STATES = frozenset({"succeeded", "failed", "cancelled", "interrupted"})


class LogLine(NamedTuple):
    """One line of a job's output: `number` counts from 0 over its whole output (all attempts),
    `stream` is ``"stdout"`` or ``"stderr"``."""

    number: int
    stream: str
    text: str


class Herald:
    """A Herald server at `url`: ``http://HOST:PORT`` (or ``https://``), or its stream's
    ``ws://HOST:PORT/ws`` (or ``wss://``).

    `token` is sent as ``Authorization: Bearer`` (a server run with ``--token`` wants it to start and
    cancel); `timeout` bounds each HTTP call and each connection attempt, in seconds; `ssl_context`
    decides which certificates an https/wss server may present (default: the system's CAs). A
    dropped stream is resumed after `reconnect_delay` seconds, doubling to `max_reconnect_delay`,
    each delay ±20 %.
    """

    def __init__(
        self,
        url: str = "http://127.0.0.1:8080",
        token: str | None = None,
        timeout: float = 10.0,
        *,
        ssl_context: ssl.SSLContext | None = None,
        reconnect_delay: float = 0.5,
        max_reconnect_delay: float = 8.0,
    ) -> None:
        self.url, self.ws_url = split_url(url)
        self.token = token
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.reconnect_delay = reconnect_delay
        self.max_reconnect_delay = max_reconnect_delay
        self._http = HTTPTransport(self.url, token, timeout, ssl_context)
        # The streams this object opened, to close them with it. Guarded by `_lock` (any thread).
        self._streams: weakref.WeakSet[EventStream] = weakref.WeakSet()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Herald({self.url!r})"

    def __enter__(self) -> Herald:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes every event stream this object opened that is still open."""
        with self._lock:
            streams = list(self._streams)
            self._streams.clear()
        for stream in streams:
            stream.close()

    # Jobs

    def start(
        self,
        kind: str,
        params: dict[str, Any] | None = None,
        *,
        after: Iterable[str | Job] = (),
        request_id: str | None = None,
    ) -> Job:
        """Starts a job of `kind` with `params`, after the jobs in `after` (ids or `Job`s) have
        succeeded. A `request_id` makes the start idempotent: the same id again answers with the job it
        started the first time. Refusals raise (`Busy`, `BadRequest`, `Unauthorized`…)."""
        command: dict[str, Any] = {"kind": kind, "params": params or {}}
        dependencies = [item.id if isinstance(item, Job) else item for item in after]
        if dependencies:
            command["after"] = dependencies
        if request_id is not None:
            command["requestId"] = request_id
        since = self._position_or_none()
        return Job(self, self._http.call("POST", "/api/jobs", command), since=since)

    def job(self, job_id: str) -> Job:
        """The job with this id (in memory or archived); `NotFound` if there is none."""
        return Job(self, self._get_job(job_id))

    def jobs(self) -> list[Job]:
        """Every job the server holds in memory, oldest first (older ones: `history`)."""
        answer = self._http.call("GET", "/api/jobs")
        return [Job(self, record) for record in answer["jobs"]]

    def history(
        self,
        state: str | Iterable[str] | None = None,
        kind: str | Iterable[str] | None = None,
        page_size: int = 100,
    ) -> Iterator[Job]:
        """Past and current jobs, newest first, in memory and archived, filtered by state(s) and
        kind(s), fetched `page_size` (1–500) at a time as the iterator is read."""
        before: str | None = None
        while True:
            answer = self._http.call(
                "GET",
                "/api/jobs",
                query={"state": _joined(state), "kind": _joined(kind), "limit": page_size, "before": before},
            )
            for record in answer["jobs"]:
                yield Job(self, record)
            before = answer.get("next")
            if not before:
                return

    # The stream

    def events(self, since: Position | tuple[str, int] | None = None) -> EventStream:
        """The server's event stream: a snapshot, then every event, resumed by itself after a drop.

        With `since` (an `epoch`, `seq` pair, e.g. a previous stream's `position`) it starts right
        after that event instead of with a snapshot, when the server still keeps the events after it.
        """
        stream = EventStream(
            self.ws_url,
            since=Position(*since) if since is not None else None,
            token=self.token,
            ssl_context=self.ssl_context,
            open_timeout=self.timeout,
            reconnect_delay=self.reconnect_delay,
            max_reconnect_delay=self.max_reconnect_delay,
        )
        with self._lock:
            self._streams.add(stream)
        return stream

    def position(self) -> Position:
        """The stream's current epoch and seq (from ``/healthz``)."""
        _, health = self._http.call_any_status("GET", "/healthz")
        return Position(str(health["epoch"]), int(health["seq"]))

    def health(self) -> dict[str, Any]:
        """``/healthz``: status, version, uptime, connections, jobsRunning, epoch, seq."""
        _, health = self._http.call_any_status("GET", "/healthz")
        return dict(health)

    def _position_or_none(self) -> Position | None:
        try:
            return self.position()
        except (HeraldError, KeyError, TypeError, ValueError):
            return None

    def _get_job(self, job_id: str) -> dict[str, Any]:
        return dict(self._http.call("GET", f"/api/jobs/{urllib.parse.quote(job_id, safe='')}"))

    def _job_path(self, job_id: str, tail: str = "") -> str:
        return f"/api/jobs/{urllib.parse.quote(job_id, safe='')}{tail}"


class Job:
    """A handle on one job. `record` is the job object as last seen (docs/protocol.md, "JOB");
    `refresh`, `wait` and `events` bring it up to date."""

    def __init__(self, server: Herald, record: dict[str, Any], since: Position | None = None) -> None:
        self.server = server
        self.record = record
        self.id: str = record["id"]
        # Where the stream stood just before this job was started, so `events` can replay it whole.
        self._since = since

    def __repr__(self) -> str:
        return f"<Job {self.id} {self.kind} {self.state}>"

    @property
    def kind(self) -> str:
        return str(self.record.get("kind"))

    @property
    def state(self) -> str:
        return str(self.record.get("state"))

    @property
    def done(self) -> bool:
        """Whether the job had ended (succeeded, failed, cancelled, interrupted) when last seen."""
        return self.state in FINAL_STATES

    def refresh(self) -> dict[str, Any]:
        """Reads the job object again and returns it."""
        self.record = self.server._get_job(self.id)
        return self.record

    def cancel(self) -> dict[str, Any]:
        """Asks the server to cancel the job; returns the job object (it turns `cancelled` once the
        work notices). `NotCancellable` if it already ended."""
        self.record = dict(self.server._http.call("POST", self.server._job_path(self.id, "/cancel")))
        return self.record

    def wait(self, timeout: float | None = None, raise_on_failure: bool = False) -> dict[str, Any]:
        """Blocks until the job ends and returns its final object. `TimeoutError` after `timeout`
        seconds; with `raise_on_failure`, `JobFailed` when it ended other than `succeeded`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self.done:
            self.refresh()
        if not self.done:
            for _ in self._follow(since=None, deadline=deadline):
                pass
        if raise_on_failure and self.state != "succeeded":
            raise JobFailed(self.record)
        return self.record

    def events(self, timeout: float | None = None) -> Iterator[Event]:
        """This job's events (``job``, ``progress``, ``results``, ``log``) in order, ending after the
        one that ends the job. For a job this object started, from its first event, when the server
        still keeps it; else from now. Should the server answer a resume with a snapshot (it no
        longer keeps the missed events), that snapshot is yielded too, and `record` holds the job's
        state from it. `TimeoutError` once `timeout` seconds have passed in all."""
        deadline = None if timeout is None else time.monotonic() + timeout
        return self._follow(since=self._since, deadline=deadline)

    def _follow(self, since: Position | None, deadline: float | None) -> Iterator[Event]:
        with self.server.events(since=since) as stream:
            while True:
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                event = stream.recv(timeout=remaining)
                if event.type == "snapshot":
                    self._adopt_snapshot(event)
                    if event.get("reason") != "connect":
                        yield event
                    if self.done:
                        return
                    continue
                if event.job_id != self.id:
                    continue
                if event.type == "job" and event.job is not None:
                    self.record = event.job
                elif event.type == "progress":
                    keys = ("completed", "total", "fraction", "message", "rate", "eta")
                    self.record = {**self.record, "progress": {key: event.get(key) for key in keys}}
                yield event
                if event.type == "job" and self.done:
                    return

    def _adopt_snapshot(self, snapshot: Event) -> None:
        for record in snapshot.get("jobs") or []:
            if isinstance(record, dict) and record.get("id") == self.id:
                self.record = record
                return
        # Not in memory any more: archived, so ended; its object is still served.
        self.refresh()

    def log(self, follow: bool = False, page_size: int = 1000) -> Iterator[LogLine]:
        """The job's kept output (its last 10,000 lines, for jobs of kinds from a jobs file), oldest
        first, paged `page_size` (1–10,000) lines at a time. With `follow`, then the lines it writes
        until it ends, joined to the paged ones exactly (none twice, none missing while kept).
        `NotFound` for a job that keeps no log."""
        if not follow:
            yield from self._log_pages(0, page_size)
            return
        with self.server.events() as stream:
            snapshot = stream.recv(timeout=self.server.timeout)
            self._adopt_snapshot(snapshot)
            next_number = 0
            for line in self._log_pages(0, page_size):
                next_number = line.number + 1
                yield line
            while not self.done:
                event = stream.recv()
                if event.type == "snapshot":
                    self._adopt_snapshot(event)
                elif event.job_id != self.id:
                    continue
                elif event.type == "job" and event.job is not None:
                    self.record = event.job
                elif event.type == "log":
                    first = int(event["first"])
                    if first > next_number:  # lines that were not streamed (`skipped`): the kept log has them
                        for line in self._log_pages(next_number, page_size, stop=first):
                            next_number = line.number + 1
                            yield line
                    for index, item in enumerate(event["lines"]):
                        number = first + index
                        if number >= next_number:
                            next_number = number + 1
                            yield LogLine(number, item["stream"], item["text"])
            for line in self._log_pages(next_number, page_size):  # lines written after the last event
                yield line

    def _log_pages(self, start: int, page_size: int, stop: int | None = None) -> Iterator[LogLine]:
        """Kept lines numbered `start` up to `stop` (exclusive; None: the end), skipping none that are
        still kept even when older lines fall off the kept log between pages."""
        wanted = start
        offset = 0
        while stop is None or wanted < stop:
            limit = page_size if stop is None else min(page_size, stop - wanted)
            page = self.server._http.call(
                "GET", self.server._job_path(self.id, "/log"), query={"offset": offset, "limit": limit}
            )
            first = int(page.get("first", 0))
            if first + offset != wanted:
                # The kept log moved (lines fell off the front) or this is the first page: ask for the
                # line wanted where it is now.
                corrected = max(0, wanted - first)
                if corrected != offset:
                    offset = corrected
                    continue
                wanted = first + offset  # lines before `first` are no longer kept
            lines = page["lines"]
            for index, item in enumerate(lines):
                yield LogLine(wanted + index, item["stream"], item["text"])
            wanted += len(lines)
            offset += len(lines)
            if not lines or offset >= int(page["total"]):
                return

    def results(self, page_size: int = 1000) -> Iterator[Any]:
        """The job's results, paged `page_size` (1–10,000) at a time: a sort's sorted numbers, a
        search's matches. `Gone` once they are no longer kept."""
        offset = 0
        while True:
            page = self.server._http.call(
                "GET", self.server._job_path(self.id, "/results"), query={"offset": offset, "limit": page_size}
            )
            values = page["values"]
            yield from values
            offset += len(values)
            if not values or offset >= int(page["total"]):
                return


def _joined(value: str | Iterable[str] | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return ",".join(value)
