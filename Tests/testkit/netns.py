"""Hosts in network namespaces, for the tests of faults a real network makes (issue #38).

`Network()` makes a hub namespace that routes between hosts; `network.host("redis")` makes a host:
a namespace of its own joined to the hub by a veth pair, with 10.77.N.2 on its side and a default
route through the hub (10.77.N.1). The hub has no link out of the machine, so a host reaches the
other hosts and nothing else; the machine's own interfaces and routes are never touched.

`network.cut(a, b)` drops every packet between two hosts in the hub's FORWARD chain (`iptables -j
DROP`: no RST, no FIN, no ICMP, a silent partition); `one_way=True` drops only a's packets to b.
`network.heal(a, b)` takes the rules away.

`host.popen([...])` runs a program in the host (`ip netns exec`, which execs the program: the PID is
the program's); `host.call(fn)` runs a Python callable on a thread that entered the host's namespace,
so the sockets it opens (an HTTP request, a WebSocket) are the host's, and stay so on any thread.

`network.close()` kills every program started through it (by PID), then deletes the namespaces (their
veths go with them). The test's fixtures call it however the test ends; a test process killed before
it could leaves its namespaces, and the next `Network()` removes them. Needs root, `ip` (iproute2)
and `iptables`: `unavailable()` says what is missing, for a skip.
"""

import ctypes
import os
import re
import shutil
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CLONE_NEWNET = 0x40000000
# Namespaces are named PREFIX<pid of the test process>-<host>.
PREFIX = "heraldtest"
NETNS_DIR = Path("/run/netns")
_libc = ctypes.CDLL(None, use_errno=True)


def unavailable() -> str | None:
    """Why hosts in network namespaces cannot be made here, or None when they can."""
    if os.geteuid() != 0:
        return "needs root to make network namespaces and iptables rules (CI runs as root)"
    for tool, package in (("ip", "iproute2"), ("iptables", "iptables")):
        if shutil.which(tool) is None:
            return f"needs `{tool}` (Debian package {package}; `make deps-test` installs it)"
    probe = f"{PREFIX}{os.getpid()}-probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace here: {made.stderr.strip()}"
    try:
        rules = subprocess.run(["ip", "netns", "exec", probe, "iptables", "-w", "-L", "FORWARD", "-n"],
                               capture_output=True, text=True)
        if rules.returncode != 0:
            return f"iptables does not work in a network namespace here: {rules.stderr.strip()}"
    finally:
        subprocess.run(["ip", "netns", "delete", probe], capture_output=True)
    return None


def _remove_abandoned():
    """Removes the namespaces of test runs that were killed before they could (their name holds the
    PID of the test process, which no longer runs), with what still runs in them, by PID."""
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for name in (line.split()[0] for line in listing.splitlines() if line.strip()):
        owner = re.fullmatch(rf"{PREFIX}(\d+)-[a-z0-9]+", name)
        if not owner or Path(f"/proc/{owner.group(1)}").exists():
            continue
        pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)


def _enter(namespace: str):
    """Moves the calling thread (only it: a network namespace is per thread) into `namespace`."""
    descriptor = os.open(NETNS_DIR / namespace, os.O_RDONLY)
    try:
        if _libc.setns(descriptor, CLONE_NEWNET) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"setns into {namespace}: {os.strerror(error)}")
    finally:
        os.close(descriptor)


def _run(*arguments: str):
    result = subprocess.run(arguments, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)}: {result.stderr.strip()}")
    return result.stdout


class Host:
    """One host: a namespace, its address, and the programs and calls run in it."""

    def __init__(self, network: "Network", name: str, index: int):
        self.network = network
        self.name = name
        self.namespace = f"{network.prefix}-{name}"
        self.address = f"10.77.{index}.2"
        self._executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix=self.namespace,
                                            initializer=_enter, initargs=(self.namespace,))

    def command(self, arguments) -> list:
        """`arguments` as run inside this host."""
        return ["ip", "netns", "exec", self.namespace, *[str(argument) for argument in arguments]]

    def popen(self, arguments, **options) -> subprocess.Popen:
        """Starts a program in this host; `network.close()` kills it by PID if it still runs."""
        process = subprocess.Popen(self.command(arguments), **options)
        self.network.processes.append(process)
        return process

    def call(self, function, *arguments):
        """`function(*arguments)` on a thread inside this host; its result or its exception."""
        return self._executor.submit(function, *arguments).result()

    def close(self):
        self._executor.shutdown(wait=True)


class Network:
    """A hub namespace routing between hosts; see the module's text."""

    def __init__(self):
        _remove_abandoned()
        self.prefix = f"{PREFIX}{os.getpid()}"
        self.hub = f"{self.prefix}-hub"
        self.hosts: dict[str, Host] = {}
        self.processes: list[subprocess.Popen] = []
        self.namespaces: list[str] = []
        self.rules: set[tuple[str, str]] = set()
        self._namespace(self.hub)
        _run("ip", "netns", "exec", self.hub, "sysctl", "-qw", "net.ipv4.ip_forward=1")

    def _namespace(self, name: str):
        _run("ip", "netns", "add", name)
        self.namespaces.append(name)
        _run("ip", "-n", name, "link", "set", "lo", "up")

    def host(self, name: str) -> Host:
        index = len(self.hosts) + 1
        host = Host(self, name, index)
        self._namespace(host.namespace)
        hub_side, gateway = f"v{index}", f"10.77.{index}.1"
        # Made inside the hub, its peer moved straight into the host: no interface of the machine's own
        # namespace exists even for a moment.
        _run("ip", "-n", self.hub, "link", "add", hub_side, "type", "veth", "peer", "name", "eth0", "netns", host.namespace)
        _run("ip", "-n", self.hub, "addr", "add", f"{gateway}/24", "dev", hub_side)
        _run("ip", "-n", self.hub, "link", "set", hub_side, "up")
        _run("ip", "-n", host.namespace, "addr", "add", f"{host.address}/24", "dev", "eth0")
        _run("ip", "-n", host.namespace, "link", "set", "eth0", "up")
        _run("ip", "-n", host.namespace, "route", "add", "default", "via", gateway)
        self.hosts[name] = host
        return host

    def _rule(self, action: str, source: Host, destination: Host):
        _run("ip", "netns", "exec", self.hub, "iptables", "-w", action, "FORWARD", "-s", source.address, "-d",
             destination.address, "-j", "DROP")

    def cut(self, a: Host, b: Host, one_way: bool = False):
        """Drops a's packets to b (and b's to a unless `one_way`), silently."""
        for source, destination in ((a, b),) if one_way else ((a, b), (b, a)):
            if (source.name, destination.name) not in self.rules:
                self._rule("-A", source, destination)
                self.rules.add((source.name, destination.name))

    def heal(self, a: Host, b: Host):
        """Lets packets between a and b through again, both ways."""
        for source, destination in ((a, b), (b, a)):
            if (source.name, destination.name) in self.rules:
                self._rule("-D", source, destination)
                self.rules.discard((source.name, destination.name))

    def dropped(self) -> int:
        """Packets the cuts have dropped so far (the hub's DROP rules' counters)."""
        listing = _run("ip", "netns", "exec", self.hub, "iptables", "-w", "-L", "FORWARD", "-n", "-v", "-x")
        return sum(int(line.split()[0]) for line in listing.splitlines() if " DROP " in f" {line} ")

    def close(self):
        """Kills what still runs (by PID), then deletes every namespace this network made."""
        for process in self.processes:
            if process.poll() is None:
                try:
                    os.kill(process.pid, signal.SIGCONT)
                    os.kill(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait()
        for host in self.hosts.values():
            host.close()
        for name in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "delete", name], capture_output=True)
        self.namespaces.clear()
