"""Schedules fired by a real server (docs/schedules.md): an `every` interval fires once per
occurrence, `overlap` skip/queue/replace, catch-up after the server was down, pause and resume over
REST (persisted across a restart), and clear refusals; the same over the WebSocket's `schedules` and
`schedule` commands, and `herald schedules list|pause|resume|run`.
"""

import json
import os
import subprocess
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import websocket

from testkit import Herald, contract, herald_binary, wait_for


def jobs_file(tmp_path, schedules, sleep=0.0):
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps({
        "kinds": {"nap": {"title": "Nap", "command": ["sleep", "{s}"], "concurrency": 4,
                          "params": {"s": {"type": "number", "minimum": 0, "maximum": 60, "default": sleep}}}},
        "schedules": schedules}))
    return path


def schedules(server):
    status, body = server.json("GET", "/api/schedules")
    assert status == 200, body
    return {entry["name"]: entry for entry in body["schedules"]}


def jobs_of(server, name):
    status, body = server.json("GET", "/api/jobs?limit=500")
    assert status == 200, body
    return sorted((job for job in body["jobs"] if job.get("schedule") == name), key=lambda job: job["createdAt"])


def test_an_interval_fires_once_per_occurrence_and_jobs_say_which_schedule(tmp_path):
    # What the schedule guarantees, whatever the machine's speed: the occurrences are the 2 s grid from
    # the first after the start on, each handled once (fired, or skipped while the last job ran), none
    # missed, each job started at or after its occurrence. Not how far apart the jobs started: a busy
    # machine may start two in one second, both on time.
    started = time.time() * 1000
    server = Herald("--jobs", str(jobs_file(tmp_path, {"often": {"kind": "nap", "every": "2s"}})), root=tmp_path)
    try:
        wait_for(lambda: schedules(server)["often"]["fired"] >= 5, timeout=30, what="five occurrences of an every-2s schedule")
        status, body = server.json("POST", "/api/schedules/often/pause")
        assert status == 200 and body["paused"] is True, body

        def settled():
            """The status and the schedule's jobs once an occurrence handled as the pause came is done."""
            before, jobs, after = schedules(server)["often"], jobs_of(server, "often"), schedules(server)["often"]
            return (after, jobs) if before == after and len(jobs) == after["fired"] else None

        status, jobs = wait_for(settled, what="the paused schedule's status and jobs agreeing")
        assert status["every"] == "2s" and status["missed"] == 0
        assert {job["startedBy"] for job in jobs} == {"schedule:often"} and len({job["id"] for job in jobs}) == len(jobs)
        last = status["last"]["at"]
        assert last % 2000 == 0, f"occurrences are on the 2 s grid: {last}"
        handled = status["fired"] + status["skipped"]
        first = last - 2000 * (handled - 1)
        assert started - 1000 < first, f"the first occurrence handled is the first after the start: {first}, started {started}"
        created = [job["createdAt"] for job in jobs]
        assert first <= created[0], f"no job before the first occurrence: {first} > {created[0]}"
        if status["skipped"] == 0:
            # One job per occurrence, in order: the i-th started at or after the i-th occurrence.
            assert all(at >= first + 2000 * index for index, at in enumerate(created)), (first, created)
        assert status["last"]["job"] in {job["id"] for job in jobs} or status["last"]["outcome"] == "skipped"
        metrics = server.request("GET", "/metrics")[1]
        assert 'herald_schedule_occurrences_total{schedule="often",outcome="fired"}' in metrics
    finally:
        server.stop()


def overlapping(jobs):
    """Pairs of jobs whose runs overlapped."""
    runs = [(job["startedAt"], job.get("finishedAt") or 10**15, job["id"]) for job in jobs if job.get("startedAt")]
    runs.sort()
    return [(a[2], b[2]) for a, b in zip(runs, runs[1:]) if b[0] < a[1]]


def test_overlap_skip_queue_and_replace(tmp_path):
    server = Herald("--jobs", str(jobs_file(tmp_path, {
        "skipper": {"kind": "nap", "params": {"s": 2.5}, "every": "1s", "overlap": "skip"},
        "queuer": {"kind": "nap", "params": {"s": 2.5}, "every": "1s", "overlap": "queue"},
        "replacer": {"kind": "nap", "params": {"s": 30}, "every": "1s", "overlap": "replace"},
    })), "--workers", "8", root=tmp_path)
    try:
        wait_for(lambda: schedules(server)["skipper"]["skipped"] >= 3 and schedules(server)["skipper"]["fired"] >= 2,
                 timeout=20, what="skip to skip occurrences while its job runs")
        assert overlapping(jobs_of(server, "skipper")) == [], "skip: never two jobs at once"

        wait_for(lambda: len([job for job in jobs_of(server, "queuer") if job["state"] == "succeeded"]) >= 2,
                 timeout=20, what="queued occurrences to run one after another")
        queued = jobs_of(server, "queuer")
        assert overlapping(queued) == [], "queue: one after another"
        assert schedules(server)["queuer"]["skipped"] == 0, "queue: nothing skipped while the queue has room"

        replaced = wait_for(lambda: [job for job in jobs_of(server, "replacer") if job["state"] == "cancelled"],
                            timeout=20, what="replace to cancel the running job")
        assert replaced[0]["error"] == "cancelled by request"
        assert len([job for job in jobs_of(server, "replacer") if job["state"] == "running"]) <= 1
    finally:
        server.stop()


@pytest.mark.parametrize("catch_up,expected", [("none", 0), ("one", 1), ("all", 3)])
def test_a_server_down_across_occurrences_catches_up_as_configured(tmp_path, catch_up, expected):
    declaration = {"kind": "nap", "cron": "* * * * *", "catchUp": catch_up, "overlap": "queue"}
    if catch_up == "all":
        declaration["catchUpLimit"] = 3
    path = jobs_file(tmp_path, {"minutely": declaration})
    # The server was last up ten minutes ago: what it wrote then says so.
    data = tmp_path / "data"
    data.mkdir()
    last = int(time.time()) // 60 * 60 - 600
    (data / "schedules.json").write_text(json.dumps({"version": 1, "schedules": {"minutely": {"lastOccurrence": last, "paused": False}}}))
    server = Herald("--jobs", str(path), root=tmp_path)
    try:
        # The ten minutes since: 9 occurrences were missed (past the grace), and the current minute's
        # comes due now as well (on time). catchUp decides how many of the 9 fire.
        status = wait_for(lambda: (lambda s: s if s["fired"] >= expected + 1 else None)(schedules(server)["minutely"]),
                          what="the catch-up and the current occurrence to fire")
        assert status["missed"] == 9 - expected, status
        assert status["fired"] in (expected + 1, expected + 2), f"the minute may turn meanwhile: {status}"
        assert len(jobs_of(server, "minutely")) == status["fired"]
        saved = json.loads((data / "schedules.json").read_text())["schedules"]["minutely"]
        assert saved["lastOccurrence"] >= last + 600, "the new standing is written before the jobs start"
    finally:
        server.stop()


def test_pause_and_resume_over_rest_last_across_a_restart(tmp_path):
    path = jobs_file(tmp_path, {"paused-one": {"kind": "nap", "every": "1s"}, "clock": {"kind": "nap", "every": "1s"}})
    server = Herald("--jobs", str(path), "--token", "s3cret", root=tmp_path)
    auth = {"Authorization": "Bearer s3cret"}
    try:
        status, body = server.json("POST", "/api/schedules/paused-one/pause")
        assert status == 401, body
        status, body = server.json("POST", "/api/schedules/paused-one/pause", headers=auth)
        assert status == 200 and body["paused"] is True and body["next"] is None, body
        fired = body["fired"]
        # The other schedule is the clock: two of its occurrences pass while this one stays paused.
        clock = schedules(server)["clock"]["fired"]
        wait_for(lambda: schedules(server)["clock"]["fired"] >= clock + 2, what="two occurrences of the clock schedule")
        assert schedules(server)["paused-one"]["fired"] == fired, "a paused schedule fires nothing"

        status, body = server.json("POST", "/api/schedules/nope/pause", headers=auth)
        assert status == 404 and body["code"] == "not_found" and "paused-one" in body["message"], body
        status, body = server.json("POST", "/api/schedules/clock/explode", headers=auth)
        assert status == 404 and "pause, resume, run" in body["message"], body
    finally:
        server.stop()

    restarted = Herald("--jobs", str(path), "--token", "s3cret", root=tmp_path)
    try:
        assert schedules(restarted)["paused-one"]["paused"] is True, "a pause outlives a restart"
        status, body = restarted.json("POST", "/api/schedules/paused-one/run", headers=auth)
        assert status == 200 and body["last"]["job"], body
        assert restarted.json("GET", f"/api/jobs/{body['last']['job']}")[1]["startedBy"] == "schedule:paused-one"
        status, body = restarted.json("POST", "/api/schedules/paused-one/resume", headers=auth)
        assert status == 200 and body["paused"] is False and body["next"], body
        wait_for(lambda: schedules(restarted)["paused-one"]["fired"] >= 2, what="a resumed schedule to fire again")
    finally:
        restarted.stop()


def test_two_cluster_nodes_fire_each_occurrence_once_also_when_one_is_killed(tmp_path, redis_server):
    path = jobs_file(tmp_path, {"tick": {"kind": "nap", "every": "1s"}})
    cluster = ("--jobs", str(path), "--redis", redis_server.url)
    first = Herald(*cluster, "--node", "n1", root=tmp_path / "n1")
    second = Herald(*cluster, "--node", "n2", root=tmp_path / "n2")
    try:
        def once_each(count):
            jobs = jobs_of(first, "tick")
            if len(jobs) < count:
                return None
            ids = [job["id"] for job in jobs]
            assert len(set(ids)) == len(ids), f"a job listed twice while jobs were being made: {ids}"
            # Each occurrence is claimed in Redis before its job is made, so claims are never fewer
            # than jobs; an occurrence both nodes fired would make one more job than claims. (Not
            # how far apart the jobs started: a tick late on a busy machine fires two at once.)
            claimed = redis_server.command("KEYS", "herald:occurrence:tick:*")
            fired = [(job["node"], job["createdAt"]) for job in jobs]
            assert len(jobs) <= len(claimed), f"an occurrence fired twice: {len(claimed)} claimed, jobs (node, createdAt) {fired}"
            return jobs

        jobs = wait_for(lambda: once_each(6), timeout=30, what="six occurrences across two nodes")
        fired = schedules(first)["tick"]["fired"] + schedules(second)["tick"]["fired"]
        assert fired >= len(jobs), "each job was fired by one of the two nodes"
        assert {job["node"] for job in jobs} <= {"n1", "n2"}

        second.process.kill()
        second.process.wait()
        before = len(jobs_of(first, "tick"))
        wait_for(lambda: once_each(before + 3), timeout=30, what="the node left to fire the next occurrences")
        assert {job["node"] for job in jobs_of(first, "tick")[-2:]} == {"n1"}
    finally:
        first.stop()
        second.stop()


# Neither rule comes due while a test runs (but once in years, in the very second): 02:30 on the 29th
# of February, and every 366 days counted from 1970 (such as 2026-02-12 and 2027-02-13).
RARE = {"leap": {"kind": "nap", "cron": "30 2 29 2 *", "timezone": "Europe/Berlin"},
        "yearly": {"kind": "nap", "every": "366d"}}


def herald_cli(*args, env=None):
    return subprocess.run([str(herald_binary()), *args], capture_output=True, text=True, timeout=30,
                          env=None if env is None else {**os.environ, **env})


def local(millis, zone):
    """What the CLI prints for an epoch-ms instant in `zone`, computed by Python's zoneinfo."""
    return datetime.fromtimestamp(millis // 1000, ZoneInfo(zone)).isoformat()


def table(stdout):
    """`herald schedules list`'s rows by name: the columns split on runs of two or more spaces."""
    lines = stdout.splitlines()
    header = lines[0].split()
    assert header == ["NAME", "RULE", "PAUSED", "NEXT", "FIRED", "SKIPPED", "MISSED", "LAST"], lines[0]
    starts = [lines[0].index(name) for name in header]
    rows = {}
    for line in lines[1:]:
        cells = [line[start:end].strip() for start, end in zip(starts, starts[1:] + [len(line)])]
        rows[cells[0]] = dict(zip(header, cells))
    return rows


def test_herald_schedules_lists_pauses_resumes_and_runs_with_the_token(tmp_path):
    server = Herald("--jobs", str(jobs_file(tmp_path, RARE)), "--token", "s3cret", root=tmp_path)
    try:
        listed = herald_cli("schedules", "list", server.url, env={"TZ": "America/New_York"})
        assert listed.returncode == 0, listed.stderr
        rows = table(listed.stdout)
        assert list(rows) == ["leap", "yearly"], listed.stdout
        rest = schedules(server)
        assert rows["leap"]["RULE"] == "30 2 29 2 * (Europe/Berlin)" and rows["yearly"]["RULE"] == "every 366d"
        for name in rows:
            assert rows[name]["PAUSED"] == "no" and rows[name]["LAST"] == "-", listed.stdout
            assert (rows[name]["FIRED"], rows[name]["SKIPPED"], rows[name]["MISSED"]) == ("0", "0", "0")
            assert rows[name]["NEXT"] == local(rest[name]["next"], "America/New_York"), "the next run in local time"
        assert rows["leap"]["NEXT"][4:] == "-02-28T20:30:00-05:00", "02:30 on the 29th in Berlin is 20:30 the day before in New York"

        refused = herald_cli("schedules", "pause", "leap", server.ws)
        assert refused.returncode == 1 and "unauthorized" in refused.stderr, refused
        assert schedules(server)["leap"]["paused"] is False, "refused without the token"

        paused = herald_cli("schedules", "pause", "leap", "--token", "s3cret", server.ws)
        assert paused.returncode == 0 and paused.stdout == "leap: paused\n", paused
        assert schedules(server)["leap"]["paused"] is True and schedules(server)["leap"]["next"] is None
        row = table(herald_cli("schedules", "list", server.ws).stdout)["leap"]
        assert (row["PAUSED"], row["NEXT"]) == ("yes", "-"), row

        resumed = herald_cli("schedules", "resume", "leap", server.url, env={"HERALD_TOKEN": "s3cret", "TZ": "UTC"})
        assert resumed.returncode == 0, resumed
        after = schedules(server)["leap"]
        assert after["paused"] is False and resumed.stdout == f"leap: resumed; next {local(after['next'], 'UTC')}\n", resumed

        ran = herald_cli("schedules", "run", "yearly", "--token", "s3cret", server.ws)
        assert ran.returncode == 0, ran
        job = ran.stdout.strip()
        assert server.json("GET", f"/api/jobs/{job}")[1]["startedBy"] == "schedule:yearly"
        status = schedules(server)["yearly"]
        assert status["fired"] == 1 and status["last"]["job"] == job, status
        row = table(herald_cli("schedules", "list", server.ws, env={"TZ": "UTC"}).stdout)["yearly"]
        assert row["FIRED"] == "1" and row["LAST"].startswith(local(status["last"]["at"], "UTC")) and row["LAST"].endswith(job), row

        unknown = herald_cli("schedules", "run", "nightly", "--token", "s3cret", server.ws)
        assert unknown.returncode == 1 and unknown.stdout == "", unknown
        assert 'no schedule "nightly"; known: leap, yearly' in unknown.stderr, unknown.stderr
    finally:
        server.stop()
    gone = herald_cli("schedules", "list", server.ws)
    assert gone.returncode == 2 and "cannot connect" in gone.stderr, gone


def test_a_server_without_schedules_lists_none(tmp_path):
    server = Herald(root=tmp_path)
    try:
        listed = herald_cli("schedules", "list", server.ws)
        assert listed.returncode == 0 and listed.stdout == "no schedules: the server's jobs file declares none\n", listed
        refused = herald_cli("schedules", "pause", "any", server.ws)
        assert refused.returncode == 1 and "the jobs file declares none" in refused.stderr, refused
    finally:
        server.stop()


def test_the_websocket_commands_answer_as_rest_does(tmp_path):
    server = Herald("--jobs", str(jobs_file(tmp_path, RARE)), "--token", "s3cret", root=tmp_path)
    viewer = websocket.create_connection(server.ws, timeout=10)
    try:
        def ask(command):
            viewer.send(json.dumps(command))
            while True:
                message = contract.server_message(viewer.recv())
                if message.get("requestId") == command.get("requestId"):
                    return message

        assert contract.server_message(viewer.recv())["type"] == "snapshot"
        listed = ask({"type": "schedules", "requestId": "l1"})
        assert listed["type"] == "schedules" and listed["schedules"] == server.json("GET", "/api/schedules")[1]["schedules"]

        refused = ask({"type": "schedule", "name": "leap", "action": "pause", "requestId": "p1"})
        assert refused["type"] == "error" and refused["code"] == "unauthorized", refused
        bad = ask({"type": "schedule", "name": "leap", "action": "explode", "requestId": "p2"})
        assert bad["code"] == "bad_request" and bad["message"] == "action: must be one of pause, resume, run", bad

        assert ask({"type": "auth", "token": "s3cret", "requestId": "a"})["type"] == "accepted"
        paused = ask({"type": "schedule", "name": "leap", "action": "pause", "requestId": "p3"})
        assert paused["type"] == "schedule" and paused["schedule"]["paused"] is True
        assert paused["schedule"] == schedules(server)["leap"]
        missing = ask({"type": "schedule", "name": "nope", "action": "run", "requestId": "p4"})
        assert missing["code"] == "not_found" and "known: leap, yearly" in missing["message"], missing
    finally:
        viewer.close()
        server.stop()
