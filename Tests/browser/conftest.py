"""Fixtures for the dashboard's browser tests: a real `herald serve` on port 0 and headless Chromium.

Environment:
  HERALD_BIN          the herald binary (default: .build/debug/herald under the repository root)
  HERALD_CORPUS_FILES files in the generated search corpus (default 300)
  HERALD_CORPUS_KB    size of each corpus file in KiB (default 256)
  HERALD_SEARCH_SECONDS how long a search of the corpus should take (default 3): before the tests, files
                      without matches are added until one does (up to HERALD_CORPUS_MAX_MB, default 2048)
  HERALD_SCREENSHOT=1 also save docs/dashboard.png (a search in progress), docs/history.png (test_history.py)
                      docs/schedules.png (test_schedules_ui.py) and docs/webhooks.png (test_webhooks_ui.py)
Screenshots of every test go to test-artifacts/ (gitignored).
"""

import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from testkit import REPO_ROOT, herald_binary

from .corpus import CORPUS_FILE_KB, CORPUS_FILES, NEEDLE, add_bulk, generate_corpus

ARTIFACTS = REPO_ROOT / "test-artifacts"


# ---- the search corpus ------------------------------------------------------------------------------


# A search must last long enough to be watched and cancelled; how long depends on the build (debug or
# release) and the machine's cores, so the corpus grows until one takes about this long.
SEARCH_SECONDS = float(os.environ.get("HERALD_SEARCH_SECONDS", "3"))
MAX_CORPUS_MB = int(os.environ.get("HERALD_CORPUS_MAX_MB", "2048"))


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(root, CORPUS_FILES, CORPUS_FILE_KB)
    _calibrate(root, tmp_path_factory)
    return root


def _timed_search(base_url: str) -> float:
    """Runs one search over REST and returns how long it ran by the server's clock, in seconds."""
    request = urllib.request.Request(
        base_url + "api/jobs", data=json.dumps({"kind": "search", "params": {"query": NEEDLE}}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        job_id = json.loads(response.read())["id"]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with urllib.request.urlopen(base_url + "api/jobs", timeout=10) as response:
            jobs = {job["id"]: job for job in json.loads(response.read())["jobs"]}
        job = jobs.get(job_id)
        if job and job["state"] in ("succeeded", "failed", "cancelled", "interrupted"):
            assert job["state"] == "succeeded", job
            return (job["finishedAt"] - job["startedAt"]) / 1000
        time.sleep(0.1)
    raise AssertionError("the calibration search did not end")


def _calibrate(root: Path, tmp_path_factory) -> None:
    binary = herald_binary()
    if not binary.exists() or SEARCH_SECONDS <= 0:
        return
    base = tmp_path_factory.mktemp("calibration")
    (base / "data").mkdir()
    server = HeraldServer(binary, root, base / "data", base)
    server.start()
    try:
        for _ in range(3):
            # Timed warm, as the tests' searches run (the first search reads new files from the disk,
            # and a search on several threads is fast once they are cached).
            _timed_search(server.url)
            seconds = _timed_search(server.url)
            size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
            if seconds >= 0.8 * SEARCH_SECONDS or size >= MAX_CORPUS_MB * 1024 * 1024:
                break
            wanted = min(size * (SEARCH_SECONDS / max(seconds, 0.05) - 1), MAX_CORPUS_MB * 1024 * 1024 - size)
            add_bulk(root, int(wanted))
    finally:
        server.stop()


# ---- the server ---------------------------------------------------------------------------------------


class HeraldServer:
    """One `herald serve` process; stop() and start() again keep the port and the data directory."""

    def __init__(self, binary: Path, search_root: Path, data_dir: Path, log_dir: Path, extra_args=()):
        self.binary = binary
        self.search_root = search_root
        self.data_dir = data_dir
        self.log_dir = log_dir
        self.extra_args = list(extra_args)
        self.process = None
        self.url = None
        self.port = 0
        self.starts = 0

    def start(self, port: int = 0, timeout: float = 30.0) -> str:
        last_error = None
        # A port just released may still be busy for a moment; try again a few times.
        for _ in range(20):
            try:
                return self._start_once(port, timeout)
            except RuntimeError as error:
                last_error = error
                if port == 0:
                    break
                time.sleep(0.25)
        raise last_error

    def _start_once(self, port: int, timeout: float) -> str:
        self.starts += 1
        stderr_path = self.log_dir / f"herald-{self.starts}.stderr.log"
        stdout_path = self.log_dir / f"herald-{self.starts}.stdout.log"
        args = [
            str(self.binary), "serve",
            "--host", "127.0.0.1",
            "--port", str(port),
            "--public", str(REPO_ROOT / "Public"),
            "--search-root", str(self.search_root),
            "--data-dir", str(self.data_dir),
            "--news-probability", "1",
            "--news-seed", "7",
            # Two service threads unless a test asks otherwise, whatever the machine's cores (the default).
            *(() if "--io-threads" in self.extra_args else ("--io-threads", "2")),
            *self.extra_args,
        ]
        stderr = open(stderr_path, "wb")
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=stderr, cwd=str(self.log_dir))
        stderr.close()
        lines: "queue.Queue[bytes]" = queue.Queue()

        def pump():  # keeps reading so the pipe never fills; the first line is the URL
            with open(stdout_path, "wb") as log:
                for line in iter(process.stdout.readline, b""):
                    log.write(line)
                    log.flush()
                    lines.put(line)
            lines.put(b"")

        threading.Thread(target=pump, daemon=True).start()
        try:
            first = lines.get(timeout=timeout).decode().strip()
        except queue.Empty:
            first = ""
        if not first.startswith("http"):
            process.kill()
            process.wait()
            raise RuntimeError(
                f"herald did not print its URL (exit {process.returncode}); first line {first!r}; "
                f"stderr: {stderr_path.read_text(errors='replace')[-2000:]}"
            )
        self.process = process
        self.url = first
        self.port = urlparse(first).port
        return first

    def stop(self, timeout: float = 20.0) -> int:
        process, self.process = self.process, None
        if process is None:
            return 0
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError("herald did not exit within %.0f s of SIGTERM" % timeout)

    def restart(self) -> str:
        port = self.port
        self.stop()
        return self.start(port=port)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://").rstrip("/") + "/ws"


def _make_server(corpus: Path, tmp_path_factory, name: str) -> HeraldServer:
    binary = herald_binary()
    if not binary.exists():
        pytest.fail(f"no herald binary at {binary}: run `swift build --product herald` or set HERALD_BIN")
    base = tmp_path_factory.mktemp(name)
    data_dir = base / "data"
    data_dir.mkdir()
    return HeraldServer(binary, corpus, data_dir, base)


@pytest.fixture(scope="module")
def server(corpus, tmp_path_factory):
    """A server for the whole test module (its jobs accumulate from test to test)."""
    instance = _make_server(corpus, tmp_path_factory, "server")
    instance.start()
    try:
        yield instance
    finally:
        instance.stop()


@pytest.fixture
def server_factory(corpus, tmp_path_factory):
    """server_factory(*extra_args) → a started server of its own (for tests that restart it or need other
    flags); all are stopped at the end of the test."""
    made = []

    def make(*extra_args):
        instance = _make_server(corpus, tmp_path_factory, "own-server")
        instance.extra_args = list(extra_args)
        made.append(instance)
        instance.start()
        return instance

    try:
        yield make
    finally:
        for instance in made:
            instance.stop()


# ---- the browser ----------------------------------------------------------------------------------------


def _new_driver(width: int, height: int, profile: str) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        "--no-first-run",
        "--disable-background-networking",
    ):
        options.add_argument(argument)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.fail("chromium and chromedriver are needed: apt-get install -y --no-install-recommends chromium chromium-driver")
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=driver_path), options=options)


@pytest.fixture
def browser(request):
    """A factory: browser(width=1280, height=900) → a fresh headless Chromium. All are quit at the end,
    after a screenshot of each is saved to test-artifacts/."""
    drivers = []
    profiles = []

    def make(width: int = 1280, height: int = 900) -> webdriver.Chrome:
        profile = tempfile.mkdtemp(prefix="herald-chromium-")
        profiles.append(profile)
        driver = _new_driver(width, height, profile)
        drivers.append(driver)
        return driver

    try:
        yield make
    finally:
        ARTIFACTS.mkdir(exist_ok=True)
        for index, driver in enumerate(drivers):
            try:
                driver.save_screenshot(str(ARTIFACTS / f"{request.node.name}-{index}.png"))
            except Exception:
                pass
            try:
                driver.quit()
            except Exception:
                pass
        for profile in profiles:
            shutil.rmtree(profile, ignore_errors=True)
