"""A throwaway redis-server for black-box tests: 127.0.0.1 on a free port, its files in a folder of
its own, stopped by PID. `redis_factory` in conftest.py starts them and stops them after the test.

Persistence "none" keeps nothing on disk (a restart loses every key); "aof" keeps an append-only
file fsynced every second and on a clean stop. Under `setpriv --pdeathsig KILL` (when present) a
crashed test run takes its servers along.
"""

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
SETPRIV = shutil.which("setpriv")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """With `host` (a testkit.netns.Host): run in that host on its address, asked from inside it."""

    def __init__(self, folder: Path, persistence: str = "none", configuration=(), host=None):
        self.host = host
        self.address = host.address if host else "127.0.0.1"
        if not Path(REDIS_SERVER).exists():
            raise RuntimeError("redis-server is not installed: `make deps-test` installs it (Debian package redis-server)")
        if persistence not in ("none", "aof"):
            raise ValueError(f"persistence is 'none' or 'aof', not {persistence!r}")
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.persistence = persistence
        self.configuration = tuple(configuration)  # more redis-server options: ("--requirepass", "pw")
        self.process = None
        for attempt in range(3):  # the free port can be taken before redis binds it
            self.port = free_port()
            try:
                self.start()
                return
            except RuntimeError:
                if attempt == 2:
                    raise

    @property
    def url(self) -> str:
        return f"redis://{self.address}:{self.port}"

    @property
    def log(self) -> str:
        path = self.folder / "redis.log"
        return path.read_text() if path.exists() else ""

    def start(self, timeout: float = 30.0):
        """Starts redis-server on this port and folder; returns once PING answers PONG."""
        arguments = [REDIS_SERVER, "--port", str(self.port), "--bind", self.address, "--dir", str(self.folder),
                     "--logfile", str(self.folder / "redis.log"), "--daemonize", "no", "--save", ""]
        arguments += ["--appendonly", "yes", "--appendfsync", "everysec"] if self.persistence == "aof" else ["--appendonly", "no"]
        arguments += list(self.configuration)
        if self.host:
            arguments += ["--protected-mode", "no"]  # its clients are on other hosts; no route leaves the test's network
        if SETPRIV:
            arguments = [SETPRIV, "--pdeathsig", "KILL", "--"] + arguments
        launch = self.host.popen if self.host else subprocess.Popen
        self.process = launch(arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while not self.ping():
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server on port {self.port} exited at start; its log:\n{self.log}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server on port {self.port} did not answer PING within {timeout} s:\n{self.log}")
            time.sleep(0.005)

    def ping(self) -> bool:
        """True on PONG or -NOAUTH (up, and wants a password); false when refused, silent, or still
        loading its AOF (-LOADING)."""
        try:
            return self.command("PING", timeout=1.0) == "PONG"
        except RuntimeError as error:
            return str(error).startswith("NOAUTH")
        except OSError:
            return False

    def command(self, *words, timeout: float = 5.0):
        """One command on a fresh socket: a str for a status, bytes for a bulk string, None for null,
        an int, a list, or a RuntimeError for an error reply."""
        if self.host:
            return self.host.call(self._command, words, timeout)
        return self._command(words, timeout)

    def _command(self, words, timeout):
        with socket.create_connection((self.address, self.port), timeout=timeout) as sock:
            encoded = [word if isinstance(word, bytes) else str(word).encode() for word in words]
            sock.sendall(b"*%d\r\n" % len(encoded) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in encoded))
            reply = _read_reply(sock.makefile("rb"))
        if isinstance(reply, RuntimeError):
            raise reply
        return reply

    def stop(self):
        """SIGTERM (a clean shutdown; with AOF the file is flushed), continued if paused; SIGKILL
        after 30 s."""
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            os.kill(self.process.pid, signal.SIGCONT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def kill(self):
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None

    def restart(self):
        self.stop()
        self.start()

    def pause(self):
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self):
        os.kill(self.process.pid, signal.SIGCONT)


def _read_reply(stream):
    line = stream.readline()
    if not line.endswith(b"\r\n"):
        raise ConnectionError(f"redis closed the connection mid-reply: {line!r}")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        return RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        return None if int(rest) < 0 else stream.read(int(rest) + 2)[:-2]
    if kind == b"*":
        return None if int(rest) < 0 else [_read_reply(stream) for _ in range(int(rest))]
    raise ConnectionError(f"not a RESP reply: {line!r}")
