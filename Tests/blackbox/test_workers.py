"""Workers on other machines (docs/workers.md): real `herald work` processes and a server on loopback."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import websocket  # websocket-client

from testkit import REPO_ROOT, contract, herald_binary, wait_for
from test_jobs_file import script, write_jobs

PARAMS = {"n": {"type": "integer", "default": 5, "minimum": 1}}
LEASE = 2


class Worker:
    """A running `herald work`, its output in a file."""

    def __init__(self, server, jobs: Path, name: str, folder: Path, slots: int = 1, *extra: str):
        self.name = name
        self.log_path = folder / f"work-{name}.log"
        self.log_file = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [str(herald_binary()), "work", "--server", server.url, "--jobs", str(jobs), "--name", name,
             "--slots", str(slots), *extra],
            stdout=self.log_file, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait()
        self.log_file.close()


class Viewer:
    """A WebSocket viewer that keeps every message, read on a thread of its own."""

    def __init__(self, url: str, timeout: float = 10):
        self.socket = websocket.create_connection(url, timeout=timeout)
        self.messages = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            while True:
                text = self.socket.recv()
                with self.lock:
                    self.messages.append(json.loads(text))
        except Exception:
            return

    def seen(self):
        with self.lock:
            return [contract.server_message(message) for message in self.messages]

    def assert_no_gap(self):
        seqs = [message["seq"] for message in self.seen() if "seq" in message]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"a gap in seq: {seqs}"

    def close(self):
        self.socket.close()


@pytest.fixture
def cluster(herald_factory, tmp_path):
    """A server whose `count` kind only workers run, and a way to start workers with a command for it.
    Every program a worker starts writes its pid (its own process group) to pids/JOB-ATTEMPT."""
    pids = tmp_path / "pids"
    pids.mkdir()
    counter = script(tmp_path, "count.sh", f"""
echo $$ > {pids}/$HERALD_JOB_ID-$HERALD_ATTEMPT
i=0
while [ "$i" -lt "$1" ]; do
  i=$((i + 1))
  echo "attempt $HERALD_ATTEMPT line $i"
  echo "{{\\"completed\\": $i, \\"total\\": $1, \\"message\\": \\"attempt $HERALD_ATTEMPT item $i\\"}}"
  sleep 0.1
done
echo '{{"result": {{"items": '$1'}}}}'
""")
    server_jobs = write_jobs(tmp_path, {"count": {"title": "Count", "params": PARAMS, "retries": 1, "retryDelay": 0.1,
                                                  "concurrency": 4}})
    worker_jobs = tmp_path / "worker-jobs.json"
    worker_jobs.write_text(json.dumps({"kinds": {"count": {"title": "Count", "command": [counter, "{n}"], "params": PARAMS,
                                                           "retries": 1, "retryDelay": 0.1, "grace": 1}}}))
    server = herald_factory("--jobs", str(server_jobs), "--worker-lease", str(LEASE))
    workers = []
    viewers = []

    class Cluster:
        def __init__(self):
            self.server = server
            self.pids = pids
            self.worker_jobs = worker_jobs
            self.processes = {}

        def worker(self, name, slots=1, *extra):
            worker = Worker(server, worker_jobs, name, tmp_path, slots, *extra)
            workers.append(worker)
            self.processes[name] = worker
            wait_for(lambda: name in [w["name"] for w in self.workers()], what=f"worker {name} attached")
            return worker

        def viewer(self):
            viewer = Viewer(server.ws)
            viewers.append(viewer)
            return viewer

        def workers(self):
            return server.json("GET", "/api/workers")[1]["workers"]

        def start(self, n):
            status, job = server.json("POST", "/api/jobs", {"kind": "count", "params": {"n": n}})
            assert status == 202, job
            return job["id"]

        def job(self, job_id):
            return server.json("GET", f"/api/jobs/{job_id}")[1]

        def wait_job(self, job_id, predicate, what, timeout=20):
            return wait_for(lambda: (lambda job: job if predicate(job) else None)(self.job(job_id)), timeout=timeout, what=what)

        def pid(self, job_id, attempt):
            path = pids / f"{job_id}-{attempt}"
            return int(wait_for(lambda: path.exists() and path.read_text().strip(), what=f"{path.name} started"))

    yield Cluster()
    for viewer in viewers:
        viewer.close()
    for worker in workers:
        worker.stop()
    # A worker killed with SIGKILL leaves its program running (in its own process group): end them all.
    for path in pids.iterdir():
        try:
            os.killpg(int(path.read_text().strip()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def alive(group: int) -> bool:
    """Whether any process of the group lives (zombies do not count: they run nothing, and where
    PID 1 does not reap orphans they stay until the container ends)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in ("Z", "X") and int(fields[2]) == group:
            return True
    return False


def test_jobs_spread_over_both_workers_and_cancel_leaves_no_process(cluster):
    cluster.worker("alpha")
    cluster.worker("beta")
    first, second = cluster.start(600), cluster.start(600)
    running = [cluster.wait_job(job, lambda j: j["state"] == "running", f"{job} running") for job in (first, second)]
    assert sorted(job["worker"] for job in running) == ["alpha", "beta"]
    assert sorted((w["name"], w["busy"]) for w in cluster.workers()) == [("alpha", 1), ("beta", 1)]
    pids = [cluster.pid(first, 1), cluster.pid(second, 1)]
    cluster.wait_job(first, lambda j: j["progress"]["completed"] > 0, "progress from a worker")
    for job in (first, second):
        assert cluster.server.json("POST", f"/api/jobs/{job}/cancel")[0] == 202
    for job in (first, second):
        cluster.wait_job(job, lambda j: j["state"] == "cancelled", f"{job} cancelled")
    assert not any(alive(pid) for pid in pids), "a cancelled job's process group outlived it"
    status, log = cluster.server.json("GET", f"/api/jobs/{first}/log?limit=3")
    assert status == 200 and log["lines"][0]["text"] == "attempt 1 line 1"


def test_a_killed_workers_job_is_retried_on_the_other_within_the_lease_and_viewers_see_no_gap(cluster):
    viewer = cluster.viewer()
    cluster.worker("alpha")
    job = cluster.start(600)
    cluster.wait_job(job, lambda j: j["state"] == "running" and j["progress"]["completed"] > 0, "running on alpha")
    cluster.worker("beta")
    killed_at = time.monotonic()
    cluster.processes["alpha"].process.kill()
    retried = cluster.wait_job(job, lambda j: j["state"] == "running" and j.get("attempt") == 2, "attempt 2 running",
                               timeout=LEASE + 5)
    assert time.monotonic() - killed_at <= LEASE + 5
    assert retried["worker"] == "beta"
    cluster.wait_job(job, lambda j: j["progress"]["message"].startswith("attempt 2"), "attempt 2 reports")
    wait_for(lambda: any(m.get("type") == "job" and m["job"].get("attempt") == 2 for m in viewer.seen()),
             what="the viewer sees attempt 2")
    viewer.assert_no_gap()


def test_a_stopped_workers_stale_reports_are_refused_and_its_run_killed(cluster):
    viewer = cluster.viewer()
    cluster.worker("alpha")
    job = cluster.start(600)
    cluster.wait_job(job, lambda j: j["state"] == "running" and j["progress"]["completed"] > 0, "running on alpha")
    first_run = cluster.pid(job, 1)
    cluster.worker("beta")
    alpha = cluster.processes["alpha"].process
    alpha.send_signal(signal.SIGSTOP)
    try:
        cluster.wait_job(job, lambda j: j["state"] == "running" and j.get("attempt") == 2, "attempt 2 on beta",
                         timeout=LEASE + 5)
    finally:
        alpha.send_signal(signal.SIGCONT)
    # Alpha's run went on while alpha was stopped. Alpha comes back and kills it: for hearing no answer
    # to its beats for over half a lease (self-fencing), or for lease_lost, whichever it reads first.
    wait_for(lambda: not alive(first_run), timeout=15, what="the stale run killed")
    log = cluster.processes["alpha"].log()
    assert "killing it" in log or "no answer from the server" in log, log
    if "killing it" in log:
        # It reported on the stale run before it stopped it: the server refused those reports.
        metrics = cluster.server.request("GET", "/metrics")[1]
        assert "herald_worker_stale_reports_total 0" not in metrics
    # Only one copy ever reported: after attempt 2 began, no progress of attempt 1 reached viewers.
    seen = viewer.seen()
    begun = next(i for i, m in enumerate(seen) if m.get("type") == "job" and m["job"].get("attempt") == 2)
    late = [m for m in seen[begun:] if m.get("type") == "progress" and (m.get("message") or "").startswith("attempt 1")]
    assert late == []
    assert cluster.job(job)["worker"] == "beta"
    viewer.assert_no_gap()


def test_sigterm_lets_a_job_finish_then_exits_zero_and_cancels_after_grace(cluster):
    patient = cluster.worker("patient", 1, "--grace", "30")
    job = cluster.start(10)
    cluster.wait_job(job, lambda j: j["state"] == "running", "running")
    # Running once assigned; the assignment may still be on its way to the worker (it is written by the
    # service thread that serves the worker, which need not be the one that answered): its program ran.
    cluster.pid(job, 1)
    patient.process.send_signal(signal.SIGTERM)
    wait_for(lambda: any(w["draining"] for w in cluster.workers()), what="the worker drains")
    assert patient.process.wait(timeout=20) == 0
    assert cluster.job(job)["state"] == "succeeded"

    hasty = cluster.worker("hasty", 1, "--grace", "0.2")
    job = cluster.start(600)
    cluster.wait_job(job, lambda j: j["state"] == "running", "running")
    pid = cluster.pid(job, 1)
    hasty.process.send_signal(signal.SIGTERM)
    assert hasty.process.wait(timeout=20) == 0
    assert cluster.wait_job(job, lambda j: j["state"] == "cancelled", "cancelled")["worker"] == "hasty"
    assert not alive(pid)


def test_bad_worker_messages_get_errors_and_change_nothing(cluster):
    job = cluster.start(5)
    before = cluster.job(job)

    def connect():
        socket = websocket.create_connection(cluster.server.ws, timeout=10)
        assert contract.server_message(socket.recv())["type"] == "snapshot"
        return socket

    def ask(socket, text):
        socket.send(text)
        return contract.server_message(socket.recv())

    viewer = connect()
    pretend = ask(viewer, json.dumps({"type": "result", "job": job, "attempt": 1, "summary": {"forged": True}}))
    assert pretend["code"] == "unauthorized"
    assert ask(viewer, "{not json")["code"] == "bad_json"

    worker = connect()
    hello = {"type": "hello", "role": "worker", "name": "probe", "kinds": ["count"], "slots": 1, "version": 1}
    assert ask(worker, json.dumps(hello))["type"] == "accepted"
    assign = contract.server_message(worker.recv())
    assert assign["type"] == "assign" and assign["job"]["id"] == job and assign["attempt"] == 1
    wrong = ask(worker, json.dumps({"type": "progress", "job": job, "attempt": 7, "completed": 1, "total": 1}))
    assert (wrong["code"], wrong["job"], wrong["attempt"]) == ("lease_lost", job, 7)
    assert ask(worker, json.dumps({"type": "result", "job": "j-nosuchjob", "attempt": 1}))["code"] == "not_found"
    assert ask(worker, json.dumps({"type": "progress", "job": job, "attempt": 1}))["code"] == "bad_request"
    assert ask(worker, json.dumps({"type": "hello", **{k: v for k, v in hello.items() if k != "type"}}))["code"] == "bad_request"
    now = cluster.job(job)
    assert (now["state"], now["progress"]["completed"], now.get("summary")) == ("running", before["progress"]["completed"], None)
    worker.close()
    cluster.wait_job(job, lambda j: j["state"] == "queued" and "worker probe lost" in j.get("error", ""), "the attempt lost")

    mismatched = connect()
    refused = ask(mismatched, json.dumps({**hello, "params": {"count": {"n": {"type": "string"}}}}))
    assert refused["code"] == "kind_mismatch" and "count" in refused["message"]
    assert closes(mismatched), "a refused hello closes the connection"


def closes(socket) -> bool:
    """Reads until the server closes the connection (a read timeout raises instead)."""
    try:
        while socket.recv():
            pass
    except websocket.WebSocketConnectionClosedException:
        pass
    return True


def test_a_refused_worker_exits_2_with_the_reason(cluster, tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"kinds": {"count": {"title": "Count", "command": ["/bin/true"],
                                                      "params": {"n": {"type": "string"}}}}}))
    result = subprocess.run([str(herald_binary()), "work", "--server", cluster.server.url, "--jobs", str(other)],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "refused this worker: kind count" in result.stdout


def test_the_python_worker_from_the_docs_runs_a_job_end_to_end(cluster, tmp_path):
    doc = (REPO_ROOT / "docs" / "workers.md").read_text()
    code = doc.split("<!-- python-worker -->\n```python\n", 1)[1].split("```", 1)[0]
    assert len(code.splitlines()) <= 45
    program = tmp_path / "worker.py"
    program.write_text(code)
    worker = subprocess.Popen([sys.executable, str(program),
                               cluster.server.ws], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(lambda: "py-worker" in [w["name"] for w in cluster.workers()], what="the Python worker attached")
        job = cluster.start(4)
        done = cluster.wait_job(job, lambda j: j["state"] in ("succeeded", "failed", "cancelled"), "the job ends")
        assert (done["state"], done["summary"], done["worker"]) == ("succeeded", {"items": 4}, "py-worker")
        log = cluster.server.json("GET", f"/api/jobs/{job}/log")[1]
        assert [line["text"] for line in log["lines"]] == [f"item {i}" for i in range(1, 5)]
        cancelled = cluster.start(600)
        cluster.wait_job(cancelled, lambda j: j["progress"]["completed"] > 0, "running on the Python worker")
        cluster.server.json("POST", f"/api/jobs/{cancelled}/cancel")
        assert cluster.wait_job(cancelled, lambda j: j["state"] != "running", "cancel reaches it")["state"] == "cancelled"
    finally:
        worker.kill()
        worker.wait()
