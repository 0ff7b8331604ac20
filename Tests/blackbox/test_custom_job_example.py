"""The Swift API example (Examples/custom-job): a program that serves its own `countdown` kind.

CUSTOM_JOB_BIN names the binary `make test-example` builds (default
.build/examples/custom-job/debug/custom-job under the repository root).
"""

import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websocket

from testkit import REPO_ROOT, contract, wait_for


def example_binary() -> Path:
    path = Path(os.environ.get("CUSTOM_JOB_BIN", ".build/examples/custom-job/debug/custom-job"))
    path = path if path.is_absolute() else REPO_ROOT / path
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it with `make test-example`")
    return path


def call(url: str, method: str, path: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url.rstrip("/") + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def ended(url: str, job_id: str):
    status, job = call(url, "GET", f"/api/jobs/{job_id}")
    assert status == 200, job
    return job if job["state"] in ("succeeded", "failed", "cancelled") else None


@pytest.fixture
def example(tmp_path):
    # Its own working folder: the example keeps its history in ./.herald.
    log = open(tmp_path / "custom-job.log", "w")
    process = subprocess.Popen([str(example_binary()), "0"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()


def test_the_example_describes_its_kind_for_the_dashboards_start_form(example):
    url = example.stdout.readline().strip()
    stream = websocket.create_connection(url.replace("http://", "ws://") + "ws", timeout=10, origin=url.rstrip("/"))
    try:
        snapshot = contract.server_message(stream.recv())
    finally:
        stream.close()
    assert snapshot["type"] == "snapshot", snapshot
    countdown = snapshot["limits"]["kinds"]["countdown"]
    assert countdown["title"] == "Countdown", countdown
    assert countdown["params"] == {"from": {"type": "integer", "default": 10, "minimum": 1, "maximum": 3600}}, countdown


def test_the_example_serves_its_countdown_kind_and_stops_on_sigterm(example, tmp_path):
    url = example.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/"), f"first line should be the URL, got {url!r}"

    status, job = call(url, "POST", "/api/jobs", {"kind": "countdown", "params": {"from": 3}})
    assert status == 202 and job["kind"] == "countdown" and job["params"] == {"from": 3}, job
    done = wait_for(lambda: ended(url, job["id"]), timeout=30, what="the countdown to end")
    assert done["state"] == "succeeded", done
    assert done["summary"] == {"counted": 3}
    assert done["progress"]["completed"] == 3 and done["progress"]["total"] == 3, done

    for params, problem in [({"from": "three"}, "from: must be an integer"), ({"from": 0}, "from: must be from 1 to 3600"),
                            ({"form": 3}, "form: unknown parameter")]:
        status, refused = call(url, "POST", "/api/jobs", {"kind": "countdown", "params": params})
        assert status == 400 and refused["code"] == "bad_request", refused
        assert refused["message"].startswith(problem), refused

    status, long = call(url, "POST", "/api/jobs", {"kind": "countdown", "params": {"from": 600}})
    assert status == 202, long
    wait_for(lambda: call(url, "GET", f"/api/jobs/{long['id']}")[1]["state"] == "running", what="the long countdown to run")
    status, _ = call(url, "POST", f"/api/jobs/{long['id']}/cancel")
    assert status == 202
    assert wait_for(lambda: ended(url, long["id"]), what="the cancel")["state"] == "cancelled"

    example.send_signal(signal.SIGTERM)
    assert example.wait(timeout=20) == 0
    assert (tmp_path / ".herald" / "jobs.jsonl").is_file(), "history was written in the working folder"
