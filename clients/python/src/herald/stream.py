"""The event stream: `EventStream` follows a Herald server's ``/ws`` and survives drops.

A server numbers its events ``seq`` 1, 2, 3… within an ``epoch`` (which changes when it restarts).
The stream keeps the last epoch and seq it handed out. When the connection drops it reconnects with
``/ws?epoch=E&since=N`` (docs/protocol.md), waiting a capped, jittered, doubling delay between
attempts, exactly as ``herald watch`` and the dashboard do. The server then sends the events after N
and goes on live, so nothing is lost; an event at or below N (none should come) is dropped, so
nothing is repeated. When the server no longer keeps those events, or its epoch differs (it
restarted), it answers with a ``snapshot`` (``reason: "resume"``) instead: the stream yields that
snapshot, which replaces the reader's state wholesale, and continues from its epoch and seq. A gap in
seq (which the server never sends on one connection) is treated like a drop: reconnect and resume.

Thread: one reader calls `recv` (or iterates); `close` may be called from any thread.
"""

from __future__ import annotations

import json
import logging
import random
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Iterator, NamedTuple

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from .errors import HeraldConnectionError, Unauthorized

logger = logging.getLogger("herald")

# Close codes after which reconnecting cannot help (docs/protocol.md, "Limits and close codes").
_FATAL_CLOSE_CODES = {1007: "invalid UTF-8", 1008: "refused (policy)", 1009: "message too big"}
# Handshake refusals that a retry cannot mend; others (503: too many connections, shutting down) are retried.
_FATAL_HANDSHAKE_STATUSES = {400, 401, 403, 404}


class Position(NamedTuple):
    """A place in a server's stream: its `epoch` and the last `seq` seen there."""

    epoch: str
    seq: int


@dataclass(frozen=True)
class Event:
    """One numbered event, or a snapshot, as the server sent it.

    `data` is the whole message (decoded JSON); `seq` is the event's number, or for a snapshot the
    seq it stands at; `epoch` is the stream's epoch it belongs to.
    """

    type: str
    seq: int
    epoch: str
    data: dict[str, Any]

    @property
    def job_id(self) -> str | None:
        """The id of the job the event is about (``job``, ``progress``, ``results``, ``log``), else None."""
        job = self.data.get("job")
        if isinstance(job, dict):
            value = job.get("id")
            return value if isinstance(value, str) else None
        return job if isinstance(job, str) else None

    @property
    def job(self) -> dict[str, Any] | None:
        """The job object of a ``job`` event, else None."""
        job = self.data.get("job")
        return job if isinstance(job, dict) else None

    @property
    def position(self) -> Position:
        return Position(self.epoch, self.seq)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


class EventStream:
    """An iterator over a server's events that resumes by itself after a drop (see the module doc).

    Made by `Herald.events`. Iterating blocks until the next event; `recv(timeout)` raises
    `TimeoutError` when none comes in time (the stream stays usable). A context manager: leaving it
    closes the connection.
    """

    def __init__(
        self,
        ws_url: str,
        *,
        since: Position | None = None,
        token: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
        open_timeout: float = 10.0,
        reconnect_delay: float = 0.5,
        max_reconnect_delay: float = 8.0,
    ) -> None:
        self._ws_url = ws_url
        self._token = token
        self._ssl_context = ssl_context
        self._open_timeout = open_timeout
        self._initial_delay = reconnect_delay
        self._max_delay = max_reconnect_delay
        self._delays = backoff_delays(reconnect_delay, max_reconnect_delay)
        self._epoch: str | None = since.epoch if since else None
        self._seq = since.seq if since else 0
        self._scoped = False
        self._connection: ClientConnection | None = None
        # Guards `_connection` against `close` from another thread.
        self._lock = threading.Lock()
        self._closed = threading.Event()
        # When the next connection attempt may start (time.monotonic()); None: at once. Set when a
        # connection is lost or an attempt fails, so a `recv` that timed out while waiting keeps the
        # time it waited: the next `recv` waits only the rest.
        self._retry_at: float | None = None
        #: How many times the stream connected after a lost connection or a failed attempt.
        self.reconnects = 0

    @property
    def position(self) -> Position | None:
        """The epoch and seq of the last event (or snapshot) handed out; None before the first."""
        return Position(self._epoch, self._seq) if self._epoch is not None else None

    def __iter__(self) -> Iterator[Event]:
        while True:
            try:
                yield self.recv()
            except HeraldConnectionError:
                if self._closed.is_set():
                    return
                raise

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Ends the stream: the connection is closed and a waiting `recv` stops (iteration ends)."""
        self._closed.set()
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def recv(self, timeout: float | None = None) -> Event:
        """The next event (or snapshot), reconnecting and resuming as needed.

        Raises `TimeoutError` when none comes within `timeout` seconds (None: wait for ever),
        `HeraldConnectionError` once the stream is closed or the server refused it for good.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed.is_set():
                raise HeraldConnectionError("the event stream is closed")
            connection = self._connection or self._connect(deadline)
            try:
                raw = connection.recv(timeout=_remaining(deadline))
            except TimeoutError:
                raise TimeoutError("no event from the server in time") from None
            except ConnectionClosed as closed:
                self._lost(connection, closed)
                continue
            event = self._accept(raw, connection)
            if event is not None:
                return event

    def _accept(self, raw: str | bytes, connection: ClientConnection) -> Event | None:
        try:
            message = json.loads(raw)
        except ValueError:
            logger.warning("herald: ignoring a message that is not JSON: %.200r", raw)
            return None
        if not isinstance(message, dict):
            return None
        kind = message.get("type")
        if kind == "snapshot":
            self._epoch = str(message.get("epoch"))
            self._seq = int(message.get("seq", 0))
            # A scoped stream (a share link's, a key's naming jobs or kinds) has holes in seq by design.
            self._scoped = isinstance(message.get("scope"), dict)
            return Event("snapshot", self._seq, self._epoch, message)
        seq = message.get("seq")
        if not isinstance(seq, int) or not isinstance(kind, str) or self._epoch is None:
            return None  # a reply (pong, accepted, error): not part of the stream
        if seq <= self._seq:
            return None  # already handed out
        if seq != self._seq + 1 and not self._scoped:
            logger.warning("herald: expected seq %d, got %d; resuming", self._seq + 1, seq)
            self._drop(connection)
            return None
        self._seq = seq
        return Event(kind, seq, self._epoch, message)

    def _url(self) -> str:
        if self._epoch is None:
            return self._ws_url
        query = urllib.parse.urlencode({"epoch": self._epoch, "since": self._seq})
        return f"{self._ws_url}?{query}"

    def _connect(self, deadline: float | None) -> ClientConnection:
        """A new connection (resuming when there is a position), after the backoff delay when one was
        lost. Raises `TimeoutError` past the deadline, `HeraldConnectionError` on a lasting refusal."""
        while True:
            if self._retry_at is not None:
                wait = max(0.0, self._retry_at - time.monotonic())
                remaining = _remaining(deadline)
                if remaining is not None and remaining < wait:
                    self._closed.wait(remaining)
                    raise TimeoutError("no event from the server in time (reconnecting)")
                if self._closed.wait(wait):
                    raise HeraldConnectionError("the event stream is closed")
            url = self._url()
            headers = {"Authorization": f"Bearer {self._token}"} if self._token is not None else None
            open_timeout = self._open_timeout
            remaining = _remaining(deadline)
            if remaining is not None:
                open_timeout = max(0.1, min(open_timeout, remaining))
            try:
                # Entered as a `with` would: websockets 17.1 and later warn of a connection used
                # without, and older versions do not take the `legacy=True` that also silences it.
                # `close` ends it.
                connection = connect(
                    url,
                    additional_headers=headers,
                    ssl=self._ssl_context if url.startswith("wss:") else None,
                    open_timeout=open_timeout,
                    max_size=None,  # a snapshot lists every job in memory: no fixed cap fits
                    compression=None,
                ).__enter__()
            except InvalidStatus as refusal:
                status = refusal.response.status_code
                if status in _FATAL_HANDSHAKE_STATUSES:
                    error_type = Unauthorized if status == 401 else HeraldConnectionError
                    raise error_type(f"{self._ws_url} refused the connection: HTTP {status}", status=status) from refusal
                logger.info("herald: %s answered HTTP %d", self._ws_url, status)
            except ssl.SSLCertVerificationError as failure:
                raise HeraldConnectionError(f"cannot connect to {self._ws_url}: {failure}") from failure
            except (OSError, InvalidHandshake, TimeoutError) as failure:
                logger.info("herald: cannot connect to %s: %s", self._ws_url, failure)
            else:
                with self._lock:
                    if self._closed.is_set():
                        connection.close()
                        raise HeraldConnectionError("the event stream is closed")
                    self._connection = connection
                if self._retry_at is not None:
                    self.reconnects += 1
                self._retry_at = None
                self._delays = backoff_delays(self._initial_delay, self._max_delay)
                return connection
            self._schedule_retry()

    def _schedule_retry(self) -> None:
        wait = next(self._delays)
        self._retry_at = time.monotonic() + wait
        logger.info("herald: reconnecting to %s in %.1f s", self._ws_url, wait)

    def _lost(self, connection: ClientConnection, closed: ConnectionClosed) -> None:
        code = closed.rcvd.code if closed.rcvd is not None else None
        if self._closed.is_set():
            raise HeraldConnectionError("the event stream is closed")
        if code in _FATAL_CLOSE_CODES:
            raise HeraldConnectionError(f"the server closed the stream with {code} ({_FATAL_CLOSE_CODES[code]})")
        logger.info("herald: connection lost (%s); resuming after seq %d", code or "no close frame", self._seq)
        self._drop(connection)

    def _drop(self, connection: ClientConnection) -> None:
        with self._lock:
            if self._connection is connection:
                self._connection = None
        connection.close()
        self._schedule_retry()


def backoff_delays(
    initial: float, cap: float, jitter: float = 0.2, rng: random.Random | None = None
) -> Iterator[float]:
    """The waits before successive reconnection attempts: `initial` seconds, doubling up to `cap`,
    each within ±`jitter` (a fraction) of it, so that many clients dropped at once do not all come
    back in the same instant."""
    source = rng or random.Random()
    delay = initial
    while True:
        yield delay * source.uniform(1 - jitter, 1 + jitter)
        delay = min(delay * 2, cap)


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())
