"""`herald serve --io-threads N`: N service threads on one port, one stream (docs/architecture.md,
"Several service threads"). Many real clients over two threads each get every event once and in
order, /metrics counts every thread's connections, SIGTERM closes them all with 1001; one thread is
one service thread; a bad N is a usage error."""

import json
import os
import struct
import subprocess

import websocket

from testkit import herald_binary, wait_for


def service_threads(pid: int) -> list:
    """The names of the process's service threads: herald.service, then herald.svc.1 and on."""
    names = [open(f"/proc/{pid}/task/{task}/comm").read().strip() for task in os.listdir(f"/proc/{pid}/task")]
    return sorted(name for name in names if name == "herald.service" or name.startswith("herald.svc."))


def read_until(client, predicate):
    while True:
        message = json.loads(client.recv())
        if predicate(message):
            return message


def close_code(client) -> int | None:
    """Reads until the server's close frame; its code."""
    while True:
        opcode, data = client.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None


def test_two_threads_give_every_client_every_event_in_order_and_close_all_with_1001(herald_factory):
    server = herald_factory("--io-threads", "2")
    assert service_threads(server.process.pid) == ["herald.service", "herald.svc.1"]
    clients = [websocket.create_connection(server.ws, timeout=20) for _ in range(40)]
    for client in clients:
        assert json.loads(client.recv())["type"] == "snapshot"
    clients[0].send(json.dumps({"type": "start", "kind": "search", "params": {"query": "needle"}, "requestId": "r"}))
    streams = []
    for client in clients:
        seen = []
        read_until(client, lambda m: seen.append(m) or (m.get("type") == "job" and m["job"]["state"] == "succeeded"))
        streams.append([m["seq"] for m in seen if "seq" in m])
    # Clients that connected later begin later (news goes on meanwhile); all end at the job's end.
    longest = max(streams, key=len)
    assert longest == list(range(longest[0], longest[0] + len(longest))), "each event once, in order"
    assert all(stream and longest[-len(stream):] == stream for stream in streams), "every client the same stream"

    def connections_open():
        _, text, _ = server.request("GET", "/metrics")
        return next(line for line in text.splitlines() if line.startswith("herald_connections_open ")).split()[1] == "40"

    wait_for(connections_open, what="/metrics to count both threads' 40 connections")
    server.process.send_signal(15)
    assert [close_code(client) for client in clients] == [1001] * 40
    assert server.process.wait(timeout=20) == 0


def test_one_thread_is_one_service_thread(herald_factory):
    server = herald_factory("--io-threads", "1")
    assert service_threads(server.process.pid) == ["herald.service"]
    client = websocket.create_connection(server.ws, timeout=10)
    assert json.loads(client.recv())["type"] == "snapshot"
    status, health = server.json("GET", "/healthz")
    assert status == 200 and health["status"] == "ok", health


def test_a_bad_thread_count_is_a_usage_error():
    for value in ("0", "17", "two"):
        result = subprocess.run([str(herald_binary()), "serve", "--io-threads", value], capture_output=True, text=True, timeout=30)
        assert result.returncode == 2 and "--io-threads must be a whole number from 1 to 16" in result.stderr, result.stderr
