"""https and wss on the same port with --tls-cert/--tls-key, using a certificate made by the test."""

import json
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None or shutil.which("websocat") is None,
                                reason="openssl and websocat are installed by `make deps-test`")


@pytest.fixture
def certificate(tmp_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                   check=True, capture_output=True)
    return tmp_path / "cert.pem", tmp_path / "key.pem"


def test_https_and_wss_on_one_port(herald_factory, certificate):
    cert, key = certificate
    herald = herald_factory("--tls-cert", str(cert), "--tls-key", str(key))
    assert herald.url.startswith("https://127.0.0.1:")
    health = subprocess.run(["curl", "-s", "--cacert", str(cert), f"https://127.0.0.1:{herald.port}/healthz"],
                            capture_output=True, text=True, timeout=10)
    assert json.loads(health.stdout)["status"] == "ok", health.stderr
    plain = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", f"http://127.0.0.1:{herald.port}/healthz"],
                           capture_output=True, text=True, timeout=10)
    assert plain.stdout != "200", "plain http is not served on the TLS port"
    result = subprocess.run(
        ["bash", "-c", f'(printf %s "$0"; sleep 1) | websocat -k -t wss://127.0.0.1:{herald.port}/ws', '{"type":"ping"}\n'],
        capture_output=True, text=True, timeout=30)
    messages = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert messages[0]["type"] == "snapshot" and {"type": "pong"} in messages, result.stderr


def test_tls_flags_are_checked(tmp_path):
    from conftest import herald_binary
    lone = subprocess.run([str(herald_binary()), "serve", "--port", "0", "--tls-cert", "/nonexistent"], capture_output=True, text=True, timeout=10)
    assert lone.returncode == 2 and "go together" in lone.stderr
    missing = subprocess.run([str(herald_binary()), "serve", "--port", "0", "--tls-cert", "/nonexistent", "--tls-key", "/nonexistent"],
                             capture_output=True, text=True, timeout=10)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
