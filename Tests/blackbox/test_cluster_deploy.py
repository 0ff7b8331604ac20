"""deploy/ for a cluster (docs/scaling.md): the node template unit verifies and uses flags the binary
has, and deploy/nginx-cluster.conf runs for real in front of three nodes sharing one Redis."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import websocket  # websocket-client

from testkit import REPO_ROOT, contract, herald_binary, wait_for
from test_nginx import NGINX, Nginx


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not on this machine")
def test_node_template_unit_verifies(tmp_path):
    unit = (REPO_ROOT / "deploy" / "herald@.service").read_text()
    # An instance of the template, its ExecStart pointing at the binary just built.
    (tmp_path / "herald@n1.service").write_text(unit.replace("/usr/local/bin/herald", str(herald_binary())))
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "herald@n1.service")], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    for setting in ("--node %i", "--redis ${REDIS}", "--port ${PORT}", "StateDirectory=herald/%i", "NoNewPrivileges=yes",
                    "ProtectSystem=strict", "KillSignal=SIGTERM", "Restart=always"):
        assert setting in unit, setting


def test_node_template_uses_flags_the_binary_has():
    help_text = subprocess.run([str(herald_binary()), "serve", "--help"], capture_output=True, text=True).stdout
    unit = (REPO_ROOT / "deploy" / "herald@.service").read_text()
    start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    for flag in set(re.findall(r"(--[a-z-]+)", start)):
        assert flag in help_text, f"herald@.service uses {flag}, which `herald serve --help` does not list"


@pytest.mark.skipif(not Path(NGINX).exists() or shutil.which("openssl") is None,
                    reason="nginx-light and openssl are installed by `make deps-test`")
def test_three_nodes_behind_nginx_need_no_sticky_sessions(herald_factory, redis_factory, tmp_path):
    redis = redis_factory()
    nodes = [herald_factory("--redis", redis.url, "--node", f"n{index}") for index in (1, 2, 3)]
    nginx = Nginx("nginx-cluster.conf", {8081 + index: node.port for index, node in enumerate(nodes)}, tmp_path)
    port = nginx.port
    try:
        def healthz():
            result = subprocess.run(["curl", "-sk", f"https://127.0.0.1:{port}/healthz"], capture_output=True, text=True, timeout=10)
            return json.loads(result.stdout) if result.returncode == 0 and result.stdout else None
        wait_for(healthz, what="nginx in front of the nodes")
        # No Origin: the test's nginx listens on a port of its own, which `proxy_set_header Host $host`
        # drops, so a browser-like Origin would not match the Host Herald sees (on 443 they match).
        options = {"sslopt": {"cert_reqs": 0}, "suppress_origin": True}
        viewers = []
        for _ in range(6):
            socket = websocket.create_connection(f"wss://127.0.0.1:{port}/ws", timeout=10, **options)
            viewers.append(socket)
        snapshots = [contract.server_message(socket.recv()) for socket in viewers]
        assert {snapshot["type"] for snapshot in snapshots} == {"snapshot"}
        assert len({snapshot["epoch"] for snapshot in snapshots}) == 1, "one stream, whichever node answered"
        served = {json.loads(subprocess.run(["curl", "-sk", f"https://127.0.0.1:{port}/healthz"], capture_output=True,
                                            text=True, timeout=10).stdout)["node"] for _ in range(9)}
        assert len(served) >= 2, f"nginx spreads requests over the nodes: {served}"
        started = subprocess.run(["curl", "-sk", "-X", "POST", "-H", "Content-Type: application/json", "--data",
                                  '{"kind": "search", "params": {"query": "needle"}}', f"https://127.0.0.1:{port}/api/jobs"],
                                 capture_output=True, text=True, timeout=10)
        job = json.loads(started.stdout)["id"]
        for socket in viewers:
            def ended():
                message = contract.server_message(socket.recv())
                return message.get("type") == "job" and message["job"]["id"] == job and message["job"]["state"] == "succeeded"
            wait_for(ended, what="the search's end on every viewer", interval=0)
            socket.close()
    finally:
        nginx.stop()
