"""testkit/redis_server.py works: a server answers PING on a raw socket, a restart without persistence
loses the keys and one with AOF everysec keeps them, and kill, pause and resume act on the PID."""

import socket

import pytest


def test_ping_on_a_raw_socket(redis_server):
    assert redis_server.url == f"redis://127.0.0.1:{redis_server.port}"
    with socket.create_connection(("127.0.0.1", redis_server.port), timeout=10) as sock:
        sock.sendall(b"PING\r\n")
        assert sock.recv(64) == b"+PONG\r\n"


def test_restart_without_persistence_loses_the_key(redis_server):
    assert redis_server.command("SET", "k", b"\x00\xff") == "OK"
    assert redis_server.command("GET", "k") == b"\x00\xff"
    port = redis_server.port
    redis_server.restart()
    assert redis_server.port == port
    assert redis_server.command("GET", "k") is None


def test_restart_with_aof_keeps_the_key(redis_factory):
    server = redis_factory("aof")
    assert server.command("SET", "k", "kept") == "OK"
    server.restart()
    assert server.command("GET", "k") == b"kept"
    assert server.command("CONFIG", "GET", "appendfsync") == [b"appendfsync", b"everysec"]


def test_kill_pause_and_resume(redis_server):
    redis_server.pause()
    with pytest.raises(OSError):  # connected by the kernel, never answered
        redis_server.command("PING", timeout=0.5)
    redis_server.resume()
    assert redis_server.ping()
    redis_server.kill()
    assert not redis_server.ping()
    redis_server.start()
    assert redis_server.ping()
    with pytest.raises(RuntimeError, match="unknown command"):
        redis_server.command("NO-SUCH-COMMAND")
