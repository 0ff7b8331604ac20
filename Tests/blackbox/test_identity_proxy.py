"""A trusted proxy names the user (docs/security.md, "Behind oauth2-proxy or nginx auth_request"):
a real nginx from Debian, connecting to Herald from 127.0.0.2, sets X-Forwarded-User; Herald
believes that header from 127.0.0.2 only. The same header sent straight from 127.0.0.1 is ignored,
and with identities on, a request without one is refused: 401 on REST and at the WebSocket handshake."""

import json
import shutil
import socket
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websocket  # websocket-client

from testkit import contract, wait_for

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
pytestmark = pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx-light is installed by `make deps-test`")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def proxied(herald_factory, tmp_path):
    """Herald trusting 127.0.0.2, and nginx in front of it signing everyone in as `ann`."""
    herald = herald_factory("--trust-user-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.2/32")
    port = free_port()
    (tmp_path / "nginx.conf").write_text(f"""
        daemon off;
        pid {tmp_path}/nginx.pid;
        error_log {tmp_path}/error.log;
        events {{ worker_connections 64; }}
        http {{
            access_log off;
            client_body_temp_path {tmp_path}/body;
            proxy_temp_path {tmp_path}/proxy;
            server {{
                listen 127.0.0.1:{port};
                location / {{
                    proxy_pass http://127.0.0.1:{herald.port};
                    proxy_bind 127.0.0.2;
                    proxy_http_version 1.1;
                    proxy_set_header Upgrade $http_upgrade;
                    proxy_set_header Connection "upgrade";
                    proxy_set_header Host $http_host;
                    proxy_set_header X-Forwarded-User "ann";
                }}
            }}
        }}""")
    nginx = subprocess.Popen([NGINX, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def listening():
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0
    wait_for(listening, what="nginx to listen")
    yield herald, port
    nginx.terminate()
    nginx.wait(timeout=10)


def fetch(url, method="GET", body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def handshake_status(port, headers=()):
    """The status line's code of a WebSocket handshake sent by hand (no client library hides a 401)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        request = (f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                   + "".join(f"{name}: {value}\r\n" for name, value in headers) + "\r\n")
        connection.sendall(request.encode())
        reply = connection.recv(4096).decode(errors="replace")
    return int(reply.split(" ", 2)[1]) if reply.startswith("HTTP/1.") else None


def test_the_proxy_names_the_user_who_starts_and_is_recorded(proxied):
    herald, port = proxied
    status, session = fetch(f"http://127.0.0.1:{port}/api/session")
    assert status == 200 and session == {"name": "ann", "role": "operator", "via": "proxy"}, session
    contract.rest_answer("GET", "/api/session", status, "application/json", json.dumps(session))
    status, job = fetch(f"http://127.0.0.1:{port}/api/jobs", "POST", {"kind": "search", "params": {"query": "needle"}})
    assert status == 202 and job["startedBy"] == "ann", job
    viewer = websocket.create_connection(f"ws://127.0.0.1:{port}/ws", timeout=10)
    try:
        snapshot = contract.server_message(json.loads(viewer.recv()))
        assert snapshot["type"] == "snapshot" and job["id"] in [each["id"] for each in snapshot["jobs"]]
    finally:
        viewer.close()
    assert "X-Forwarded-User" not in herald.log() and "ann (operator)" in herald.log()


def test_the_header_from_an_untrusted_address_is_ignored(proxied):
    herald, _ = proxied
    status, refused = fetch(herald.url + "api/session", headers={"X-Forwarded-User": "mallory"})
    assert status == 401 and refused["code"] == "unauthorized", refused
    status, refused = fetch(herald.url + "api/jobs", "POST", {"kind": "search", "params": {"query": "x"}},
                            headers={"X-Forwarded-User": "mallory"})
    assert status == 401, refused
    assert handshake_status(herald.port, [("X-Forwarded-User", "mallory")]) == 401
    assert handshake_status(herald.port) == 401
    status, health = fetch(herald.url + "healthz")
    assert status == 200 and health["status"] == "ok", "/healthz stays open"
    assert "mallory" not in json.dumps(fetch(herald.url + "api/jobs?limit=10")), "and nothing else is"
