"""Faults a real network makes (issue #38), between hosts in network namespaces (testkit.netns): Redis
on one host, nodes n1 and n2 on two more, workers on two others, viewers on their own. A link is cut
by dropping its packets in the hub (no RST, no FIN: a silent partition), then healed, and the test
counts what every side saw. Needs root (CI runs as root); skipped with the reason elsewhere.

Short leases and keepalives (flags) keep each test to seconds: a node's lease 2 s, a worker's 2 s,
a silent connection pinged after 1 s and dropped after 4 s.
"""

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from testkit import Herald, all_jobs, herald_binary, wait_for
from testkit import netns
from testkit.redis_server import RedisServer
from test_jobs_file import script, write_jobs
from test_workers import Viewer, alive

NODE_LEASE = 2
WORKER_LEASE = 2
PING_AFTER, HANGUP_AFTER = 1, 4
TOKEN = "worker-secret-38"
TERMINAL = ("succeeded", "failed", "cancelled", "interrupted")

_why_not = netns.unavailable()
pytestmark = pytest.mark.skipif(_why_not is not None, reason=f"hosts in network namespaces: {_why_not}")


def terminal(message, job=None):
    return (message.get("type") == "job" and message["job"]["state"] in TERMINAL
            and (job is None or message["job"]["id"] == job))


def metric(node, name) -> float:
    text = node.request("GET", "/metrics")[1]
    line = next(line for line in text.splitlines() if line.startswith(name + " ") or line.startswith(name + "{"))
    return float(line.split()[-1])


class Lan:
    """The hosts and what runs on them. Every program writes its pid to pids/ (for the final kill of
    any a test left behind), and the `once` kinds' programs check that no other run of their job lives."""

    def __init__(self, network: netns.Network, folder: Path):
        self.network = network
        self.folder = folder
        self.pids = folder / "pids"
        self.pids.mkdir()
        self.overlaps = folder / "overlaps"
        self.overlaps.touch()
        self.workers = {}
        self.viewers = []
        self.redis_host = network.host("redis")
        self.n1_host, self.n2_host = network.host("n1"), network.host("n2")
        self.w1_host, self.w2_host = network.host("w1"), network.host("w2")
        self.viewer_host = network.host("viewers")
        self.redis = RedisServer(folder / "redis", host=self.redis_host)
        count = script(folder, "count.sh", f"""
echo $$ > {self.pids}/$HERALD_JOB_ID-$HERALD_ATTEMPT
i=0
while [ "$i" -lt "$1" ]; do
  i=$((i + 1))
  echo "{{\\"completed\\": $i, \\"total\\": $1, \\"message\\": \\"attempt $HERALD_ATTEMPT item $i\\"}}"
  sleep 0.1
done
echo '{{"result": {{"items": '$1'}}}}'
""")
        # A run writes its pid file first, then looks for another live run of its job: two runs that
        # overlap find each other whichever starts first.
        once = script(folder, "once.sh", f"""
mine={self.pids}/$HERALD_JOB_ID.$$
echo $$ > "$mine"
now=$(date +%s.%N)
for other in {self.pids}/$HERALD_JOB_ID.*; do
  [ "$other" = "$mine" ] && continue
  pid=$(cat "$other" 2>/dev/null) || continue
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && ! grep -q '^State:.Z' /proc/$pid/status 2>/dev/null; then
    echo "$HERALD_JOB_ID attempt $HERALD_ATTEMPT ($$) began at $now while $pid ran ($other)" >> {self.overlaps}
  fi
done
sleep "$1"
rm -f "$mine"
echo '{{"result": {{"ok": true}}}}'
""")
        params = {"n": {"type": "integer", "default": 5, "minimum": 1}}
        seconds = {"s": {"type": "number", "default": 0.2, "minimum": 0}}
        sturdy = {"command": [count, "{n}"], "params": params, "retries": 2, "retryDelay": 0.1, "grace": 1}
        # `count` and `remote` run on workers only: the nodes declare them without a command.
        self.jobs = write_jobs(folder, {
            "count": {"params": params, "retries": 2, "retryDelay": 0.1, "concurrency": 8},
            "remote": {"params": seconds, "retries": 3, "retryDelay": 0.1, "concurrency": 16},
            "sturdy": sturdy,
            "local": {"command": [once, "{s}"], "params": seconds, "retries": 3, "retryDelay": 0.1, "concurrency": 16},
        })
        self.worker_jobs = folder / "worker-jobs.json"
        self.worker_jobs.write_text(json.dumps({"kinds": {
            "count": {"command": [count, "{n}"], "params": params, "retries": 2, "retryDelay": 0.1, "grace": 1},
            "remote": {"command": [once, "{s}"], "params": seconds, "retries": 3, "retryDelay": 0.1, "grace": 1},
        }}))
        self.n1 = self.node("n1", self.n1_host)
        self.n2 = self.node("n2", self.n2_host)

    def node(self, name, host) -> Herald:
        return Herald("--redis", self.redis.url, "--node", name, "--jobs", str(self.jobs), "--node-lease", str(NODE_LEASE),
                      "--worker-lease", str(WORKER_LEASE), "--worker-token", TOKEN, "--ping-after", str(PING_AFTER),
                      "--hangup-after", str(HANGUP_AFTER), "--workers", "8", "--grace", "1",
                      root=self.folder / name, host=host)

    def worker(self, name, host, node, slots=1):
        log = open(self.folder / f"work-{name}.log", "w")
        process = host.popen([herald_binary(), "work", "--server", node.url, "--jobs", self.worker_jobs, "--name", name,
                              "--slots", slots, "--token", TOKEN], stdout=log, stderr=subprocess.STDOUT)
        self.workers[name] = (process, log)
        wait_for(lambda: name in [w["name"] for w in node.json("GET", "/api/workers")[1]["workers"]],
                 what=f"worker {name} attached")
        return process

    def worker_log(self, name) -> str:
        return (self.folder / f"work-{name}.log").read_text()

    def viewer(self, node, query="") -> Viewer:
        viewer = self.viewer_host.call(lambda: Viewer(node.ws + query, timeout=60))
        self.viewers.append(viewer)
        wait_for(lambda: viewer.messages, what="the first message")
        return viewer

    def start(self, node, kind, params):
        return node.json("POST", "/api/jobs", {"kind": kind, "params": params})

    def job(self, node, job_id):
        return node.json("GET", f"/api/jobs/{job_id}")[1]

    def stop(self):
        for rule in list(self.network.rules):
            self.network.heal(self.network.hosts[rule[0]], self.network.hosts[rule[1]])
        for viewer in self.viewers:
            viewer.close()
        for process, log in self.workers.values():
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            log.close()
        for node in (self.n1, self.n2):
            node.stop()
        self.redis.stop()
        # Runs a test left behind (a worker killed mid-job leaves its program): each in its own group.
        for path in self.pids.iterdir():
            try:
                os.killpg(int(path.read_text().strip()), signal.SIGKILL)
            except (ProcessLookupError, PermissionError, ValueError):
                pass


@pytest.fixture
def network():
    made = netns.Network()
    yield made
    made.close()


@pytest.fixture
def lan(network):
    folder = tempfile.TemporaryDirectory(prefix="herald-netns-")
    built = None
    try:
        built = Lan(network, Path(folder.name))
        yield built
    finally:
        if built:
            built.stop()
        folder.cleanup()


def received(viewer):
    """What a viewer received so far, not yet checked against the contract (`Viewer.seen` checks)."""
    with viewer.lock:
        return list(viewer.messages)


def snapshot_then_events(viewer):
    """The viewer's events after its last snapshot, by seq."""
    seen = viewer.seen()
    last = max(index for index, message in enumerate(seen) if message.get("type") == "snapshot")
    return {message["seq"]: message for message in seen[last + 1:] if "seq" in message}


def test_a_worker_cut_off_mid_job_stops_its_run_itself_before_the_job_goes_to_another(lan):
    viewer = lan.viewer(lan.n1)
    lan.worker("alpha", lan.w1_host, lan.n1)
    status, job = lan.start(lan.n1, "count", {"n": 80})
    assert status == 202, job
    job = job["id"]
    wait_for(lambda: (lambda j: j["state"] == "running" and j["progress"]["completed"] > 0)(lan.job(lan.n1, job)),
             what="running on alpha")
    first_run = int(wait_for(lambda: (lan.pids / f"{job}-1").exists() and (lan.pids / f"{job}-1").read_text().strip(),
                             what="attempt 1's pid"))
    lan.worker("beta", lan.w2_host, lan.n1)
    lan.network.cut(lan.w1_host, lan.n1_host)
    cut_at = time.monotonic()
    # Beta's program writes its pid file first thing: by then alpha's run must be gone. Alpha hears no
    # answer to its beats and stops the run at half its lease, before the server's lease (renewed when
    # it read alpha's last answered beat, or later) runs out and the job moves on.
    second = lan.pids / f"{job}-2"
    wait_for(second.exists, what="attempt 2's program", timeout=WORKER_LEASE + 10)
    assert not alive(first_run), "attempt 2 began while attempt 1 still ran on the worker cut off"
    retried = wait_for(lambda: (lambda j: j if j["state"] == "running" and j.get("attempt") == 2 else None)(lan.job(lan.n1, job)),
                       what="attempt 2 running", timeout=WORKER_LEASE + 10)
    assert time.monotonic() - cut_at <= WORKER_LEASE + 5, "moved on within the lease and 5 s"
    assert retried["worker"] == "beta"
    assert lan.network.dropped() > 0, "the cut dropped packets"
    stopped = [line for line in lan.worker_log("alpha").splitlines()
               if f"job {job} attempt 1:" in line and "no answer from the server" in line]
    assert stopped, f"alpha says why it stopped the run: {lan.worker_log('alpha')}"
    lan.network.heal(lan.w1_host, lan.n1_host)
    ended = wait_for(lambda: (lambda j: j if j["state"] in TERMINAL else None)(lan.job(lan.n1, job)), what="the end", timeout=30)
    assert (ended["state"], ended["attempt"], ended["worker"], ended["summary"]) == ("succeeded", 2, "beta", {"items": 80})
    assert lan.job(lan.n2, job)["state"] == "succeeded", "the same end on the other node"
    ends = wait_for(lambda: [m for m in viewer.seen() if terminal(m, job)], what="the viewer sees the end")
    assert len(ends) == 1, ends
    # After attempt 2 began, nothing of attempt 1 reached the viewers.
    seen = viewer.seen()
    begun = next(i for i, m in enumerate(seen) if m.get("type") == "job" and m["job"]["id"] == job and m["job"].get("attempt") == 2)
    late = [m for m in seen[begun:] if m.get("type") == "progress" and (m.get("message") or "").startswith("attempt 1")]
    assert late == []
    viewer.assert_no_gap()


def runner(viewer, job):
    """The node that runs `job`'s first attempt, once a viewer saw it start."""
    return wait_for(lambda: next((m["job"]["node"] for m in viewer.seen() if m.get("type") == "job" and m["job"]["id"] == job
                                  and m["job"]["state"] == "running"), None), what=f"{job} to run")


def test_a_node_cut_off_from_redis_is_degraded_its_job_moves_on_and_after_the_heal_nothing_is_duplicated(lan):
    viewers = {"n1": lan.viewer(lan.n1), "n2": lan.viewer(lan.n2)}
    status, job = lan.start(lan.n1, "sturdy", {"n": 60})
    assert status == 202, job
    job = job["id"]
    name = runner(viewers["n2"], job)
    cut, other = (lan.n1, lan.n2) if name == "n1" else (lan.n2, lan.n1)
    cut_host = lan.n1_host if name == "n1" else lan.n2_host
    wait_for(lambda: any(m.get("type") == "progress" and m["job"] == job for m in viewers["n2"].seen()), what="progress")
    lan.network.cut(cut_host, lan.redis_host)
    cut_at = time.monotonic()
    # Its viewers stay connected to it and it tells them, and /healthz, that it cannot reach Redis.
    status, health = wait_for(lambda: (lambda answer: answer if answer[0] == 503 else None)(cut.json("GET", "/healthz")),
                              what="/healthz degraded", timeout=NODE_LEASE + 10)
    assert health["status"] == "degraded" and "redis" in health["reason"].lower(), health
    assert metric(cut, 'herald_cluster_degraded') == 1
    # ... and so does the stream, to its own viewers (the dashboard's banner), outside `seq`.
    said = wait_for(lambda: next((m for m in received(viewers[name]) if m.get("type") == "health"), None),
                    what="the cut node's viewers told it is degraded", timeout=10)
    assert said["status"] == "degraded" and "redis" in said["reason"].lower() and "seq" not in said, said
    status, refused = lan.start(cut, "sturdy", {"n": 3})
    assert status == 503 and refused["code"] == "unavailable", refused
    # The job's lease runs out; the other node takes it over and runs it to its end.
    taken = wait_for(lambda: next((m["job"] for m in viewers["n2" if cut is lan.n1 else "n1"].seen()
                                   if m.get("type") == "job" and m["job"]["id"] == job and m["job"].get("attempt") == 2), None),
                     what="attempt 2 on the other node", timeout=NODE_LEASE + 15)
    assert taken["node"] != name
    assert time.monotonic() - cut_at <= NODE_LEASE + 5 + 5, "taken over within the lease and a few seconds"
    # Meanwhile the cut node held back: no attempt from half its lease, its running one stopped at the
    # whole lease (before the other node could take the job over).
    assert "it starts no attempt until it does" in cut.log()
    wait_for(lambda: "it stops its 1 running attempt(s)" in cut.log(), what="the cut node stops its attempt", timeout=10)
    watcher = viewers["n2" if cut is lan.n1 else "n1"]
    ended = wait_for(lambda: next((m["job"] for m in watcher.seen() if terminal(m, job)), None), what="the end", timeout=30)
    assert (ended["state"], ended["attempt"]) == ("succeeded", 2), ended
    assert all(viewer.thread.is_alive() for viewer in viewers.values()), "the cut node's viewers stayed connected"
    lan.network.heal(cut_host, lan.redis_host)
    wait_for(lambda: cut.json("GET", "/healthz")[0] == 200, what="healthy again", timeout=30)
    wait_for(lambda: [m for m in received(viewers[name]) if m.get("type") == "health"][-1]["status"] == "ok",
             what="the cut node's viewers told it is well again", timeout=10)
    # Fenced: Redis refused the cut node's buffered writes about the job it lost, and it stopped its copy.
    wait_for(lambda: "is no longer this node's" in cut.log(), what="the cut node stops its copy", timeout=20)
    assert metric(cut, "herald_cluster_stale_writes_total") >= 1
    # Both nodes' viewers end with the same history: one end of the job, the same events under each seq.
    cut_viewer = viewers[name]
    wait_for(lambda: any(terminal(m, job) for m in cut_viewer.seen()), what="the cut node's viewer sees the end", timeout=30)
    for viewer in viewers.values():
        assert len([m for m in viewer.seen() if terminal(m, job)]) == 1
        viewer.assert_no_gap()
    watched, caught_up = snapshot_then_events(watcher), snapshot_then_events(cut_viewer)
    common = sorted(set(watched) & set(caught_up))
    assert common and [watched[seq] for seq in common] == [caught_up[seq] for seq in common]
    # After attempt 2 began, nothing of the cut node's attempt 1 reached the stream: its buffered
    # progress was not appended after the heal.
    seen = watcher.seen()
    begun = next(i for i, m in enumerate(seen) if m.get("type") == "job" and m["job"]["id"] == job and m["job"].get("attempt") == 2)
    late = [m for m in seen[begun:] if m.get("type") == "progress" and m["job"] == job and (m.get("message") or "").startswith("attempt 1")]
    assert late == [], late
    # And the record is the same on both nodes.
    assert lan.job(lan.n1, job) == lan.job(lan.n2, job)


def test_a_half_open_viewer_is_dropped_within_the_keepalive_and_resumes_after_the_heal(lan):
    viewer = lan.viewer(lan.n1)
    wait_for(lambda: metric(lan.n1, "herald_connections_open") >= 1, what="the viewer counted")
    open_before = metric(lan.n1, "herald_connections_open")
    closes_before = metric(lan.n1, "herald_silent_peer_closes_total")
    status, job = lan.start(lan.n1, "sturdy", {"n": 40})
    assert status == 202, job
    job = job["id"]
    wait_for(lambda: any(m.get("type") == "progress" and m["job"] == job for m in viewer.seen()), what="progress")
    lan.network.cut(lan.viewer_host, lan.n1_host)
    cut_at = time.monotonic()
    # The server pings the silent viewer, hears nothing, and frees the connection.
    wait_for(lambda: metric(lan.n1, "herald_silent_peer_closes_total") == closes_before + 1, what="the silent viewer dropped",
             timeout=HANGUP_AFTER + 10)
    assert time.monotonic() - cut_at <= HANGUP_AFTER + 2, "within the keepalive's bound (and its one-second sweep)"
    assert metric(lan.n1, "herald_connections_open") == open_before - 1
    seen = viewer.seen()
    epoch = next(m["epoch"] for m in seen if m.get("type") == "snapshot")
    last = max(m["seq"] for m in seen if "seq" in m)
    wait_for(lambda: lan.job(lan.n1, job)["state"] in TERMINAL, what="the job's end while the viewer is away", timeout=30)
    lan.network.heal(lan.viewer_host, lan.n1_host)
    viewer.close()
    resumed = lan.viewer(lan.n1, f"?epoch={epoch}&since={last}")
    wait_for(lambda: any(terminal(m, job) for m in resumed.seen()), what="the end, resumed")
    after = resumed.seen()
    assert not any(m.get("type") == "snapshot" for m in after), "the missed events, not a snapshot"
    seqs = [m["seq"] for m in after if "seq" in m]
    assert seqs[0] == last + 1 and seqs == list(range(last + 1, last + 1 + len(seqs))), "nothing missing"
    # The events missed are all there: every progress step after the last one seen, then the end.
    steps = [m["completed"] for m in seen + after if m.get("type") == "progress" and m["job"] == job]
    assert steps[-1] == 40 and steps == sorted(steps)


# Starts per phase of the last test: four phases (no fault, a worker cut off, a node cut off from Redis,
# a viewer cut off), half of each phase's starts on either node, half of them for workers. Jobs of a
# tenth of a second: 600 of them run in seconds, so the test stays near a minute on two cores while
# every fault still finds jobs running and waiting.
STARTS_PER_PHASE = 150


def test_no_acknowledged_start_is_lost_or_run_twice_at_once_across_partitions(lan):
    lan.worker("alpha", lan.w1_host, lan.n1, slots=4)
    lan.worker("beta", lan.w2_host, lan.n2, slots=4)
    watchers = {"n1": lan.viewer(lan.n1), "n2": lan.viewer(lan.n2)}
    accepted, refused = {}, []

    def post(count):
        for index in range(count):
            node = (lan.n1, lan.n2)[index % 2]
            kind = ("local", "remote")[(index // 2) % 2]
            status, body = lan.start(node, kind, {"s": 0.1})
            if status == 202:
                accepted[body["id"]] = body
            else:
                refused.append((status, body))

    post(STARTS_PER_PHASE)

    # A worker cut off while it runs jobs: n1 loses its attempts after the worker's lease.
    lost = metric(lan.n1, "herald_worker_leases_lost_total")
    lan.network.cut(lan.w1_host, lan.n1_host)
    post(STARTS_PER_PHASE)
    wait_for(lambda: metric(lan.n1, "herald_worker_leases_lost_total") > lost, what="alpha's attempts lost", timeout=WORKER_LEASE + 10)
    lan.network.heal(lan.w1_host, lan.n1_host)

    # n1 cut off from Redis: its starts are refused, its leases lapse, n2 takes its jobs over.
    lan.network.cut(lan.n1_host, lan.redis_host)
    post(STARTS_PER_PHASE)
    wait_for(lambda: "node n1 stopped" in lan.n2.log(), what="n1's lease lapses on n2", timeout=NODE_LEASE + 15)
    lan.network.heal(lan.n1_host, lan.redis_host)
    wait_for(lambda: lan.n1.json("GET", "/healthz")[0] == 200, what="n1 back", timeout=30)

    # n2's viewer cut off, half-open: dropped by the keepalive, then resumed from its last seq.
    viewer = watchers["n2"]
    closes = metric(lan.n2, "herald_silent_peer_closes_total")
    lan.network.cut(lan.viewer_host, lan.n2_host)
    post(STARTS_PER_PHASE)
    wait_for(lambda: metric(lan.n2, "herald_silent_peer_closes_total") > closes, what="the viewer dropped", timeout=HANGUP_AFTER + 10)
    seen = viewer.seen()
    epoch = next(m["epoch"] for m in seen if m.get("type") == "snapshot")
    last = max(m["seq"] for m in seen if "seq" in m)
    lan.network.heal(lan.viewer_host, lan.n2_host)
    resumed = lan.viewer(lan.n2, f"?epoch={epoch}&since={last}")

    assert all(status == 503 and body["code"] == "unavailable" for status, body in refused), refused
    assert len(accepted) + len(refused) == 4 * STARTS_PER_PHASE and len(accepted) >= 3 * STARTS_PER_PHASE

    def ended(node):
        jobs = {job["id"]: job for job in all_jobs(node)}
        return jobs if all(jobs.get(job, {}).get("state") in TERMINAL for job in accepted) else None

    def unended(node):
        jobs = {job["id"]: job for job in all_jobs(node)}
        return {job: {key: jobs.get(job, {}).get(key) for key in ("state", "attempt", "worker", "node", "kind")}
                for job in accepted if jobs.get(job, {}).get("state") not in TERMINAL}

    try:
        on_n1 = wait_for(lambda: ended(lan.n1), what="every accepted job's end on n1", timeout=120, interval=0.5)
    except AssertionError as error:
        raise AssertionError(f"{error}: {unended(lan.n1)}; alpha: {lan.worker_log('alpha')[-3000:]}") from None
    on_n2 = wait_for(lambda: ended(lan.n2), what="every accepted job's end on n2", timeout=30, interval=0.5)
    for job in accepted:
        assert (on_n1[job]["state"], on_n1[job].get("attempt")) == (on_n2[job]["state"], on_n2[job].get("attempt")), job
    def every_end(stream):
        return set(accepted) <= {m["job"]["id"] for m in stream if terminal(m)}

    # Exactly one end per job in each viewer's stream: the one that stayed on n1 (cut off from Redis
    # with it), and n2's across its resume. Polled unchecked (checking thousands of messages against
    # the contract takes seconds), then each stream checked once.
    wait_for(lambda: every_end(received(watchers["n1"])), what="n1's viewer sees every end", interval=0.5)
    wait_for(lambda: every_end(seen + received(resumed)), what="the resumed viewer sees every end", interval=0.5)
    n1_stream, n2_stream = watchers["n1"].seen(), seen + resumed.seen()
    for stream in (n1_stream, n2_stream):
        ends = {}
        for message in stream:
            if terminal(message) and message["job"]["id"] in accepted:
                ends[message["job"]["id"]] = ends.get(message["job"]["id"], 0) + 1
        assert set(ends.values()) == {1}, {job: count for job, count in ends.items() if count != 1}
    for stream in (n1_stream, n2_stream):
        seqs = [m["seq"] for m in stream if "seq" in m]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "no gap (across the resume on n2)"
    # No run of a job began while another of it lived (the programs' own pid files).
    # A node cut off from Redis starts no attempt past half its lease and stops its running ones at the
    # whole lease, so the node that takes its jobs over never starts one beside them.
    assert lan.overlaps.read_text() == "", lan.overlaps.read_text()
