"""Several nodes, one stream (docs/scaling.md): three real `herald serve --redis` nodes on loopback,
sharing one throwaway redis-server, with viewers on each."""

import json
import signal
import subprocess
import threading
import time

import pytest

from testkit import herald_binary, wait_for
from test_jobs_file import script, write_jobs
from test_workers import Viewer, Worker

LEASE = 2


def terminal(message, job=None):
    return (message.get("type") == "job" and message["job"]["state"] in ("succeeded", "failed", "cancelled", "interrupted")
            and (job is None or message["job"]["id"] == job))


def events(viewer):
    """What a viewer received after its first snapshot: the stream's events, as received."""
    seen = viewer.seen()
    first = next(index for index, message in enumerate(seen) if message.get("type") == "snapshot")
    return [message for message in seen[first + 1:] if "seq" in message and message.get("type") != "snapshot"]


def runner(viewer, job):
    """The node that runs `job`, once a viewer saw it start."""
    record = wait_for(lambda: next((m["job"] for m in viewer.seen() if m.get("type") == "job" and m["job"]["id"] == job
                                    and m["job"]["state"] == "running"), None), what=f"{job} to run")
    return record["node"]


class Cluster:
    def __init__(self, herald_factory, redis, folder, nodes=3, workers=None, extra=()):
        self.extra = (("--workers", str(workers)) if workers else ()) + tuple(extra)
        self.redis = redis
        self.folder = folder
        marker = folder / "started"
        slow = script(folder, "slow.sh",
                      f'echo $$ >> "{marker}"\n'
                      'i=0\nwhile [ $i -lt "$1" ]; do i=$((i+1)); echo "{\\"completed\\": $i, \\"total\\": $1}"; echo "step $i"; '
                      'sleep 0.05; done\n')
        self.marker = marker
        flood = script(folder, "flood.sh", "seq 1 30000 | sed 's/^/line /'\n")
        self.jobs = write_jobs(folder, {
            "flood": {"command": [flood]},
            "slow": {"command": [slow, "{n}"], "params": {"n": {"type": "integer", "default": 40, "minimum": 1}}},
            "solo": {"command": [slow, "{n}"], "params": {"n": {"type": "integer", "default": 400, "minimum": 1}},
                     "concurrency": 1, "whenBusy": "refuse"},
            "sturdy": {"command": [slow, "{n}"], "params": {"n": {"type": "integer", "default": 60, "minimum": 1}},
                       "retries": 2, "retryDelay": 0.1},
            "pair": {"command": [slow, "{n}"], "params": {"n": {"type": "integer", "default": 20, "minimum": 1}},
                     "concurrency": 2},
            "wide": {"command": [slow, "{n}"], "params": {"n": {"type": "integer", "default": 20, "minimum": 1}},
                     "concurrency": 10},
        })
        self.factory = herald_factory
        self.nodes = [self.start(f"n{index + 1}") for index in range(nodes)]

    def node(self, name):
        return next(node for node in self.nodes if f"--node {name} " in " ".join(node.process.args) + " ")

    def others(self, name):
        return [node for node in self.nodes if f"--node {name} " not in " ".join(node.process.args) + " "]

    def start(self, name, *extra):
        return self.factory("--redis", self.redis.url, "--node", name, "--jobs", str(self.jobs), "--node-lease", str(LEASE),
                            *self.extra, *extra)

    def viewers(self):
        # Quiet spells (Redis away) are longer than the client's default read timeout.
        viewers = [Viewer(node.ws, timeout=60) for node in self.nodes]
        for viewer in viewers:
            wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")
        return viewers


@pytest.fixture
def cluster(herald_factory, redis_factory, tmp_path):
    return Cluster(herald_factory, redis_factory(), tmp_path)


def test_three_nodes_deliver_one_stream_byte_for_byte(cluster):
    viewers = cluster.viewers()
    started = []
    for index, node in enumerate(cluster.nodes):
        status, job = node.json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 15 + index}})
        assert status == 202, job
        assert job["state"] == "queued" and "node" not in job, "queued for whichever node has room"
        started.append(job["id"])
    for viewer in viewers:
        wait_for(lambda: all(any(terminal(m, job) for m in viewer.seen()) for job in started), what="every job's end on every node")
    raw = [[json.dumps(message, sort_keys=False) for message in events(viewer)] for viewer in viewers]
    # Every viewer connected before the first start: each saw the whole stream from its snapshot on.
    tail = min(len(stream) for stream in raw)
    assert tail > 3 * 15, "progress and states of three jobs"
    assert raw[0][-tail:] == raw[1][-tail:] == raw[2][-tail:], "the same events in the same order on every node"
    for viewer in viewers:
        viewer.assert_no_gap()
        viewer.close()
    # And one record per job on every node, with the node that ran it.
    ran = {job: runner(viewers[0], job) for job in started}
    assert set(ran.values()) <= {"n1", "n2", "n3"}
    for node in cluster.nodes:
        status, listed = node.json("GET", "/api/jobs")
        assert status == 200
        assert {job["id"]: job["node"] for job in listed["jobs"]} == ran


def test_a_cancel_on_one_node_ends_a_job_running_on_another(cluster):
    viewers = cluster.viewers()
    status, job = cluster.nodes[0].json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 2000}})
    assert status == 202
    name = runner(viewers[2], job["id"])
    wait_for(lambda: any(m.get("type") == "progress" and m["job"] == job["id"] for m in viewers[2].seen()), what="progress")
    status, answer = cluster.others(name)[-1].json("POST", f"/api/jobs/{job['id']}/cancel")
    assert status == 202, answer
    for viewer in viewers:
        ended = wait_for(lambda: next((m for m in viewer.seen() if terminal(m, job["id"])), None), what="the end on every node")
        assert ended["job"]["state"] == "cancelled"
    pid = int(cluster.marker.read_text().split()[0])
    wait_for(lambda: subprocess.run(["kill", "-0", str(pid)], capture_output=True).returncode != 0, what="the program gone")


def test_the_busy_rule_holds_across_nodes(cluster):
    answers = []

    def start(node):
        answers.append(node.json("POST", "/api/jobs", {"kind": "solo"}))

    threads = [threading.Thread(target=start, args=(node,)) for node in cluster.nodes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(status for status, _ in answers)
    assert statuses == [202, 409, 409], answers
    refused = [body for status, body in answers if status == 409]
    assert all(body["code"] == "busy" for body in refused), refused


def test_a_viewer_resumes_on_another_node_without_a_gap(cluster):
    first, second, _ = cluster.nodes
    viewer = Viewer(first.ws)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")
    status, job = first.json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 30}})
    assert status == 202
    wait_for(lambda: sum(1 for m in viewer.seen() if m.get("type") == "progress") >= 5, what="some progress")
    viewer.close()
    seen = viewer.seen()
    epoch = next(m["epoch"] for m in seen if m.get("type") == "snapshot")
    last = max(m["seq"] for m in seen if "seq" in m)
    resumed = Viewer(f"{second.ws}?epoch={epoch}&since={last}")
    wait_for(lambda: any(terminal(m, job["id"]) for m in resumed.seen()), what="the job's end after the resume")
    # Its end ended its lease: nothing is held any more.
    assert cluster.redis.command("HGET", "herald:leaseof", job["id"]) is None
    assert cluster.redis.command("XLEN", "herald:leases") == 0
    after = resumed.seen()
    assert not any(m.get("type") == "snapshot" for m in after), "the missed events, not a snapshot"
    seqs = [m["seq"] for m in after if "seq" in m]
    assert seqs[0] == last + 1 and seqs == list(range(last + 1, last + 1 + len(seqs))), "no gap across the nodes"
    resumed.close()


def finished_record(node, job):
    return wait_for(lambda: (lambda record: record if record.get("state") in ("succeeded", "failed") else None)(
        node.json("GET", f"/api/jobs/{job}")[1]), what=f"{job}'s end")


def test_pages_from_any_node_even_after_the_runner_is_gone(cluster):
    starter = cluster.nodes[0]
    search = starter.json("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}})[1]["id"]
    command = starter.json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 12}})[1]["id"]
    searched, ran = finished_record(starter, search), finished_record(starter, command)
    assert searched["state"] == ran["state"] == "succeeded"
    # Matches and log lines live in Redis: any node pages them.
    for node in cluster.nodes:
        status, page = node.json("GET", f"/api/jobs/{search}/results?limit=5")
        assert status == 200 and page["total"] > 0 and len(page["values"]) == 5, page
        status, log = node.json("GET", f"/api/jobs/{command}/log?limit=100")
        assert status == 200 and [line["text"] for line in log["lines"]] == [f"step {i}" for i in range(1, 13)], log
    # A sort's numbers stay on the node that made them: asked of it through Redis.
    sort = starter.json("POST", "/api/jobs", {"kind": "sort", "params": {"count": 1000}})[1]["id"]
    sorted_on = finished_record(starter, sort)["node"]
    elsewhere = cluster.others(sorted_on)[0]
    status, page = elsewhere.json("GET", f"/api/jobs/{sort}/results?limit=5")
    assert status == 200 and page["total"] == 1000 and page["values"] == sorted(page["values"]), page
    cluster.node(sorted_on).stop()
    status, refused = elsewhere.json("GET", f"/api/jobs/{sort}/results?limit=5")
    assert status == 503 and refused["code"] == "unavailable", refused
    # The search's and the command's pages outlive a node too.
    for job, path in ((search, "results?limit=5"), (command, "log?limit=5")):
        survivor = cluster.others(sorted_on)[-1]
        assert survivor.json("GET", f"/api/jobs/{job}/{path}")[0] == 200


def test_finished_searches_matches_in_redis_are_bounded_in_bytes(herald_factory, redis_factory, tmp_path):
    # A byte bound below one search's matches: each search that ends drops the matches of those before it.
    cluster = Cluster(herald_factory, redis_factory(), tmp_path, extra=("--kept-results-bytes", "1"))
    node = cluster.nodes[0]
    searches = []
    for _ in range(2):
        job = node.json("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}})[1]["id"]
        assert finished_record(node, job)["state"] == "succeeded"
        searches.append(job)
    older, newer = searches
    for peer in cluster.nodes:
        status, page = peer.json("GET", f"/api/jobs/{newer}/results?limit=5")
        assert status == 200 and page["total"] > 0, page
        status, gone = peer.json("GET", f"/api/jobs/{older}/results?limit=5")
        assert status == 410 and gone["code"] == "gone" and "no longer kept" in gone["message"], gone
    total = int(cluster.redis.command("GET", "herald:resultbytestotal"))
    assert total == int(cluster.redis.command("HGET", "herald:resultbytes", newer)) > 0, "only the newest's bytes count"
    assert cluster.redis.command("EXISTS", f"herald:results:{older}") == 0


def test_a_flooded_log_is_paged_whole_from_redis_once_its_node_is_gone(cluster):
    # 30,000 lines at once: the stream carries at most 1,000 a tenth of a second and skips the rest,
    # while the node keeps the last 10,000. Once the job ended, Redis must hold those 10,000 too.
    job = cluster.nodes[0].json("POST", "/api/jobs", {"kind": "flood"})[1]["id"]
    ran_on = finished_record(cluster.nodes[0], job)["node"]
    key = f"herald:log:{job}"
    wait_for(lambda: cluster.redis.command("LLEN", key) == 10_000 and b"line 20001" in cluster.redis.command("LINDEX", key, "0"),
             what="the whole kept log in Redis")
    cluster.node(ran_on).stop()
    survivor = cluster.others(ran_on)[0]
    status, page = survivor.json("GET", f"/api/jobs/{job}/log?offset=0&limit=10000")
    assert status == 200, page
    assert page["total"] == 10_000 and page["first"] == 20_000, {k: v for k, v in page.items() if k != "lines"}
    assert [line["text"] for line in page["lines"]] == [f"line {i}" for i in range(20_001, 30_001)]


def test_a_node_does_not_start_without_redis(tmp_path, redis_factory):
    redis = redis_factory()
    url = redis.url
    redis.stop()
    result = subprocess.run([str(herald_binary()), "serve", "--port", "0", "--redis", url, "--data-dir", str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"herald: --redis {url}") and "refused" in lines[0], lines
    assert result.stdout == ""


def test_two_nodes_of_one_name_are_refused(cluster):
    result = subprocess.run(
        [str(herald_binary()), "serve", "--port", "0", "--redis", cluster.redis.url, "--node", "n1",
         "--data-dir", str(cluster.folder / "twin")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "a node named n1 is running" in result.stderr, result


def test_redis_losing_its_data_starts_a_new_epoch_and_resyncs_every_viewer(cluster):
    viewers = cluster.viewers()
    epoch = cluster.nodes[0].json("GET", "/healthz")[1]["epoch"]
    cluster.redis.kill()
    cluster.redis.start()  # no persistence: every key is gone
    for viewer in viewers:
        fresh = wait_for(lambda: [m for m in viewer.seen() if m.get("type") == "snapshot" and m["epoch"] != epoch],
                         what="a snapshot of the new epoch", timeout=30)
        assert fresh[0]["reason"] == "resync"
    epochs = {node.json("GET", "/healthz")[1]["epoch"] for node in cluster.nodes}
    assert len(epochs) == 1 and epoch not in epochs, "one new epoch, the same on every node"
    status, job = wait_for(lambda: (lambda answer: answer if answer[0] == 202 else None)(
        cluster.nodes[1].json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 3}})), what="a start after the reset")
    for viewer in viewers:
        wait_for(lambda: any(terminal(m, job["id"]) for m in viewer.seen()), what="the new job's end everywhere")
        viewer.close()


def test_a_start_sent_on_the_new_epochs_snapshot_is_taken_after_redis_restarts_empty(herald_factory, redis_factory, tmp_path):
    cluster = Cluster(herald_factory, redis_factory(), tmp_path, nodes=1)
    node = cluster.nodes[0]
    [viewer] = cluster.viewers()
    epoch = node.json("GET", "/healthz")[1]["epoch"]
    cluster.redis.stop()
    stopped = time.monotonic()
    wait_for(lambda: node.json("GET", "/healthz")[0] == 503, what="degraded")
    # Away five seconds, as in a restart: each of the node's connections has backed off to its longest
    # wait, so on its own each would come back at a different moment.
    time.sleep(max(0.0, 5 - (time.monotonic() - stopped)))
    cluster.redis.start()  # no persistence: every key is gone
    wait_for(lambda: any(m.get("type") == "snapshot" and m["epoch"] != epoch for m in viewer.seen()),
             what="a snapshot of the new epoch", timeout=30, interval=0.01)
    status, answer = node.json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 3}})
    assert status == 202, f"a start sent on that snapshot is taken: {answer}"
    viewer.close()

def test_with_aof_a_redis_restart_keeps_the_epoch_and_every_event(herald_factory, redis_factory, tmp_path):
    cluster = Cluster(herald_factory, redis_factory("aof"), tmp_path, nodes=2)
    viewers = cluster.viewers()
    epoch = cluster.nodes[0].json("GET", "/healthz")[1]["epoch"]
    status, job = cluster.nodes[0].json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 60}})
    assert status == 202
    wait_for(lambda: any(m.get("type") == "progress" for m in viewers[1].seen()), what="progress")
    cluster.redis.stop()  # a clean stop writes the AOF
    cluster.redis.start()
    for viewer in viewers:
        wait_for(lambda: any(terminal(m, job["id"]) for m in viewer.seen()), what="the job's end", timeout=40)
        assert not [m for m in viewer.seen() if m.get("type") == "snapshot" and m.get("reason") == "resync"], "no resync"
        viewer.assert_no_gap()
        viewer.close()
    assert {node.json("GET", "/healthz")[1]["epoch"] for node in cluster.nodes} == {epoch}


def test_redis_down_is_degraded_not_fatal(cluster):
    viewers = cluster.viewers()
    node = cluster.nodes[0]
    epoch = node.json("GET", "/healthz")[1]["epoch"]
    cluster.redis.stop()
    stopped = time.monotonic()
    status, health = wait_for(lambda: (lambda answer: answer if answer[0] == 503 else None)(node.json("GET", "/healthz")),
                              what="degraded")
    assert health["status"] == "degraded" and "redis" in health["reason"], health
    status, refused = node.json("POST", "/api/jobs", {"kind": "slow"})
    assert status == 503 and refused["code"] == "unavailable", refused
    # Redis stays away for ten seconds; the viewers stay connected all the while.
    time.sleep(max(0.0, 10 - (time.monotonic() - stopped)))
    assert all(viewer.thread.is_alive() for viewer in viewers)
    cluster.redis.start()  # no persistence: a new epoch
    wait_for(lambda: node.json("GET", "/healthz")[0] == 200, what="healthy again", timeout=30)
    # Each node resyncs its viewers when it finds Redis back itself: one that finds it after the job
    # below ended would show the job's end in its snapshot, not as an event.
    for viewer in viewers:
        wait_for(lambda: any(m.get("type") == "snapshot" and m["epoch"] != epoch for m in viewer.seen()),
                 what="a snapshot of the new epoch", timeout=30)
    status, job = wait_for(lambda: (lambda answer: answer if answer[0] == 202 else None)(
        node.json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 3}})), what="a start after Redis came back")
    for viewer in viewers:
        wait_for(lambda: any(terminal(m, job["id"]) for m in viewer.seen()), what="the job's end everywhere", timeout=30)
        viewer.close()


def test_a_killed_nodes_job_is_retried_elsewhere_and_its_viewers_resume_there(cluster):
    probe = Viewer(cluster.nodes[0].ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in probe.seen()), what="a snapshot")
    status, job = cluster.nodes[0].json("POST", "/api/jobs", {"kind": "sturdy", "params": {"n": 40}})
    assert status == 202
    name = runner(probe, job["id"])
    first = cluster.node(name)
    second, third = cluster.others(name)
    # A viewer of the node that runs the job, and one of another node.
    viewer = Viewer(first.ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")
    watcher = Viewer(third.ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "progress" and m["job"] == job["id"] for m in viewer.seen()), what="progress")
    first.process.send_signal(signal.SIGKILL)
    first.process.wait()
    killed = time.monotonic()
    seen = viewer.seen()
    epoch = next(m["epoch"] for m in seen if m.get("type") == "snapshot")
    last = max(m["seq"] for m in seen if "seq" in m)
    # The viewer's connection died with the node; it reconnects to another one and resumes there.
    resumed = Viewer(f"{second.ws}?epoch={epoch}&since={last}", timeout=60)
    retried = wait_for(lambda: next((m for m in watcher.seen() if m.get("type") == "job" and m["job"]["id"] == job["id"]
                                     and m["job"]["state"] == "running" and m["job"].get("attempt") == 2), None),
                       what="the second attempt", timeout=LEASE + 20)
    assert time.monotonic() - killed < LEASE + 5 + 5, "retried within the lease and a few seconds"
    assert retried["job"]["node"] != name
    # The job's lease (its entry in the leases stream) went over with it: pending under the new node.
    assert lease_holders(cluster.redis, job["id"]) == [retried["job"]["node"]]
    for each in (resumed, watcher):
        ended = wait_for(lambda: next((m for m in each.seen() if terminal(m, job["id"])), None), what="the end", timeout=30)
        assert ended["job"]["state"] == "succeeded" and ended["job"]["attempt"] == 2
    # Its end ended its lease: nothing is held any more.
    assert cluster.redis.command("HGET", "herald:leaseof", job["id"]) is None
    assert cluster.redis.command("XLEN", "herald:leases") == 0
    after = resumed.seen()
    assert not any(m.get("type") == "snapshot" for m in after), "the missed events, not a snapshot"
    seqs = [m["seq"] for m in after if "seq" in m]
    assert seqs[0] == last + 1 and seqs == list(range(last + 1, last + 1 + len(seqs))), "no gap across the nodes"
    for each in (probe, viewer, resumed, watcher):
        each.close()


def sturdy_job_in_progress(cluster, steps):
    """A `sturdy` job (its kind retries) of `steps` steps, running, and seen making progress by a viewer
    of a node that does not run it: (job, the running node's name, that node, the other node, the viewer)."""
    probe = Viewer(cluster.nodes[0].ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in probe.seen()), what="a snapshot")
    status, job = cluster.nodes[0].json("POST", "/api/jobs", {"kind": "sturdy", "params": {"n": steps}})
    assert status == 202
    name = runner(probe, job["id"])
    probe.close()
    first = cluster.node(name)
    second = cluster.others(name)[0]
    watcher = Viewer(second.ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in watcher.seen()), what="a snapshot")
    wait_for(lambda: any(m.get("type") == "progress" and m["job"] == job["id"] for m in watcher.seen()), what="progress")
    return job, name, first, second, watcher


def test_a_node_paused_past_its_lease_cannot_write_over_the_retry(cluster):
    job, name, first, second, watcher = sturdy_job_in_progress(cluster, steps=80)
    first.process.send_signal(signal.SIGSTOP)
    try:
        # While n1 is stopped its lease entry is deleted from the stream (by hand, as a trim would):
        # Redis 7 then reports it apart (XAUTOCLAIM's deleted ids), and the job is taken over all the same.
        entry = cluster.redis.command("HGET", "herald:leaseof", job["id"])
        assert cluster.redis.command("XDEL", "herald:leases", entry) == 1
        wait_for(lambda: any(m.get("type") == "job" and m["job"]["id"] == job["id"] and m["job"].get("attempt") == 2
                             for m in watcher.seen()), what="another node's attempt 2", timeout=LEASE + 20)
    finally:
        first.process.send_signal(signal.SIGCONT)
    ended = wait_for(lambda: next((m for m in watcher.seen() if terminal(m, job["id"])), None), what="the end", timeout=40)
    assert ended["job"]["state"] == "succeeded" and ended["job"]["node"] != name
    # After the retry began, nothing of n1's attempt 1 reached the stream: its writes were refused.
    messages = watcher.seen()
    retry = next(index for index, m in enumerate(messages)
                 if m.get("type") == "job" and m["job"]["id"] == job["id"] and m["job"].get("attempt") == 2)
    later_states = [m["job"] for m in messages[retry:] if m.get("type") == "job" and m["job"]["id"] == job["id"]]
    assert all(state.get("attempt") == 2 and state["node"] != name for state in later_states), later_states
    ends = [m for m in messages if terminal(m, job["id"])]
    assert len(ends) == 1, "one copy of the job reports its end"
    wait_for(lambda: "is no longer this node's" in first.log(), what="n1 to notice and stop its copy")
    status, metrics = first.request("GET", "/metrics")[:2]
    stale = next(line for line in metrics.splitlines() if line.startswith("herald_cluster_stale_writes_total"))
    assert float(stale.split()[-1]) >= 1, stale
    taker = cluster.node(ended["job"]["node"])
    deleted = next(line for line in taker.request("GET", "/metrics")[1].splitlines()
                   if line.startswith("herald_cluster_lease_entries_deleted_total"))
    assert float(deleted.split()[-1]) == 1, deleted
    watcher.close()


def test_a_cancel_its_node_never_read_is_honoured_by_the_node_that_takes_the_job_over(cluster):
    job, name, first, second, watcher = sturdy_job_in_progress(cluster, steps=2000)
    # The node stops before it can read the cancel, which is accepted: its heartbeat is still fresh.
    first.process.send_signal(signal.SIGSTOP)
    try:
        status, answer = second.json("POST", f"/api/jobs/{job['id']}/cancel")
        assert status == 202, answer
        ended = wait_for(lambda: next((m for m in watcher.seen() if terminal(m, job["id"])), None), what="the end",
                         timeout=LEASE + 30)
    finally:
        first.process.send_signal(signal.SIGCONT)
    # Taken over when its lease lapsed, it is cancelled there, not run again to its end.
    assert ended["job"]["state"] == "cancelled", ended
    assert ended["job"]["node"] != name and ended["job"].get("cancelledBy") == "anonymous", ended
    watcher.close()


def lease_holders(redis, job):
    """The nodes under which `job`'s lease entry is pending (one, while it is held; none once it ended)."""
    entry = redis.command("HGET", "herald:leaseof", job)
    pending = redis.command("XPENDING", "herald:leases", "holders", "-", "+", 100)
    return [consumer.decode() for (held, consumer, _idle, _count) in pending if held == entry]


def test_jobs_run_where_there_is_room(herald_factory, redis_factory, tmp_path):
    cluster = Cluster(herald_factory, redis_factory(), tmp_path, workers=1)
    viewer = Viewer(cluster.nodes[2].ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")
    # Three long jobs of a kind that may run ten at once in the cluster, all started on n1, which runs
    # one job at a time (--workers 1): the others take the rest.
    jobs = [cluster.nodes[0].json("POST", "/api/jobs", {"kind": "wide", "params": {"n": 2000}})[1]["id"] for _ in range(3)]
    assert {runner(viewer, job) for job in jobs} == {"n1", "n2", "n3"}, "each node runs one"
    # A fourth waits for room, owned by nobody; a cancel takes it out of the queue.
    status, waiting = cluster.nodes[1].json("POST", "/api/jobs", {"kind": "wide", "params": {"n": 3}})
    assert status == 202
    status, cancelled = cluster.nodes[2].json("POST", f"/api/jobs/{waiting['id']}/cancel")
    assert status == 202 and cancelled["state"] == "cancelled" and "node" not in cancelled, cancelled
    # A fifth runs as soon as a node has room again.
    status, fifth = cluster.nodes[1].json("POST", "/api/jobs", {"kind": "wide", "params": {"n": 3}})
    assert status == 202
    cluster.nodes[0].json("POST", f"/api/jobs/{jobs[0]}/cancel")
    ended = wait_for(lambda: next((m for m in viewer.seen() if terminal(m, fifth["id"])), None), what="the fifth's end", timeout=30)
    assert ended["job"]["state"] == "succeeded"
    for job in jobs[1:]:
        cluster.nodes[0].json("POST", f"/api/jobs/{job}/cancel")
    viewer.close()


def test_a_kinds_concurrency_holds_across_the_cluster(cluster):
    viewer = Viewer(cluster.nodes[0].ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")
    # Six starts of a kind limited to two at once, spread over the three nodes: each node alone would
    # run two, so without a cluster-wide limit six would run together.
    jobs = [cluster.nodes[index % 3].json("POST", "/api/jobs", {"kind": "pair", "params": {"n": 20}})[1]["id"] for index in range(6)]
    ended = wait_for(lambda: [m for m in viewer.seen() if m.get("type") == "job" and m["job"]["id"] in jobs and terminal(m)]
                     if sum(1 for m in viewer.seen() if terminal(m) and m["job"]["id"] in jobs) == 6 else None,
                     what="the six to end", timeout=60)
    assert all(m["job"]["state"] == "succeeded" for m in ended)
    most = most_running_at_once(viewer, jobs)
    assert most == 2, f"at most two of the kind ran at once across the cluster (saw {most})"
    viewer.close()


def most_running_at_once(viewer, jobs):
    running, most = set(), 0
    for message in viewer.seen():
        if message.get("type") != "job" or message["job"]["id"] not in jobs:
            continue
        if message["job"]["state"] == "running":
            running.add(message["job"]["id"])
        else:
            running.discard(message["job"]["id"])
        most = max(most, len(running))
    return most


def test_a_kinds_concurrency_holds_across_the_cluster_for_starts_with_dependencies(cluster):
    viewer = Viewer(cluster.nodes[0].ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")
    # Starts with dependencies are kept by the node that took them: five of a kind limited to two,
    # over the three nodes, all waiting for one job. When it succeeds all five may run at once as far
    # as each node alone knows (each has room for two); the cluster lets two run.
    first = cluster.nodes[0].json("POST", "/api/jobs", {"kind": "slow", "params": {"n": 10}})[1]["id"]
    jobs = []
    for index in range(5):
        status, job = cluster.nodes[index % 3].json("POST", "/api/jobs", {"kind": "pair", "params": {"n": 40}, "after": [first]})
        assert status == 202, job
        jobs.append(job["id"])
    wait_for(lambda: sum(1 for m in viewer.seen() if terminal(m) and m["job"]["id"] in jobs) == 5, what="the five to end", timeout=90)
    assert all(m["job"]["state"] == "succeeded" for m in viewer.seen() if terminal(m) and m["job"]["id"] in jobs)
    most = most_running_at_once(viewer, jobs)
    assert most == 2, f"at most two of the kind ran at once across the cluster (saw {most})"
    viewer.close()


def test_one_node_fetches_news_and_another_takes_over_when_it_stops(herald_factory, redis_factory, tmp_path):
    cluster = Cluster(herald_factory, redis_factory(), tmp_path, extra=("--news-interval", "0.3"))
    viewer = Viewer(cluster.nodes[2].ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")

    def fetchers(since=0):
        """The nodes that ran background news fetches, from the viewer's `index`-th message on."""
        return [m["job"]["node"] for m in viewer.seen()[since:] if m.get("type") == "job" and m["job"]["kind"] == "fetch"
                and m["job"]["state"] == "running" and m["job"]["params"].get("background")]

    wait_for(lambda: len(fetchers()) >= 6, what="six background fetches", timeout=30)
    assert len(set(fetchers())) == 1, f"every node was given --news-interval, one fetches: {fetchers()}"
    first = cluster.node(fetchers()[0])
    first.process.send_signal(signal.SIGKILL)
    first.process.wait()
    mark = len(viewer.seen())
    wait_for(lambda: len(fetchers(mark)) >= 4, what="fetches from another node", timeout=LEASE + 20)
    later = fetchers(mark)
    assert len(set(later[1:])) == 1 and later[-1] != fetchers()[0], later
    viewer.close()


def test_a_stopped_nodes_workers_are_no_longer_listed_and_a_paused_ones_come_back(cluster):
    worker_jobs = cluster.folder / "worker-jobs.json"
    kinds = json.loads(cluster.jobs.read_text())["kinds"]
    worker_jobs.write_text(json.dumps({"kinds": {"slow": kinds["slow"]}}))
    viewer = Viewer(cluster.nodes[1].ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")

    def listed():
        lists = [m["workers"] for m in viewer.seen() if m.get("type") == "workers"]
        return [w["name"] for w in lists[-1]] if lists else []

    worker = Worker(cluster.nodes[0], worker_jobs, "remote-1", cluster.folder)
    try:
        wait_for(lambda: listed() == ["remote-1"], what="the worker listed on another node")
        # Paused past its lease, the node is forgotten with its worker; continued, it lists it again.
        cluster.nodes[0].process.send_signal(signal.SIGSTOP)
        try:
            wait_for(lambda: listed() == [], what="the paused node's worker gone from the list", timeout=LEASE + 20)
        finally:
            cluster.nodes[0].process.send_signal(signal.SIGCONT)
        wait_for(lambda: listed() == ["remote-1"], what="the worker listed again", timeout=20)
        cluster.nodes[0].process.send_signal(signal.SIGKILL)
        cluster.nodes[0].process.wait()
        wait_for(lambda: listed() == [], what="the stopped node's worker gone from the list", timeout=LEASE + 20)
        assert cluster.nodes[1].json("GET", "/api/workers")[1]["workers"] == []
    finally:
        worker.stop()
    viewer.close()


def test_history_pages_every_nodes_jobs_from_any_node(herald_factory, redis_factory, tmp_path):
    # Two recent finished jobs in every view, three more in Redis's archive, the rest forgotten.
    cluster = Cluster(herald_factory, redis_factory(), tmp_path, extra=("--recent-jobs", "2", "--history-jobs", "3"))
    started = []
    for index in range(7):
        node = cluster.nodes[index % 3]
        status, job = node.json("POST", "/api/jobs", {"kind": "pair" if index % 2 else "wide", "params": {"n": 1}})
        assert status == 202, job
        wait_for(lambda: node.json("GET", f"/api/jobs/{job['id']}")[1].get("state") == "succeeded"
                 or cluster.redis.command("HEXISTS", "herald:archive", job["id"]) == 1, what=f"job {index} to end")
        started.append(job)
    expected = [job["id"] for job in sorted(started[2:], key=lambda j: (j["createdAt"], j["id"]), reverse=True)]

    def pages(node, query):
        ids, before = [], ""
        while True:
            status, page = node.json("GET", f"/api/jobs?{query}&limit=2{before}")
            assert status == 200, page
            ids += [job["id"] for job in page["jobs"]]
            if page["next"] is None:
                return ids
            before = f"&before={page['next']}"

    for node in cluster.nodes:
        assert pages(node, "state=") == expected, "the newest five of the seven, wherever they ran, newest first"
    pairs = [job_id for job_id in expected if next(j for j in started if j["id"] == job_id)["kind"] == "pair"]
    assert pages(cluster.nodes[1], "kind=pair&state=succeeded") == pairs
    # Each page names the node that ran each job, as Redis recorded it. (Which node ran which is not
    # fixed: a job runs where it was started only when that node takes it within 100 ms.)
    ran = {}
    for job_id in expected:
        stored = cluster.redis.command("HGET", "herald:jobs", job_id) or cluster.redis.command("HGET", "herald:archive", job_id)
        ran[job_id] = json.loads(stored)["node"]
    listed = {job["id"]: job["node"] for job in cluster.nodes[2].json("GET", "/api/jobs?limit=10")[1]["jobs"]}
    assert listed == ran, (listed, ran)
    # An archived job is still found by id on every node; a forgotten one is not.
    for node in cluster.nodes:
        status, record = node.json("GET", f"/api/jobs/{expected[-1]}")
        assert status == 200 and record["state"] == "succeeded", record
        assert node.json("GET", f"/api/jobs/{started[0]['id']}")[0] == 404


def test_a_start_may_wait_for_jobs_of_other_nodes(cluster):
    viewer = Viewer(cluster.nodes[0].ws, timeout=60)
    wait_for(lambda: any(m.get("type") == "snapshot" for m in viewer.seen()), what="a snapshot")
    status, first = cluster.nodes[0].json("POST", "/api/jobs", {"kind": "wide", "params": {"n": 10}})
    assert status == 202, first
    runs_on = runner(viewer, first["id"])
    other = next(node for node in cluster.nodes if f"--node {runs_on} " not in " ".join(node.process.args) + " ")
    status, second = other.json("POST", "/api/jobs", {"kind": "wide", "params": {"n": 1}, "after": [first["id"]]})
    assert status == 202 and second["state"] == "waiting", second
    ended = wait_for(lambda: next((m["job"] for m in viewer.seen() if terminal(m, second["id"])), None), what="the second's end")
    first_end = next(index for index, m in enumerate(viewer.seen()) if terminal(m, first["id"]))
    second_run = next(index for index, m in enumerate(viewer.seen())
                      if m.get("type") == "job" and m["job"]["id"] == second["id"] and m["job"]["state"] == "running")
    assert ended["state"] == "succeeded" and second_run > first_end, "it ran once the other node's job had succeeded"
    # A dependency that ends otherwise cancels the job that waits for it, wherever each is.
    status, third = cluster.nodes[1].json("POST", "/api/jobs", {"kind": "wide", "params": {"n": 400}})
    status, fourth = cluster.nodes[2].json("POST", "/api/jobs", {"kind": "wide", "params": {"n": 1}, "after": [third["id"]]})
    assert status == 202, fourth
    runner(viewer, third["id"])
    assert cluster.nodes[0].json("POST", f"/api/jobs/{third['id']}/cancel")[0] == 202
    cancelled = wait_for(lambda: next((m["job"] for m in viewer.seen() if terminal(m, fourth["id"])), None), what="the fourth's end")
    assert cancelled["state"] == "cancelled" and third["id"] in cancelled.get("error", ""), cancelled
    viewer.close()
