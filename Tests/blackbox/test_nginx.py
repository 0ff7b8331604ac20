"""deploy/nginx.conf for real: nginx from Debian on loopback, TLS with a certificate made here,
in front of the real Herald; the websocat smoke test and a REST call go through it."""

import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from testkit import REPO_ROOT, contract, wait_for

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
WEBSOCAT = shutil.which("websocat")
pytestmark = pytest.mark.skipif(not Path(NGINX).exists() or WEBSOCAT is None or shutil.which("openssl") is None,
                                reason="nginx-light, openssl and websocat are installed by `make deps-test`")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Nginx:
    """A deploy file's site run by a real nginx on a free loopback port, with a certificate made here:
    `backends` maps each `server 127.0.0.1:PORT` of the file to a running server's port."""

    def __init__(self, deploy_file: str, backends: dict, tmp_path: Path):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                       check=True, capture_output=True)
        self.port = free_port()
        site = (REPO_ROOT / "deploy" / deploy_file).read_text()
        site = (site.replace("listen 443 ssl;", f"listen 127.0.0.1:{self.port} ssl;")
                    .replace("/etc/ssl/certs/herald.pem", str(tmp_path / "cert.pem"))
                    .replace("/etc/ssl/private/herald.key", str(tmp_path / "key.pem")))
        for deployed, running in backends.items():
            site = re.sub(rf"server 127\.0\.0\.1:{deployed}\b", f"server 127.0.0.1:{running}", site)
        assert all(f"127.0.0.1:{running}" in site for running in backends.values()) and str(self.port) in site, \
            "the deploy file still has the lines this test swaps"
        (tmp_path / "nginx.conf").write_text(f"""
            daemon off;
            pid {tmp_path}/nginx.pid;
            error_log {tmp_path}/error.log;
            events {{ worker_connections 256; }}
            http {{
                access_log off;
                client_body_temp_path {tmp_path}/body;
                proxy_temp_path {tmp_path}/proxy;
                {site}
            }}""")
        self.process = subprocess.Popen([NGINX, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        def listening():
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", self.port)) == 0
        wait_for(listening, what="nginx to listen")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def proxy(herald, tmp_path):
    nginx = Nginx("nginx.conf", {8080: herald.port}, tmp_path)
    yield nginx.port
    nginx.stop()


def test_websocket_and_rest_through_nginx_with_tls(herald, proxy):
    script = ('{"type":"start","kind":"search","params":{"query":"needle"},"requestId":"n1"}\n')
    result = subprocess.run(
        ["bash", "-c", f'(printf %s "$0"; sleep 2) | {WEBSOCAT} -k -t wss://127.0.0.1:{proxy}/ws', script],
        capture_output=True, text=True, timeout=30)
    messages = [contract.server_message(line) for line in result.stdout.splitlines() if line.strip()]
    assert messages and messages[0]["type"] == "snapshot", result.stderr
    states = [m["job"]["state"] for m in messages if m.get("type") == "job"]
    assert states[-1] == "succeeded"
    curl = subprocess.run(["curl", "-sk", f"https://127.0.0.1:{proxy}/healthz"], capture_output=True, text=True, timeout=10)
    assert contract.rest_answer("GET", "/healthz", 200, "application/json", curl.stdout)["status"] == "ok"
