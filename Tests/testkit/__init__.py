"""What the Python suites share (black-box, browser, cluster): where the binary is, a running
`herald serve`, polling, and (testkit.redis_server) a throwaway redis-server. On the import path
through the repository's pytest.ini; run the suites with scripts/pytest.
"""

import json
import os
import resource
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from . import contract

REPO_ROOT = Path(__file__).resolve().parents[2]


def herald_binary() -> Path:
    """HERALD_BIN, or .build/debug/herald under the repository root."""
    path = Path(os.environ.get("HERALD_BIN", ".build/debug/herald"))
    return path if path.is_absolute() else REPO_ROOT / path


class Herald:
    """A running `herald serve` and helpers to talk to it. On 127.0.0.1, or with `host` (a
    testkit.netns.Host) in that host, on its address, and talked to from inside it."""

    def __init__(self, *extra: str, root: Path, env: dict | None = None, host=None, open_files: tuple[int, int] | None = None):
        """`env`: variables added to this process's environment for the server (e.g. LD_PRELOAD).
        `open_files`: the (soft, hard) limit of descriptors it starts with (RLIMIT_NOFILE)."""
        self.root = root
        self.host = host
        # The other nodes of its cluster, when a fixture made one around it (node n1).
        self.peers: list[Herald] = []
        self.data = root / "data"
        self.corpus = root / "corpus"
        self.corpus.mkdir(parents=True, exist_ok=True)
        for index in range(20):
            (self.corpus / f"file{index}.txt").write_text("alpha\nneedle here\nomega\n" * 50)
        # The log goes to a file: a pipe nobody reads would fill and block the server.
        self.log_path = root / "herald.log"
        self.log_file = open(self.log_path, "w")
        address = host.address if host else "127.0.0.1"
        # Two service threads unless a test asks otherwise, whatever the machine's cores (the default).
        threads = () if "--io-threads" in extra else ("--io-threads", "2")
        arguments = [str(herald_binary()), "serve", "--port", "0", "--data-dir", str(self.data),
                     "--search-root", str(self.corpus), "--news-probability", "1", "--news-seed", "5", *threads, *extra]
        if host:
            arguments += ["--host", address]
        launch = host.popen if host else subprocess.Popen
        limits = {} if open_files is None else {"preexec_fn": lambda: resource.setrlimit(resource.RLIMIT_NOFILE, open_files)}
        self.process = launch(arguments, stdout=subprocess.PIPE, stderr=self.log_file, text=True,
                              env=None if env is None else {**os.environ, **env}, **limits)
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith((f"http://{address}:", f"https://{address}:")), f"first line should be the URL, got {self.url!r}"
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])
        self.ws = f"ws://{address}:{self.port}/ws"

    def log(self) -> str:
        return self.log_path.read_text()

    def request(self, method: str, path: str, body=None, headers=None, timeout: float = 10):
        """One HTTP request; a REST answer is checked against the OpenAPI document (testkit.contract).
        With a host, sent from inside it."""
        if self.host:
            return self.host.call(self._request, method, path, body, headers, timeout)
        return self._request(method, path, body, headers, timeout)

    def _request(self, method, path, body, headers, timeout):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, text, answered = response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as error:
            status, text, answered = error.code, error.read().decode(), dict(error.headers)
        content_type = next((value for name, value in answered.items() if name.lower() == "content-type"), None)
        contract.rest_answer(method, path, status, content_type, text)
        return status, text, answered

    def json(self, method: str, path: str, body=None, headers=None, timeout: float = 10):
        status, text, _ = self.request(method, path, body, headers, timeout)
        return status, json.loads(text)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()
        return self.process.returncode


def all_jobs(server) -> list:
    """Every job the server has, in memory or archived, through history pages (newest first)."""
    jobs, before = [], None
    while True:
        status, body = server.json("GET", "/api/jobs?limit=500" + (f"&before={before}" if before else ""))
        assert status == 200, body
        jobs += body["jobs"]
        before = body["next"]
        if before is None:
            return jobs


# HERALD_BLACKBOX_CLUSTER=1 (`make test-cluster-suites`): every server a test starts is node n1 of a
# cluster of its own: a redis-server and two more nodes (docs/scaling.md). The suites must pass against
# one node of a 3-node cluster as they pass against a single server.
CLUSTER_SUITES = os.environ.get("HERALD_BLACKBOX_CLUSTER") == "1"


def wait_for(predicate, timeout=20.0, interval=0.05, what="condition"):
    """Polls `predicate` until it returns a truthy value (returned) or fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")
