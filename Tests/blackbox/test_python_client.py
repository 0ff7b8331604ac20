"""The Python client (clients/python, `import herald`) against the real binary: starting, waiting,
cancelling, paging logs and results, the event stream and its resume after a dropped connection,
and job programs that report through the client's progress functions (`herald.report`,
`herald.tqdm`), read back from the server.
"""

import ast
import io
import json
import random
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import herald
from testkit import wait_for

# A job program that reports through the client: what the server shows must be what it reported.
REPORTING_PROGRAM = r'''
import sys, time, herald
steps = int(sys.argv[1])
for i in herald.tqdm(range(steps), desc="step", mininterval=0):
    herald.log(f"line {i}")
    time.sleep(0.02)
herald.items([{"step": i} for i in range(3)])
herald.log("to stderr", stream="stderr")
herald.result(steps=steps, ok=True)
herald.report(1.0, message="done")
'''

# Counts `total` lines of output, `pause` seconds apart, reporting each as progress.
STEPS_PROGRAM = r'''
import sys, time, herald
total, pause = int(sys.argv[1]), float(sys.argv[2])
for i in range(total):
    herald.log(f"line {i}")
    herald.report(completed=i + 1, total=total, message=f"step {i}")
    time.sleep(pause)
'''


def jobs_file(folder: Path, kinds: dict) -> str:
    path = folder / "jobs.json"
    path.write_text(json.dumps({"kinds": kinds}))
    return str(path)


def python_kind(folder: Path, program: str, *args: str, **extra) -> dict:
    """A kind that runs `program` with this interpreter, which has the client installed. The program
    goes in a file: braces in a command line are the jobs file's placeholders."""
    script = folder / f"program{len(list(folder.glob('program*.py')))}.py"
    script.write_text(program)
    return {"command": [sys.executable, str(script), *args], **extra}


def steps_kind(folder: Path, **extra) -> dict:
    return python_kind(folder, STEPS_PROGRAM, "{total}", "{pause}", params={
        "total": {"type": "integer", "default": 10}, "pause": {"type": "number", "default": 0.02}}, **extra)


@pytest.fixture
def client_for():
    clients = []

    def make(server, **options) -> herald.Herald:
        client = herald.Herald(server.url, timeout=10, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def test_start_wait_and_page_results(herald_factory, client_for):
    client = client_for(herald_factory())
    sort = client.start("sort", {"count": 2500})
    final = sort.wait(timeout=30, raise_on_failure=True)
    assert final["state"] == "succeeded" and sort.done and final["summary"]["count"] == 2500
    values = list(sort.results(page_size=1000))
    assert len(values) == 2500 and values == sorted(values)
    assert (values[0], values[-1]) == (final["summary"]["min"], final["summary"]["max"])

    search = client.start("search", {"query": "needle"})
    assert search.wait(timeout=30)["state"] == "succeeded"
    matches = list(search.results(page_size=300))
    # The fixture's corpus: 20 files with 50 "needle here" lines each.
    assert len(matches) == 1000 == search.record["summary"]["matches"]
    assert {match["text"] for match in matches} == {"needle here"}
    assert len({(match["file"], match["line"]) for match in matches}) == 1000, "no match twice across pages"

    assert client.job(sort.id).record == final
    assert [job.id for job in client.jobs()] == [sort.id, search.id]
    assert [job.id for job in client.history(kind="sort", page_size=1)] == [sort.id]
    assert [job.id for job in client.history(page_size=1)] == [search.id, sort.id]


def test_errors_carry_the_servers_code(herald_factory, tmp_path, client_for):
    server = herald_factory("--token", "s3cret", "--jobs", jobs_file(tmp_path, {
        "fails": {"command": ["sh", "-c", "echo 'disk full' >&2; exit 3"]},
        "slow": python_kind(tmp_path, "import time; time.sleep(60)", whenBusy="refuse"),
    }))
    anonymous = client_for(server)
    with pytest.raises(herald.Unauthorized) as refused:
        anonymous.start("sort")
    assert (refused.value.code, refused.value.status) == ("unauthorized", 401)

    client = client_for(server, token="s3cret")
    with pytest.raises(herald.BadRequest) as unknown:
        client.start("nope")
    assert unknown.value.code == "unknown_kind" and "nope" in unknown.value.message
    with pytest.raises(herald.BadRequest) as bad:
        client.start("sort", {"count": "many"})
    assert bad.value.code == "bad_request" and bad.value.message.startswith("count")
    with pytest.raises(herald.NotFound) as missing:
        client.job("j-nosuchjob000")
    assert (missing.value.code, missing.value.status) == ("not_found", 404)

    slow = client.start("slow")
    with pytest.raises(herald.Busy) as busy:
        client.start("slow")
    assert busy.value.code == "busy" and busy.value.status == 409
    slow.cancel()
    assert slow.wait(timeout=30)["state"] == "cancelled"

    failing = client.start("fails")
    final = failing.wait(timeout=30)
    assert final["state"] == "failed" and final["exit"] == {"code": 3}
    with pytest.raises(herald.JobFailed) as failed:
        failing.wait(timeout=30, raise_on_failure=True)
    assert failed.value.state == "failed" and "disk full" in str(failed.value)
    with pytest.raises(herald.NotCancellable):
        failing.cancel()


def test_cancel_a_running_job(herald_factory, tmp_path, client_for):
    server = herald_factory("--jobs", jobs_file(tmp_path, {"steps": steps_kind(tmp_path)}))
    client = client_for(server)
    job = client.start("steps", {"total": 100000, "pause": 0.01})
    for event in job.events(timeout=30):
        if event.type == "progress":
            break
    assert job.state == "running"
    assert job.cancel()["id"] == job.id
    with pytest.raises(herald.JobFailed) as cancelled:
        job.wait(timeout=30, raise_on_failure=True)
    assert cancelled.value.state == "cancelled" and job.record["state"] == "cancelled"


def test_log_pages_number_every_kept_line(herald_factory, tmp_path, client_for):
    flood = "import sys\nfor i in range(int(sys.argv[1])): print(f'line {i}')"
    server = herald_factory("--jobs", jobs_file(tmp_path, {
        "flood": python_kind(tmp_path, flood, "{n}", params={"n": {"type": "integer"}})}))
    client = client_for(server)

    short = client.start("flood", {"n": 2500})
    short.wait(timeout=30, raise_on_failure=True)
    lines = list(short.log(page_size=1000))
    assert [line.text for line in lines] == [f"line {i}" for i in range(2500)]
    assert [line.number for line in lines] == list(range(2500))
    assert {line.stream for line in lines} == {"stdout"}

    # Past the 10,000 kept lines the oldest fall off: numbers go on counting the whole output.
    long = client.start("flood", {"n": 10500})
    long.wait(timeout=60, raise_on_failure=True)
    kept = list(long.log(page_size=3000))
    assert [line.number for line in kept] == list(range(500, 10500))
    assert [line.text for line in kept] == [f"line {i}" for i in range(500, 10500)]

    with pytest.raises(herald.NotFound):
        next(iter(client.start("sort", {"count": 10}).log()))


def test_log_follow_joins_paged_and_streamed_lines(herald_factory, tmp_path, client_for):
    server = herald_factory("--jobs", jobs_file(tmp_path, {"steps": steps_kind(tmp_path)}))
    client = client_for(server)
    job = client.start("steps", {"total": 60, "pause": 0.02})
    wait_for(lambda: client.job(job.id).record["progress"]["completed"] >= 10, what="some lines written")
    followed = list(job.log(follow=True, page_size=7))
    assert [line.text for line in followed] == [f"line {i}" for i in range(60)]
    assert [line.number for line in followed] == list(range(60))
    assert job.state == "succeeded"


def test_a_job_program_reports_through_the_client(herald_factory, tmp_path, client_for):
    kind = python_kind(tmp_path, REPORTING_PROGRAM, "{steps}", params={"steps": {"type": "integer", "default": 20}})
    server = herald_factory("--jobs", jobs_file(tmp_path, {"report": kind, "report3": {**kind, "progressFrom": "fd3"}}))
    client = client_for(server)
    for name in ("report", "report3"):
        job = client.start(name)
        events = list(job.events(timeout=30))
        assert events[0].type == "job" and events[0].job["state"] == "queued", "from the job's first event"
        assert events[-1].type == "job" and events[-1].job["state"] == "succeeded", events[-1].data
        assert [event.seq for event in events] == sorted(set(event.seq for event in events))
        progress = [event for event in events if event.type == "progress"]
        # The server paces progress (at most 20 a second), so the bar's steps may be merged; the last
        # value reported always goes out.
        steps = [event["completed"] for event in progress if (event["total"], event["message"]) == (20, "step")]
        assert steps and steps == sorted(steps) and steps[-1] <= 20, name
        assert (progress[-1]["completed"], progress[-1]["total"], progress[-1]["fraction"], progress[-1]["message"]) == (
            1000, 1000, 1, "done"), "herald.report(1.0) is a fraction"
        assert [event["items"] for event in events if event.type == "results"] == [[{"step": 0}, {"step": 1}, {"step": 2}]]
        assert job.record["summary"] == {"steps": 20, "ok": True}
        lines = list(job.log())
        # stdout and stderr are separate pipes: their lines keep their order within each, not between them.
        assert [line.text for line in lines if line.stream == "stdout"] == [f"line {i}" for i in range(20)], name
        assert [line.text for line in lines if line.stream == "stderr"] == ["to stderr"], name


def test_tqdm_paces_its_reports_and_always_sends_the_last():
    output = io.StringIO()
    herald.set_output(output)
    try:
        with herald.tqdm(total=1000, desc="copying", mininterval=3600) as bar:
            for _ in range(1000):
                bar.update(1)
            bar.set_postfix(files=3, refresh=False)
        for _ in herald.tqdm(iter(range(3)), mininterval=0):
            pass
        herald.report(completed=5, total=10)
    finally:
        herald.set_output(None)
    lines = [json.loads(line) for line in output.getvalue().splitlines()]
    assert lines == [
        {"completed": 1, "total": 1000, "message": "copying"},  # the first update reports at once
        {"completed": 1000, "total": 1000, "message": "copying, files=3"},  # then only the last
        {"completed": 1, "total": 0}, {"completed": 2, "total": 0}, {"completed": 3, "total": 0},
        {"completed": 5, "total": 10},
    ]
    with pytest.raises(ValueError):
        herald.report(0.5, completed=1, total=2)


def test_events_resume_from_a_position_and_across_epochs(herald_factory, client_for):
    client = client_for(herald_factory())
    with client.events() as stream:
        snapshot = stream.recv(timeout=10)
        assert snapshot.type == "snapshot" and snapshot["reason"] == "connect"
        client.start("sort", {"count": 100}).wait(timeout=30)
        first = [stream.recv(timeout=10) for _ in range(2)]
        assert [event.seq for event in first] == [snapshot.seq + 1, snapshot.seq + 2]
        middle = stream.position
        rest = []
        while not rest or rest[-1].type != "job" or rest[-1].job["state"] != "succeeded":
            rest.append(stream.recv(timeout=10))

    with client.events(since=middle) as resumed:
        again = [resumed.recv(timeout=10) for _ in rest]
    assert [event.data for event in again] == [event.data for event in rest], "exactly the events after the position"

    # Another epoch (as after a restart): the server answers with a snapshot, and the stream follows it.
    with client.events(since=("0000000000000000", 2)) as other:
        replaced = other.recv(timeout=10)
        assert replaced.type == "snapshot" and replaced["reason"] == "resume"
        assert other.position == (snapshot.epoch, rest[-1].seq)
        job = client.start("sort", {"count": 100})
        assert other.recv(timeout=10).data["job"]["id"] == job.id
        assert other.position.seq == rest[-1].seq + 1


class CuttableProxy:
    """A TCP relay from a loopback port of its own to the server's. `cut()` ends every connection
    relayed so far, as a network drop would (no close frame either way); new connections still pass."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted = 0
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                downstream, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self._lock:
                self.accepted += 1
                self._sockets += [downstream, upstream]
            for source, target in ((downstream, upstream), (upstream, downstream)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket):
        try:
            while data := source.recv(65536):
                target.sendall(data)
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def cut(self):
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def close(self):
        self.listener.close()
        self.cut()


def test_a_dropped_stream_resumes_without_losing_or_repeating_an_event(herald_factory, tmp_path, client_for):
    server = herald_factory("--jobs", jobs_file(tmp_path, {"steps": steps_kind(tmp_path)}))
    proxy = CuttableProxy(server.port)
    through_proxy = herald.Herald(f"http://127.0.0.1:{proxy.port}", reconnect_delay=0.2)
    try:
        direct = client_for(server)

        def until_final(stream, job_ids, on_event=None):
            seen = []
            while True:
                event = stream.recv(timeout=30)
                seen.append(event)
                if on_event:
                    on_event(event, seen)
                if event.type == "job" and event.job["id"] in job_ids and event.job["state"] in herald.FINAL_STATES:
                    return seen

        undisturbed_stream = direct.events()
        disturbed_stream = through_proxy.events()
        start_seq = undisturbed_stream.recv(timeout=10).seq
        assert disturbed_stream.recv(timeout=10).seq == start_seq, "both from the same point"

        job = direct.start("steps", {"total": 80, "pause": 0.02})
        job_ids = {job.id}
        undisturbed = []
        watcher = threading.Thread(target=lambda: undisturbed.extend(until_final(undisturbed_stream, job_ids)))
        watcher.start()

        cut_at = []

        def cut_mid_job(event, seen):
            if not cut_at and len(seen) == 10:
                proxy.cut()
                cut_at.append(event.seq)

        disturbed = until_final(disturbed_stream, job_ids, cut_mid_job)
        watcher.join(timeout=60)
        assert not watcher.is_alive()

        assert cut_at, "the connection was cut while the job ran"
        assert proxy.accepted >= 2 and disturbed_stream.reconnects >= 1, "the stream connected again"
        seqs = [event.seq for event in disturbed]
        assert seqs == list(range(start_seq + 1, start_seq + 1 + len(seqs))), "gapless, no repeats"
        assert {event.type for event in disturbed} <= {"job", "progress", "log"}, "resumed, not replaced by a snapshot"
        assert [event.data for event in disturbed] == [event.data for event in undisturbed]
        assert seqs[-1] > cut_at[0] + 1, "events after the cut came through the resume"
        assert sum(event.type == "progress" for event in disturbed) >= 2
    finally:
        through_proxy.close()
        proxy.close()


def test_a_stream_keeps_retrying_while_the_server_is_away_and_close_ends_it():
    # A port nobody listens on: bound and closed again, so nothing answers there.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = herald.Herald(f"ws://127.0.0.1:{port}/ws", reconnect_delay=0.05, max_reconnect_delay=0.1)
    assert (client.url, client.ws_url) == (f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws")
    stream = client.events()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        stream.recv(timeout=0.5)
    assert time.monotonic() - started < 5
    client.close()
    assert list(stream) == [], "a closed stream ends its iteration"
    with pytest.raises(herald.HeraldConnectionError):
        client.job("j-x")


EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples"


def test_the_readme_examples_run(herald_factory, tmp_path):
    folder = tmp_path / "tree"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("1\n2\n3\n")
    (folder / "sub" / "b.txt").write_text("x\n" * 40)
    server = herald_factory("--jobs", jobs_file(tmp_path, {"count-lines": {
        "command": [sys.executable, str(EXAMPLES / "count_files.py"), "{folder}"],
        "params": {"folder": {"type": "string", "required": True}}}}))

    follow = subprocess.run([sys.executable, str(EXAMPLES / "sort_and_follow.py"), server.url, "5000"],
                            capture_output=True, text=True, timeout=60)
    assert follow.returncode == 0, follow.stderr
    lines = follow.stdout.splitlines()
    assert lines[0].startswith("started j-") and "state: succeeded" in lines
    assert lines[-2].startswith("summary: {'count': 5000")
    smallest = ast.literal_eval(lines[-1].removeprefix("smallest: "))
    assert len(smallest) == 10 and smallest == sorted(smallest)

    with herald.Herald(server.url) as client:
        job = client.start("count-lines", {"folder": str(folder)})
        assert job.wait(timeout=30, raise_on_failure=True)["summary"] == {"files": 2, "lines": 43, "unreadable": 0}


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is installed by `make deps-test`")
def test_https_and_wss_with_a_private_ca(herald_factory, tmp_path):
    # Self-signed, naming 127.0.0.1 in subjectAltName: clients check an IP address there, not in CN.
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    server = herald_factory("--tls-cert", str(cert), "--tls-key", str(key))
    with herald.Herald(server.url, ssl_context=ssl.create_default_context(cafile=str(cert))) as client:
        assert client.ws_url == f"wss://127.0.0.1:{server.port}/ws"
        job = client.start("sort", {"count": 100})
        assert [event.type for event in job.events(timeout=30)][-1] == "job"
        assert job.wait(timeout=30)["state"] == "succeeded"

    # Without the CA the certificate is refused: an error at once, never retried.
    with herald.Herald(server.url, reconnect_delay=0.05) as untrusting:
        with pytest.raises(herald.HeraldConnectionError, match="certificate"):
            untrusting.job(job.id)
        with pytest.raises(herald.HeraldConnectionError, match="certificate"):
            untrusting.events().recv(timeout=30)


def test_reconnection_delays_double_up_to_the_cap_with_jitter():
    from herald.stream import backoff_delays

    delays = backoff_delays(0.5, 8.0, rng=random.Random(7))
    waits = [next(delays) for _ in range(8)]
    for wait, nominal in zip(waits, [0.5, 1, 2, 4, 8, 8, 8, 8]):
        assert nominal * 0.8 <= wait <= nominal * 1.2, (wait, nominal)
    assert len({round(wait / nominal, 6) for wait, nominal in zip(waits, [0.5, 1, 2, 4, 8, 8, 8, 8])}) > 1, "jittered"
