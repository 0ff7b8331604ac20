"""The wall clock stepped an hour forward, then back (issue #38: NTP, an operator), on a running
server, with Debian's libfaketime: its offset is read from a file the test rewrites
(FAKETIME_TIMESTAMP_FILE, re-read every second: FAKETIME_CACHE_DURATION), and the monotonic clock is
left alone (FAKETIME_DONT_FAKE_MONOTONIC), as on a machine whose clock NTP steps. Across the steps a
command job's timeout, a remote worker's lease and a viewer's connection (its keepalive) behave as
without them, and the job times shown stay in order. docs/operations.md, "What happens when…"."""

import glob
import json
import time

import pytest

from testkit import Herald, wait_for
from test_jobs_file import write_jobs
from test_workers import Viewer, Worker

LIBFAKETIME = next(iter(sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1"))), None)
HOUR = 3600
TIMEOUT = 4  # the command job's timeout, seconds
WORK = 8  # how long the worker's job runs, seconds; its lease is 2 s
TERMINAL = ("succeeded", "failed", "cancelled", "interrupted")


@pytest.fixture
def stepped_server(tmp_path):
    if LIBFAKETIME is None:
        pytest.skip("libfaketime is not installed (`make deps-test` installs the Debian package libfaketime)")
    offset = tmp_path / "faketime.rc"
    offset.write_text("+0\n")
    jobs = write_jobs(tmp_path, {
        "stuck": {"title": "Never ends by itself", "command": ["sleep", "600"], "timeout": TIMEOUT, "grace": 1},
        "remote": {"title": "Runs on a worker"}})
    env = {"LD_PRELOAD": LIBFAKETIME, "FAKETIME_TIMESTAMP_FILE": str(offset), "FAKETIME_CACHE_DURATION": "1",
           "FAKETIME_DONT_FAKE_MONOTONIC": "1",
           # Set, libfaketime does not add it to the environment at start (to share its clock with
           # child processes); adding it moves `environ`, and the Swift runtime, which finds argv
           # just before the environment, then sees no arguments at all.
           "FAKETIME_SHARED": "none none"}
    server = Herald("--jobs", str(jobs), "--worker-lease", "2", root=tmp_path, env=env)
    try:
        yield server, offset
    finally:
        server.stop()


def wall_offset(server) -> float:
    """The server's wall clock minus the real one, in seconds, from a job it creates now."""
    status, job = server.json("POST", "/api/jobs", {"kind": "sort", "params": {"count": 10}})
    assert status == 202, job
    return job["createdAt"] / 1000 - time.time()


def step(server, offset, seconds):
    offset.write_text(f"{seconds:+d}\n")
    wait_for(lambda: abs(wall_offset(server) - seconds) < 60, timeout=30, interval=0.2,
             what=f"the server's wall clock {seconds:+d} s off")


def ended(server, job_id):
    job = server.json("GET", f"/api/jobs/{job_id}")[1]
    return job if job["state"] in TERMINAL else None


def test_timeouts_leases_and_connections_ignore_wall_clock_steps(stepped_server, tmp_path):
    server, offset = stepped_server
    worker_jobs = tmp_path / "worker-jobs.json"
    worker_jobs.write_text(json.dumps({"kinds": {"remote": {"title": "Runs on a worker", "command": ["sleep", str(WORK)]}}}))
    worker = Worker(server, worker_jobs, "w1", tmp_path)
    viewer = Viewer(server.ws)
    try:
        wait_for(lambda: server.json("GET", "/api/workers")[1]["workers"], what="the worker attached")
        began = time.monotonic()
        status, stuck = server.json("POST", "/api/jobs", {"kind": "stuck"})
        assert status == 202, stuck
        status, remote = server.json("POST", "/api/jobs", {"kind": "remote"})
        assert status == 202, remote

        step(server, offset, HOUR)
        step(server, offset, -HOUR)

        # A timeout on the wall clock would have ended the job at the step forward, or never after
        # the step back: it ends after its own 4 s.
        stuck_end = wait_for(lambda: ended(server, stuck["id"]), timeout=60, what="the stuck job's timeout")
        ran = time.monotonic() - began
        assert stuck_end["state"] == "failed" and stuck_end["error"] == f"timed out after {TIMEOUT} s", stuck_end
        assert ran >= TIMEOUT - 0.5, f"it timed out after {ran:.1f} s, before its {TIMEOUT} s"

        # A 2 s lease on the wall clock would have run out at the step forward: the one attempt succeeds.
        remote_end = wait_for(lambda: ended(server, remote["id"]), timeout=60, what="the worker's job")
        assert remote_end["state"] == "succeeded" and remote_end["attempt"] == 1, remote_end
        assert time.monotonic() - began >= WORK - 0.5

        # Started before the step back, ended after it: by the wall clock they ended before they
        # started; what is shown never does.
        for job in (stuck_end, remote_end):
            assert job["createdAt"] <= job["startedAt"] <= job["finishedAt"], f"times out of order: {job}"

        # The viewer stayed connected through both steps and saw both ends, with no gap.
        seen = wait_for(lambda: (lambda ids: ids if {stuck["id"], remote["id"]} <= ids else None)(
            {m["job"]["id"] for m in viewer.seen() if m.get("type") == "job" and m["job"]["state"] in TERMINAL}),
            what="both ends on the viewer")
        assert seen
        viewer.assert_no_gap()
        assert "lost" not in server.log()
    finally:
        viewer.close()
        worker.stop()
