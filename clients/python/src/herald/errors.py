"""The exceptions of the Herald client.

Every refusal from the server is a `HeraldError` carrying the server's error `code` (the codes of
docs/protocol.md, "Error codes"), its `message` and, for REST calls, the HTTP `status`. The common
codes have a subclass of their own, so a caller can write ``except herald.Busy:``; a code this
version does not know is still a `HeraldError` with that code.
"""

from __future__ import annotations

from typing import Any


class HeraldError(Exception):
    """A refusal from the server, or a failure to reach it (then `code` is None)."""

    def __init__(self, message: str, code: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" if self.code else self.message


class HeraldConnectionError(HeraldError):
    """The server could not be reached, or ended the connection in a way a retry cannot mend."""


class BadRequest(HeraldError):
    """`bad_json`, `bad_request`, `unknown_type` or `unknown_kind`: the request itself is wrong."""


class Unauthorized(HeraldError):
    """`unauthorized`: the server wants a token (``Herald(url, token=…)``) and got none or another."""


class NotFound(HeraldError):
    """`not_found`: no such job (or, for `Job.log`, a job that keeps no log)."""


class Gone(HeraldError):
    """`gone`: the job is known but what was asked of it (results, log) is no longer kept."""


class Busy(HeraldError):
    """`busy`: a kind that refuses when busy already has as many jobs as it allows."""


class NotCancellable(HeraldError):
    """`not_cancellable`: the job already ended."""


class TooLarge(HeraldError):
    """`too_large`: the request is over the server's limit."""


class RateLimited(HeraldError):
    """`rate_limited`: too many commands; slow down."""


class Unavailable(HeraldError):
    """`shutting_down` or `unavailable`: the server cannot do it now; trying again later may work."""


_BY_CODE: dict[str, type[HeraldError]] = {
    "bad_json": BadRequest,
    "bad_request": BadRequest,
    "unknown_type": BadRequest,
    "unknown_kind": BadRequest,
    "unauthorized": Unauthorized,
    "not_found": NotFound,
    "gone": Gone,
    "busy": Busy,
    "not_cancellable": NotCancellable,
    "too_large": TooLarge,
    "rate_limited": RateLimited,
    "shutting_down": Unavailable,
    "unavailable": Unavailable,
}


def error_for(code: str, message: str, status: int | None = None) -> HeraldError:
    """The exception for a server error `code` (a plain `HeraldError` for a code not listed above)."""
    return _BY_CODE.get(code, HeraldError)(message, code, status)


class JobFailed(HeraldError):
    """`Job.wait(raise_on_failure=True)` on a job that ended other than `succeeded`.

    `job` is its final record; `state` is `failed`, `cancelled` or `interrupted`; `code` is the state.
    """

    def __init__(self, job: dict[str, Any]) -> None:
        state = str(job.get("state"))
        reason = job.get("error") or state
        super().__init__(f"job {job.get('id')} {state}: {reason}", code=state)
        self.job = job
        self.state = state
