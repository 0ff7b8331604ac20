"""Black-box fixtures: the real `herald` binary on 127.0.0.1 port 0, stopped after each test; and
throwaway redis-servers for the tests that need one. What the fixtures start lives in the shared kit,
Tests/testkit (on the import path through pytest.ini).

HERALD_BIN names the binary (default .build/debug/herald under the repository root).
"""

import tempfile
from pathlib import Path

import pytest

from testkit import CLUSTER_SUITES, Herald
from testkit.redis_server import RedisServer


# What a job keeps of its results is decided by the node that runs it, and on a cluster any node with
# room may take a job started on n1: these settings of a test's server go to every node of its cluster.
KEEPING_FLAGS = ("--recent-jobs", "--kept-results-bytes", "--max-results")


def keeping_settings(extra) -> tuple:
    """The (flag, value) pairs of `extra` that name what jobs keep (`KEEPING_FLAGS`)."""
    pairs = zip(extra, extra[1:])
    return tuple(word for flag, value in pairs if flag in KEEPING_FLAGS for word in (flag, value))


@pytest.fixture
def herald_factory():
    started = []
    folders = []
    redis_servers = []

    def start(*extra: str) -> Herald:
        folder = tempfile.TemporaryDirectory(prefix="herald-bb-")
        folders.append(folder)
        if CLUSTER_SUITES and "--redis" not in extra:
            redis = RedisServer(Path(folder.name) / "redis")
            redis_servers.append(redis)
            cluster = ("--redis", redis.url)
            server = Herald(*extra, *cluster, "--node", "n1", root=Path(folder.name))
            started.append(server)
            # Any node may run a job started on n1: they all search n1's folder, as nodes that share a
            # file system would, and a test that changes a node's own data changes every node's.
            shared = ("--search-root", str(server.corpus))
            for peer in ("n2", "n3"):
                node = Herald(*keeping_settings(extra), *cluster, *shared, "--node", peer, root=Path(folder.name) / peer)
                started.append(node)
                server.peers.append(node)
            return server
        server = Herald(*extra, root=Path(folder.name))
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    for redis in redis_servers:
        redis.stop()
    for folder in folders:
        folder.cleanup()


@pytest.fixture
def herald(herald_factory):
    return herald_factory()


@pytest.fixture
def redis_factory():
    """start(persistence="none" | "aof", configuration=()) -> RedisServer, each in its own folder, stopped
    after the test; `configuration`: more redis-server options, e.g. ("--requirepass", "pw")."""
    started = []
    folders = []

    def start(persistence: str = "none", configuration=()) -> RedisServer:
        folder = tempfile.TemporaryDirectory(prefix="herald-redis-")
        folders.append(folder)
        server = RedisServer(Path(folder.name), persistence, configuration)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    for folder in folders:
        folder.cleanup()


@pytest.fixture
def redis_server(redis_factory):
    return redis_factory()
