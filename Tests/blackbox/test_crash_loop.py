"""Crash loops: the real `herald serve` is SIGKILLed at random instants, 30 times, while it writes sort
files, history lines (journal and archive) and command jobs' logs, and restarted on the same data
folder each time. After every restart: it starts; every file in the data folder reads back whole (a
torn last line, which a power loss can leave and this test also plants now and then, is dropped and
reported, never fatal); jobs seen finished before the kill are the same objects; jobs seen unfinished
are finished or `interrupted`.

The random choices (delays, counts, which file gets a torn line) come from one seed, printed; rerun
one with HERALD_CRASH_SEED=<seed>.
"""

import json
import os
import random
import re
import struct
import time
from pathlib import Path

from testkit import Herald, all_jobs, wait_for

ROUNDS = 30
TERMINAL = {"succeeded", "failed", "cancelled", "interrupted"}
LEFTOVER = re.compile(r"^\..+\.tmp-[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
TORN_REPORT = "dropped a torn last line"


def fnv1a64(data: bytes) -> int:
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


class DataFolder:
    """Reads every file in the data folder and says what is wrong with it. Files that cannot change
    once written (sort data, logs) are read in full once per version (size and time)."""

    def __init__(self, path: Path):
        self.path = path
        self.checked = set()

    def jsonl(self, file: Path, allow_torn: bool):
        """The objects of a JSON-lines file; (objects, torn) where torn says the last line was cut."""
        data = file.read_bytes()
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline
        objects = []
        for number, line in enumerate(lines, 1):
            assert line, f"{file}: empty line {number}"
            objects.append(json.loads(line))  # a whole line that does not parse fails the test here
        torn = tail != b""
        if torn:
            try:
                objects.append(json.loads(tail))
                torn = False  # whole but for its newline
            except ValueError:
                assert allow_torn, f"{file}: torn last line {tail[:80]!r}"
        return objects, torn

    def check(self, allow_torn: bool):
        """Checks every file; returns the names of files with a torn last line."""
        torn_files = []
        journal = self.path / "jobs.jsonl"
        if journal.exists():
            lines, torn = self.jsonl(journal, allow_torn)
            for line in lines:
                assert "id" in line or set(line) == {"forgotten"}, f"jobs.jsonl: {line}"
            if torn:
                torn_files.append(journal.name)
        for segment in sorted((self.path / "history").glob("archive-*.jsonl")):
            lines, torn = self.jsonl(segment, allow_torn)
            for job in lines:
                assert job["state"] in TERMINAL, f"{segment.name}: an archived job that had not ended: {job}"
            if torn:
                torn_files.append(segment.name)
        for log in sorted((self.path / "logs").glob("*.jsonl")):
            version = (log, log.stat().st_size, log.stat().st_mtime_ns)
            if version in self.checked:
                continue
            lines, _ = self.jsonl(log, allow_torn=False)
            assert "first" in lines[0] and all("text" in line for line in lines[1:]), f"{log.name}: {lines[:2]}"
            self.checked.add(version)
        for numbers in sorted(self.path.glob("*.bin")):
            version = (numbers, numbers.stat().st_size, numbers.stat().st_mtime_ns)
            if version in self.checked:
                continue
            data = numbers.read_bytes()
            count = int(numbers.stem.split("-")[1])
            assert data[:8] == b"HRLDNUM1", f"{numbers.name}: magic {data[:8]!r}"
            stored_count, checksum = struct.unpack("<QQ", data[8:24])
            assert stored_count == count and len(data) == 24 + 4 * count, f"{numbers.name}: {stored_count} values, {len(data)} bytes"
            assert fnv1a64(data[24:]) == checksum, f"{numbers.name}: checksum"
            self.checked.add(version)
        return torn_files

    def leftovers(self):
        return [p.name for folder in (self.path, self.path / "logs", self.path / "history") if folder.exists()
                for p in folder.iterdir() if LEFTOVER.match(p.name)]

    def plant_torn_line(self, rng):
        """Cuts a copy of a whole line short at the end of the journal or the current archive segment:
        what a power loss in the middle of an append can leave (a SIGKILL between two writes cannot)."""
        segments = sorted((self.path / "history").glob("archive-*.jsonl"))
        file = rng.choice([self.path / "jobs.jsonl"] + segments[-1:])
        lines = file.read_bytes().splitlines()
        if not lines:
            return None
        with open(file, "ab") as out:
            out.write(lines[-1][: rng.randrange(1, len(lines[-1]))])
        return file.name


def test_sigkill_at_random_instants_loses_nothing_that_was_written(tmp_path):
    seed = int(os.environ.get("HERALD_CRASH_SEED") or random.randrange(1, 2**32))
    print(f"crash loop seed {seed} (rerun with HERALD_CRASH_SEED={seed})")
    rng = random.Random(seed)
    jobs_file = tmp_path / "jobs.json"
    # `hold` runs until the server that started it is gone (at most a minute), so every kill catches one
    # job running, whatever the machine's speed; it ends by itself once the server is, leaving no process.
    jobs_file.write_text(json.dumps({"kinds": {
        "spew": {"title": "Print many lines", "command": ["seq", "1", "{n}"], "concurrency": 2,
                 "params": {"n": {"type": "integer", "minimum": 1, "maximum": 1000000, "required": True}}},
        "hold": {"title": "Run until the server stops",
                 "command": ["/bin/sh", "-c", "for i in $(seq 600); do kill -0 $PPID 2>/dev/null || exit 0; sleep 0.1; done"]}}}))
    # Four finished jobs in memory and an archive of 30 (segments of 30): rotation happens several times.
    args = ("--jobs", str(jobs_file), "--workers", "4", "--recent-jobs", "4", "--history-jobs", "30", "--log-level", "warning")
    folder = DataFolder(tmp_path / "data")
    seen_finished = {}      # id -> the job object when it was seen finished
    seen_unfinished = set()
    created = {}            # id -> (createdAt, id) of every job ever listed
    counts = iter(rng.sample(range(1_000, 30_000), 2 * ROUNDS + 2))
    interrupted = 0
    segments_seen = set()
    last_hold = None        # the id of the `hold` job running at the last kill

    for round_number in range(ROUNDS + 1):
        where = f"round {round_number}, seed {seed}"
        torn = set(folder.check(allow_torn=True))
        if round_number > 0 and rng.random() < 0.2:
            planted = folder.plant_torn_line(rng)
            if planted:
                torn.add(planted)
        server = Herald(*args, root=tmp_path)  # fails here unless the server starts and prints its URL
        try:
            log = server.log()
            for name in torn:
                assert any(TORN_REPORT in line and name in line for line in log.splitlines()), f"{where}: {name} not reported:\n{log}"
            assert "unreadable" not in log and "corrupt" not in log, f"{where}:\n{log}"
            assert folder.leftovers() == [], f"{where}: temporary files a crash left were not removed"
            assert folder.check(allow_torn=False) == [], f"{where}: a torn line survived the restart"
            segments_seen.update(p.name for p in (folder.path / "history").glob("archive-*.jsonl"))

            jobs = {job["id"]: job for job in all_jobs(server)}
            assert all(job["state"] in TERMINAL for job in jobs.values()), f"{where}: unfinished after a restart"
            if last_hold:
                assert jobs[last_hold]["state"] == "interrupted", f"{where}: the job the kill caught running: {jobs[last_hold]}"
            for job_id in seen_unfinished:
                job = jobs.get(job_id)
                if job and job["state"] == "interrupted":
                    assert job["error"].startswith("the server stopped while this job was"), f"{where}: {job}"
                    interrupted += 1
            # Finished jobs are the same objects. Rotation may delete old ones: a job is deleted only once
            # more than 30 jobs left memory after it, and at most 7 of those (one round's, unfinished
            # meanwhile) were created before it. So a job with at most 20 newer jobs must be there.
            created.update({job["id"]: (job["createdAt"], job["id"]) for job in jobs.values()})
            keys = sorted(created.values())
            for job_id, job in seen_finished.items():
                if job_id in jobs:
                    assert jobs[job_id] == job, f"{where}: finished job changed:\n{job}\n{jobs[job_id]}"
                else:
                    newer = len(keys) - 1 - keys.index((job["createdAt"], job_id))
                    assert newer > 20, f"{where}: finished job {job_id} lost with only {newer} newer jobs"
            seen_unfinished.clear()
            if round_number == ROUNDS:
                break

            status, hold = server.json("POST", "/api/jobs", {"kind": "hold"})
            assert status == 202, f"{where}: {hold}"
            last_hold = hold["id"]
            for body in ([{"kind": "sort", "params": {"count": next(counts)}} for _ in range(2)]
                         + [{"kind": "spew", "params": {"n": rng.randrange(5_000, 40_000)}} for _ in range(2)]
                         + [{"kind": "fetch"}] * 2):
                status, job = server.json("POST", "/api/jobs", body)
                assert status == 202, f"{where}: {job}"
            wait_for(lambda: server.json("GET", f"/api/jobs/{hold['id']}")[1]["state"] == "running", what=f"{where}: hold running")
            time.sleep(rng.uniform(0, 0.3))
            for job in all_jobs(server):
                created[job["id"]] = (job["createdAt"], job["id"])
                if job["state"] in TERMINAL:
                    seen_finished[job["id"]] = job
                else:
                    seen_unfinished.add(job["id"])
            server.process.kill()
            server.process.wait()
        finally:
            server.stop()

    assert interrupted > 0, f"seed {seed}: no kill ever caught a job running; the test tested nothing"
    assert len(seen_finished) > ROUNDS, f"seed {seed}: too few jobs finished to check anything"
    assert max(segments_seen) > "archive-00000002.jsonl", f"seed {seed}: the archive never rotated: {segments_seen}"
