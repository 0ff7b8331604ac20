"""Herald's Python client.

Two halves, one package:

- Talking to a server: `Herald` starts, finds and cancels jobs over the REST API and follows the
  event stream over a WebSocket (`Herald.events`, an `EventStream` that resumes by epoch and seq
  after a drop and never yields an event twice or skips one); `Job` waits for a job, cancels it,
  pages its log and results and iterates its events.
- Running as a Herald job: `report`, `result`, `items`, `log` and the tqdm-like `tqdm`/`trange`
  write the progress protocol of docs/jobs.md to stdout.

    import herald

    with herald.Herald("http://127.0.0.1:8080") as server:
        job = server.start("search", {"query": "needle"})
        print(job.wait(timeout=30, raise_on_failure=True)["summary"])

Refusals raise `HeraldError` subclasses carrying the server's error code (`Busy`, `NotFound`,
`Gone`, `Unauthorized`, …).
"""

from .client import FINAL_STATES, Herald, Job, LogLine
from .errors import (
    BadRequest,
    Busy,
    Gone,
    HeraldConnectionError,
    HeraldError,
    JobFailed,
    NotCancellable,
    NotFound,
    RateLimited,
    TooLarge,
    Unauthorized,
    Unavailable,
)
from .reporting import items, log, report, result, set_output, tqdm, trange
from .stream import Event, EventStream, Position

__version__ = "0.1.0"

__all__ = [
    "FINAL_STATES",
    "BadRequest",
    "Busy",
    "Event",
    "EventStream",
    "Gone",
    "Herald",
    "HeraldConnectionError",
    "HeraldError",
    "Job",
    "JobFailed",
    "LogLine",
    "NotCancellable",
    "NotFound",
    "Position",
    "RateLimited",
    "TooLarge",
    "Unauthorized",
    "Unavailable",
    "items",
    "log",
    "report",
    "result",
    "set_output",
    "tqdm",
    "trange",
]
