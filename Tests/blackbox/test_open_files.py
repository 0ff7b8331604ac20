"""Running out of file descriptors (docs/operations.md, "Limits"): `herald serve` raises its soft
open-files limit to what --max-connections needs, within the hard limit, and says when the hard
limit is short; a server that still runs out pauses accepting (the waiting connections wait)
instead of retrying at once in a loop, logs it a line at a time, and accepts again once
descriptors are free, with one service thread or two."""

import os
import resource
import socket
import time

import pytest

from testkit import Herald, wait_for

UPGRADE = (b"GET /ws HTTP/1.1\r\nHost: herald\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def soft_open_files(pid: int) -> int:
    line = next(line for line in open(f"/proc/{pid}/limits") if line.startswith("Max open files"))
    return int(line.split()[3])


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def healthz_answers(server: Herald) -> bool:
    try:
        return server.request("GET", "/healthz", timeout=2)[0] == 200
    except OSError:
        return False


def test_the_soft_limit_is_raised_to_what_the_connection_limit_needs(tmp_path):
    # Within this process's own hard limit, which only root may raise.
    hard = min(4096, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    if hard < 100 + 1024:
        pytest.skip(f"the hard open-files limit here is {hard}")
    server = Herald("--max-connections", "100", root=tmp_path, open_files=(64, hard))
    try:
        assert soft_open_files(server.process.pid) == 100 + 1024
        assert "open files: raised the limit from 64 to 1124" in server.log()
    finally:
        server.stop()


@pytest.mark.parametrize("threads", ["1", "2"])
def test_out_of_descriptors_it_pauses_accepting_and_accepts_again_once_they_are_free(tmp_path, threads):
    server = Herald("--io-threads", threads, root=tmp_path, open_files=(64, 64))
    clients = []
    try:
        assert "this process may have 64 (the hard limit is 64), and --max-connections 10000 wants 11024" in server.log()
        # More connections than the process has descriptors for: the rest wait in the listen queue.
        for _ in range(100):
            client = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            client.sendall(UPGRADE)
            clients.append(client)
        wait_for(lambda: "cannot accept connections: Too many open files" in server.log(), what="the pause")
        # Nothing to wait for here: what is measured is that nothing happens for a while. A thread
        # that retried at once would use most of a core for it, and write a line per try.
        before = cpu_seconds(server.process.pid)
        time.sleep(2)
        assert cpu_seconds(server.process.pid) - before < 1.0, "the service threads do not spin"
        paused = [line for line in server.log().splitlines() if "cannot accept connections" in line]
        assert 1 <= len(paused) <= int(threads), paused

        for client in clients:
            client.close()
        clients.clear()
        wait_for(lambda: healthz_answers(server), what="an answer once descriptors are free")
        # With two threads the answer may come from the one that did not pause, before the paused one's
        # next sweep (a second at most) takes the connections still queued on its own socket.
        wait_for(lambda: "accepting connections again" in server.log(), what="the paused thread accepting again")
    finally:
        for client in clients:
            client.close()
        server.stop()
