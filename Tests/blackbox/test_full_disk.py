"""A full data disk (issue: faults of a real disk): `--data-dir` on a small tmpfs made by the test,
filled while jobs run. Jobs go on; history and log writes fail visibly (/healthz degraded with the
reason, metrics, a few log lines, not one per write); no file is left torn; what could not be written
is written when space returns; a restart finds every finished job.

Needs root (mount); skipped with the reason where it is missing. CI runs as root.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from testkit import Herald, all_jobs, wait_for

JOBS = 18
BEFORE_FULL = 3


@pytest.fixture
def small_disk(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(data)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield data
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)


def fill(folder: Path) -> Path:
    """Writes a file until the filesystem has no byte left; returns it."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out:
        for chunk in (1 << 16, 1 << 12, 1 << 8, 1):
            try:
                while True:
                    out.write(b"\0" * chunk)
            except OSError:
                pass
    return filler


def start(server, count):
    status, body = server.json("POST", "/api/jobs", {"kind": "spew", "params": {"n": count}})
    assert status == 202, body
    return body["id"]


def finished(server, job_id):
    status, body = server.json("GET", f"/api/jobs/{job_id}")
    return status == 200 and body["state"] == "succeeded"


def whole_lines(path: Path):
    """The JSON lines of a file, asserting that it ends with a whole line."""
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), f"{path.name} ends with a torn line: {data[-80:]!r}"
    return [json.loads(line) for line in data.splitlines() if line]


def on_disk(data: Path):
    """Every job the data folder holds (the journal's live jobs and the archive's), by id."""
    jobs = {}
    for line in whole_lines(data / "jobs.jsonl"):
        if "forgotten" in line:
            for job_id in line["forgotten"]:
                jobs.pop(job_id, None)
        else:
            jobs[line["id"]] = line
    for segment in sorted((data / "history").glob("archive-*.jsonl")):
        for line in whole_lines(segment):
            jobs.setdefault(line["id"], line)
    return jobs


def test_a_full_disk_is_reported_jobs_go_on_and_everything_is_written_when_space_returns(small_disk, tmp_path):
    jobs_file = tmp_path / "jobs.json"
    jobs_file.write_text(json.dumps({"kinds": {"spew": {
        "title": "Print lines", "command": ["seq", "1", "{n}"], "concurrency": 4,
        "params": {"n": {"type": "integer", "minimum": 1, "maximum": 100000, "required": True}}}}}))
    args = ("--jobs", str(jobs_file), "--workers", "4", "--recent-jobs", "5", "--history-jobs", "100")
    server = Herald(*args, root=tmp_path)
    try:
        ids = [start(server, 50) for _ in range(BEFORE_FULL)]
        for job_id in ids:
            wait_for(lambda: finished(server, job_id), what=f"{job_id} to succeed")
        assert server.request("GET", "/healthz")[0] == 200

        filler = fill(small_disk)
        ids += [start(server, 300) for _ in range(JOBS - BEFORE_FULL)]
        for job_id in ids:
            wait_for(lambda: finished(server, job_id), what=f"{job_id} to succeed while the disk is full")

        status, health = server.json("GET", "/healthz")
        assert status == 503 and health["status"] == "degraded", health
        assert "No space left on device" in health["reason"], health
        metrics = server.request("GET", "/metrics")[1]
        assert "\nherald_storage_failing 1\n" in metrics
        failures = int(next(line for line in metrics.splitlines() if line.startswith("herald_storage_write_failures_total ")).split()[1])
        assert failures >= JOBS - BEFORE_FULL, metrics
        storage_lines = [line for line in server.log().splitlines() if "storage: cannot write" in line]
        assert 1 <= len(storage_lines) <= 3, "one line per kind of file, not one per write:\n" + "\n".join(storage_lines)
        assert len(storage_lines) < failures

        # Nothing torn, and nothing lost from view: every job is listed, the newest one's log pages
        # from memory.
        whole_lines(small_disk / "jobs.jsonl")
        listed = {job["id"]: job for job in all_jobs(server)}
        assert {job_id: listed[job_id]["state"] for job_id in ids} == {job_id: "succeeded" for job_id in ids}
        status, page = server.json("GET", f"/api/jobs/{ids[-1]}/log?limit=1000")
        assert status == 200 and page["total"] == 300, page

        filler.unlink()
        wait_for(lambda: server.request("GET", "/healthz")[0] == 200, timeout=60, what="/healthz ok once space returned")
        assert "storage: writes to the data folder work again" in server.log()
        assert "\nherald_storage_failing 0\n" in server.request("GET", "/metrics")[1]
        wait_for(lambda: set(ids) <= {job_id for job_id, job in on_disk(small_disk).items() if job["state"] == "succeeded"},
                 timeout=30, what="every finished job written to the data folder")
        wait_for(lambda: (small_disk / "logs" / f"{ids[-1]}.jsonl").exists(), timeout=30, what="the waiting log written")
    finally:
        server.stop()

    restarted = Herald(*args, root=tmp_path)
    try:
        listed = {job["id"]: job for job in all_jobs(restarted)}
        assert {job_id: listed[job_id]["state"] for job_id in ids} == {job_id: "succeeded" for job_id in ids}
        status, page = restarted.json("GET", f"/api/jobs/{ids[-1]}/log?limit=1000")
        assert status == 200 and page["total"] == 300 and page["lines"][-1]["text"] == "300", page
        assert not list(small_disk.glob("*.corrupt*")), "nothing set aside"
        assert "torn" not in restarted.log() and "unreadable" not in restarted.log(), restarted.log()
    finally:
        restarted.stop()
