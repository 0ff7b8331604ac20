"""Webhooks told when jobs end (docs/webhooks.md), against real receivers on free loopback ports.

Every delivery a receiver gets is verified with the `standardwebhooks` package (PyPI), an
independent implementation of Standard Webhooks' signature scheme. Retry delays are shortened with
`--webhook-retry-scale` (and attempts with `--webhook-timeout`), so the hours of the real schedule
take milliseconds and no test sleeps by design.
"""

import base64
import json
import os
import signal
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook

from testkit import Herald, herald_binary, wait_for
from testkit.redis_server import free_port

SECRET = "whsec_" + base64.b64encode(b"herald webhook test key 32 bytes").decode()
FAST = ["--webhook-retry-scale", "0.00001", "--webhook-timeout", "1"]


class Receiver:
    """An HTTP receiver on 127.0.0.1, port 0, in this process: it verifies every delivery's
    signature and answers 503 to the first `failures` attempts of deliveries whose job matches
    `flaky` (a job id), 200 to the rest; or, with `redirect_to`, 307 to that URL."""

    def __init__(self, secret=SECRET, redirect_to=None, host="127.0.0.1", port=0):
        self.verifier = Webhook(secret)
        self.lock = threading.Lock()
        self.received = []  # (headers, payload, verified, answered status)
        self.flaky = None
        self.failures = 0
        self.redirect_to = redirect_to
        self.answer = 200
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {key.lower(): value for key, value in self.headers.items()}
                try:
                    payload = receiver.verifier.verify(body, headers)
                    verified = True
                except Exception:  # noqa: BLE001: any failure to verify is recorded, then asserted on
                    payload, verified = json.loads(body), False
                with receiver.lock:
                    tries = sum(1 for seen in receiver.received if seen[0]["webhook-id"] == headers.get("webhook-id"))
                    if receiver.redirect_to:
                        status = 307
                    elif receiver.flaky and payload["data"]["job"]["id"] == receiver.flaky and tries < receiver.failures:
                        status = 503
                    else:
                        status = receiver.answer
                    receiver.received.append((headers, payload, verified, status))
                self.send_response(status)
                if receiver.redirect_to:
                    self.send_header("Location", receiver.redirect_to)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.url = f"http://{host}:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def deliveries(self):
        with self.lock:
            return list(self.received)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Silent:
    """Accepts connections on 127.0.0.1, port 0, reads what is sent and never answers."""

    def __init__(self):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.ids = []
        self.connections = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.accept, daemon=True)
        self.thread.start()

    def accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.connections.append(connection)
            threading.Thread(target=self.read, args=(connection,), daemon=True).start()

    def read(self, connection):
        data = b""
        while b"\r\n\r\n" not in data:
            try:
                chunk = connection.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            data += chunk
        for line in data.split(b"\r\n"):
            if line.lower().startswith(b"webhook-id:"):
                with self.lock:
                    self.ids.append(line.split(b":", 1)[1].strip().decode())

    def stop(self):
        self.listener.close()
        with self.lock:
            for connection in self.connections:
                connection.close()


def write_jobs(tmp_path, notify=None, kinds_notify=None, schedules=None):
    secret = tmp_path / "hook.secret"
    secret.write_text(SECRET + "\n")
    os.chmod(secret, 0o600)
    kinds = {
        "ok": {"command": ["true"]},
        "bad": {"command": ["false"]},
        "slow": {"command": ["sleep", "30"], "timeout": 0.5},
        "nap": {"command": ["sleep", "30"]},
    }
    for kind, entries in (kinds_notify or {}).items():
        kinds[kind]["notify"] = entries
    document = {"kinds": kinds}
    if notify is not None:
        document["notify"] = notify
    if schedules:
        document["schedules"] = schedules
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(document))
    return path


def start(server, kind):
    status, body = server.json("POST", "/api/jobs", {"kind": kind, "params": {}})
    assert status == 202, body
    return body["id"]


def webhooks(server):
    status, body = server.json("GET", "/api/webhooks")
    assert status == 200, body
    return {entry["webhook"]: entry for entry in body["webhooks"]}


def test_every_ending_is_delivered_signed_and_a_failing_delivery_is_retried_with_the_same_id(tmp_path):
    every = Receiver()
    kind_only = Receiver()
    scheduled = Receiver()
    jobs = write_jobs(
        tmp_path,
        notify=[{"on": ["succeeded", "failed", "cancelled", "timedOut"], "webhook": every.url, "secretFile": "hook.secret"}],
        kinds_notify={"slow": [{"on": ["failed"], "webhook": kind_only.url, "secretFile": "hook.secret"}]},
        schedules={"tick": {"kind": "ok", "every": "2s",
                            "notify": [{"on": ["succeeded"], "webhook": scheduled.url, "secretFile": str(tmp_path / "hook.secret")}]}})
    server = Herald("--jobs", str(jobs), *FAST, root=tmp_path)
    try:
        ok = start(server, "ok")
        every.flaky, every.failures = ok, 3
        bad = start(server, "bad")
        slow = start(server, "slow")
        nap = start(server, "nap")
        wait_for(lambda: server.json("GET", f"/api/jobs/{nap}")[1]["state"] == "running", what="the nap to run")
        assert server.json("POST", f"/api/jobs/{nap}/cancel")[0] == 202

        expected = {ok: "job.succeeded", bad: "job.failed", slow: "job.timedOut", nap: "job.cancelled"}

        def delivered():
            done = {payload["data"]["job"]["id"]: payload for _, payload, _, status in every.deliveries() if status == 200}
            return done if set(expected) <= set(done) else None

        done = wait_for(delivered, timeout=30, what="a delivery of each ending")
        seen = every.deliveries()
        assert all(verified for _, _, verified, _ in seen), "every delivery verifies with standardwebhooks"
        for job, kind in expected.items():
            payload = done[job]
            assert payload["type"] == kind
            assert payload["data"]["job"]["id"] == job
            assert payload["data"]["url"] == server.url + "api/jobs/" + job
            record = server.json("GET", f"/api/jobs/{job}")[1]
            assert payload["data"]["job"]["state"] == record["state"]
            if kind != "job.cancelled":
                assert payload["data"]["durationSeconds"] == (record["finishedAt"] - record["startedAt"]) / 1000
        assert done[slow]["data"]["job"]["error"].startswith("timed out after")

        tries = [(headers, status) for headers, payload, _, status in seen if payload["data"]["job"]["id"] == ok]
        assert [status for _, status in tries] == [503, 503, 503, 200], "three failures, then the retry that succeeds"
        assert len({headers["webhook-id"] for headers, _ in tries}) == 1, "every retry carries the same webhook-id"
        others = [payload["data"]["job"]["id"] for _, payload, _, _ in seen if payload["data"]["job"]["id"] != ok]
        assert {bad, slow, nap} <= set(others) and len(others) == len(set(others)), "one delivery per job (the schedule's too)"
        assert all(status == 200 for _, payload, _, status in seen if payload["data"]["job"]["id"] != ok), "one try each"

        # "on": ["failed"] on the kind hears the timeout too; the schedule's entry hears its own jobs.
        kind_seen = wait_for(lambda: kind_only.deliveries() or None, what="the kind's webhook")
        assert [payload["type"] for _, payload, _, _ in kind_seen] == ["job.timedOut"]
        assert kind_seen[0][1]["data"]["job"]["id"] == slow
        tick = wait_for(lambda: scheduled.deliveries() or None, timeout=20, what="the schedule's webhook")
        assert all(verified and payload["data"]["job"]["schedule"] == "tick" for _, payload, verified, _ in tick)

        status = webhooks(server)[every.url]
        assert status["delivered"] >= 4 and status["retried"] == 3 and status["givenUp"] == 0
        flaky = next(d for d in status["deliveries"] if d["job"] == ok)
        assert flaky["status"] == "delivered" and flaky["attempts"] == 4 and flaky["nextAttemptAt"] is None
        assert flaky["id"] == tries[0][0]["webhook-id"] and flaky["lastOutcome"] == "HTTP 200"
        metrics = server.request("GET", "/metrics")[1]
        assert 'herald_webhook_deliveries_total{outcome="retried"} 3' in metrics
        assert 'herald_webhook_deliveries_total{outcome="given_up"} 0' in metrics
        delivered_count = int(next(line.split()[-1] for line in metrics.splitlines()
                                   if line.startswith('herald_webhook_deliveries_total{outcome="delivered"}')))
        assert delivered_count >= 6
        assert SECRET not in server.log() and SECRET not in json.dumps(server.json("GET", "/api/webhooks")[1])
    finally:
        server.stop()
        for receiver in (every, kind_only, scheduled):
            receiver.stop()


def test_a_receiver_that_never_answers_is_given_up_after_ten_attempts(tmp_path):
    silent = Silent()
    jobs = write_jobs(tmp_path, notify=[{"on": ["succeeded"], "webhook": silent.url, "secretFile": "hook.secret"}])
    # Attempts of a second each: a shorter one may end before this process has read the request
    # (libcurl resets the connection it abandons, and the request goes with it).
    server = Herald("--jobs", str(jobs), *FAST, root=tmp_path)
    try:
        job = start(server, "ok")
        status = wait_for(lambda: (lambda s: s if s["givenUp"] == 1 else None)(webhooks(server)[silent.url]),
                          timeout=30, what="the delivery to be given up")
        delivery = status["deliveries"][0]
        assert delivery["job"] == job and delivery["status"] == "givenUp" and delivery["attempts"] == 10
        assert delivery["lastOutcome"] == "timed out after 1 s"
        assert status["retried"] == 9 and status["delivered"] == 0 and status["maxAttempts"] == 10
        wait_for(lambda: len(silent.ids) >= 10, what="the receiver's threads to read the tenth attempt")
        assert silent.ids == [delivery["id"]] * 10, "ten attempts, one id"
        metrics = server.request("GET", "/metrics")[1]
        assert 'herald_webhook_deliveries_total{outcome="given_up"} 1' in metrics
        # The log and the file are written off the dispatcher, after the status changed.
        wait_for(lambda: "gave up delivery " + delivery["id"] in server.log(), what="the log line")
        pending = server.data / "webhooks" / "pending.json"
        wait_for(lambda: json.loads(pending.read_text())["deliveries"] == [], what="the given-up delivery to leave the pending file")
    finally:
        server.stop()
        silent.stop()


def test_a_redirect_to_another_host_is_not_followed(tmp_path):
    elsewhere = Receiver(host="127.0.0.2")
    bouncer = Receiver(redirect_to=elsewhere.url)
    jobs = write_jobs(tmp_path, notify=[{"on": ["succeeded"], "webhook": bouncer.url, "secretFile": "hook.secret"}])
    server = Herald("--jobs", str(jobs), *FAST, root=tmp_path)
    try:
        start(server, "ok")
        status = wait_for(lambda: (lambda s: s if s["givenUp"] == 1 else None)(webhooks(server)[bouncer.url]),
                          timeout=30, what="the bounced delivery to be given up")
        assert status["deliveries"][0]["lastOutcome"] == "HTTP 307"
        assert len(bouncer.deliveries()) == 10
        assert elsewhere.deliveries() == [], "nothing reached the other host"
    finally:
        server.stop()
        bouncer.stop()
        elsewhere.stop()


def test_a_pending_delivery_survives_a_restart_with_its_id(tmp_path):
    receiver = Receiver()
    receiver.answer = 503
    jobs = write_jobs(tmp_path, notify=[{"on": ["succeeded"], "webhook": receiver.url, "secretFile": "hook.secret"}])
    # The first retry is 2 s away (5 s scaled by 0.4): the server is stopped before it comes.
    server = Herald("--jobs", str(jobs), "--webhook-retry-scale", "0.4", root=tmp_path)
    try:
        job = start(server, "ok")
        wait_for(lambda: (lambda d: d and d[0]["attempts"] == 1 and d[0]["nextAttemptAt"])(webhooks(server)[receiver.url]["deliveries"]),
                 what="the first attempt to fail")
    finally:
        assert server.stop() == 0
    # Usually one attempt; a second when this machine was too slow to stop the server within 2 s.
    first = receiver.deliveries()
    assert first and all(status == 503 for _, _, _, status in first)
    assert {headers["webhook-id"] for headers, _, _, _ in first} == {first[0][0]["webhook-id"]}
    pending = json.loads((server.data / "webhooks" / "pending.json").read_text())
    assert [d["id"] for d in pending["deliveries"]] == [first[0][0]["webhook-id"]]
    # An attempt under way when the server stopped is not counted in the file.
    saved = pending["deliveries"][0]["attempts"]
    assert saved in (len(first) - 1, len(first))
    assert SECRET not in (server.data / "webhooks" / "pending.json").read_text()

    receiver.answer = 200
    again = Herald("--jobs", str(jobs), *FAST, root=tmp_path)
    try:
        wait_for(lambda: len(receiver.deliveries()) > len(first), timeout=20, what="the delivery to be resent after the restart")
        headers, payload, verified, status = receiver.deliveries()[len(first)]
        assert verified and status == 200
        assert headers["webhook-id"] == first[0][0]["webhook-id"] and payload["data"]["job"]["id"] == job
        delivery = wait_for(lambda: (lambda s: s["deliveries"][0] if s["delivered"] == 1 else None)(webhooks(again)[receiver.url]),
                            what="the status to say delivered")
        assert delivery["attempts"] == saved + 1, "the count goes on"
        assert len(receiver.deliveries()) == len(first) + 1
    finally:
        again.stop()
        receiver.stop()


def test_on_a_cluster_a_killed_nodes_pending_delivery_is_taken_over_with_its_id(tmp_path, herald_factory, redis_server):
    # The receiver is down (nothing listens on its port) while the node that ran the job holds the delivery.
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    jobs = write_jobs(tmp_path, notify=[{"on": ["succeeded"], "webhook": url, "secretFile": "hook.secret"}])
    # Refused attempts come quickly: the waits (5 s … 8 h, scaled) leave about 20 s before the tenth.
    nodes = {name: herald_factory("--redis", redis_server.url, "--node", name, "--jobs", str(jobs), "--node-lease", "2",
                                  "--webhook-retry-scale", "0.0004")
             for name in ("n1", "n2")}
    job = start(nodes["n1"], "ok")

    def holder():
        for name, node in nodes.items():
            listed = webhooks(node)[url]["deliveries"]
            # Between attempts (one has failed and was recorded), not during one.
            if listed and listed[0]["job"] == job and listed[0]["status"] == "pending" and listed[0]["nextAttemptAt"]:
                return name, listed[0]
        return None

    def mirrored(name, delivery_id):
        """The attempts of that delivery in the node's copy in Redis, or None when it is not there."""
        copy = redis_server.command("HGET", "herald:webhooks", name)
        found = [d for d in json.loads(copy) if d["id"] == delivery_id] if copy else []
        return found[0]["attempts"] if found else None

    # The node that ran it (where there was room) holds it; its copy reaches Redis after its file.
    name, pending = wait_for(holder, what="a node to hold the pending delivery between attempts")
    copied = wait_for(lambda: (lambda n: n if n is not None and n >= pending["attempts"] else None)(mirrored(name, pending["id"])),
                      what="the delivery, with its failed attempts, in the node's copy in Redis")
    dead = nodes.pop(name)
    (other, survivor), = nodes.items()
    dead.process.send_signal(signal.SIGKILL)
    dead.process.wait()
    receiver = Receiver(port=port)
    try:
        delivered = wait_for(lambda: (lambda s: s["deliveries"][0] if s["delivered"] == 1 else None)(webhooks(survivor)[url]),
                             timeout=30, what="the other node to deliver it")
        got = receiver.deliveries()
        assert len(got) == 1, [headers["webhook-id"] for headers, _, _, _ in got]
        headers, payload, verified, status = got[0]
        assert verified and status == 200, "signed with the webhook's secret, verified by standardwebhooks"
        assert headers["webhook-id"] == delivered["id"] == pending["id"], "the same id"
        assert payload["data"]["job"]["id"] == job and delivered["job"] == job
        # The count goes on from the copy (at least the one read above; more if the node wrote a newer one
        # before it was killed; an attempt under way at the kill is not counted).
        assert delivered["attempts"] > copied >= 1, "its count goes on"
        assert f"node {name} stopped with 1 pending webhook delivery" in survivor.log()
        assert redis_server.command("HEXISTS", "herald:webhooks", name) == 0, "taken, so taken once"
        wait_for(lambda: redis_server.command("HEXISTS", "herald:webhooks", other) == 0,
                 what="the survivor's copy to empty once delivered")
    finally:
        receiver.stop()


def check(path):
    return subprocess.run([str(herald_binary()), "jobs", "check", str(path)], capture_output=True, text=True, timeout=30)


def test_bad_notify_entries_stop_check_and_serve_with_one_line(tmp_path):
    (tmp_path / "bad.secret").write_text("not-a-secret-at-all\n")
    cases = {
        "ftp://127.0.0.1/hook": ("hook.secret", ["succeeded"], "scheme ftp"),
        "http://example.com/hook": ("hook.secret", ["succeeded"], "http:// is only for loopback"),
        "http://127.0.0.1:9/a": ("missing.secret", ["succeeded"], "cannot be read"),
        "http://127.0.0.1:9/b": ("bad.secret", ["succeeded"], "whsec_ followed by base64"),
        "http://127.0.0.1:9/c": ("hook.secret", ["finished"], "\"finished\""),
    }
    for url, (secret, on, words) in cases.items():
        jobs = write_jobs(tmp_path, notify=[{"on": on, "webhook": url, "secretFile": secret}])
        result = check(jobs)
        assert result.returncode == 2, (url, result)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "notify" in lines[0], (url, lines)
        assert SECRET not in result.stderr and "not-a-secret-at-all" not in result.stderr
        served = subprocess.run([str(herald_binary()), "serve", "--port", "0", "--data-dir", str(tmp_path / "data"), "--jobs", str(jobs)],
                                capture_output=True, text=True, timeout=30)
        assert served.returncode == 2 and served.stderr.strip().splitlines() == [f"herald: {lines[0].removeprefix('herald: ')}"]
    good = write_jobs(tmp_path, notify=[{"on": ["failed"], "webhook": "http://[::1]:9/x", "secretFile": "hook.secret"}],
                      kinds_notify={"ok": [{"on": ["timedOut"], "webhook": "https://hooks.example/x", "secretFile": "hook.secret"}]})
    checked = check(good)
    assert checked.returncode == 0, checked
    assert ", 2 webhooks, all usable" in checked.stdout and "webhook https://hooks.example/x: signed with" in checked.stdout
    assert SECRET not in checked.stdout
