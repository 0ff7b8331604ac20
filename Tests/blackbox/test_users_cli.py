"""`herald users` and `herald keys` from the outside: the real binary edits a users file in a temporary
folder. What the file must never hold (a password, a key), its mode, and what stdout carries (only the
new key, or a listing) are checked here; the format's rules are HeraldAccessTests'."""

import hashlib
import json
import os
import pty
import re
import select
import stat
import subprocess
import time
from datetime import datetime, timedelta, timezone

from testkit import herald_binary

PASSWORD = "correct horse battery staple"


def herald(*args, users=None, stdin="", env_users=None):
    env = {key: value for key, value in os.environ.items() if key != "HERALD_USERS"}
    if env_users is not None:
        env["HERALD_USERS"] = str(env_users)
    flags = ["--users", str(users)] if users is not None else []
    return subprocess.run([str(herald_binary()), *args, *flags], input=stdin, capture_output=True, text=True, timeout=60, env=env)


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_users_add_from_stdin_creates_an_owner_only_file_without_the_password(tmp_path):
    users = tmp_path / "users.json"
    added = herald("users", "add", "alice", "--role", "admin", users=users, stdin=PASSWORD + "\n")
    assert added.returncode == 0, added.stderr
    assert added.stdout == ""
    assert f"created {users} with user alice (admin)" in added.stderr
    assert mode(users) == 0o600
    text = users.read_text()
    assert PASSWORD not in text and "correct horse" not in text
    document = json.loads(text)
    assert document["version"] == 1 and document["keys"] == []
    [alice] = document["users"]
    assert alice["name"] == "alice" and alice["role"] == "admin"
    assert re.fullmatch(r"\$argon2id\$v=19\$m=65536,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}", alice["password"]), alice

    # The environment variable finds the file as --users does; a second user keeps the first.
    second = herald("users", "add", "bob", "--role", "viewer", env_users=users, stdin="another password\n")
    assert second.returncode == 0, second.stderr
    listed = herald("users", "list", env_users=users)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == ["NAME   ROLE", "alice  admin", "bob    viewer"]
    assert mode(users) == 0o600

    removed = herald("users", "remove", "bob", users=users)
    assert removed.returncode == 0, removed.stderr
    assert herald("users", "list", users=users).stdout.splitlines() == ["NAME   ROLE", "alice  admin"]
    assert [name for name in os.listdir(tmp_path)] == ["users.json"], "no temporary file is left behind"


def test_keys_add_prints_only_the_key_and_the_file_keeps_only_its_sha256(tmp_path):
    users = tmp_path / "users.json"
    before = datetime.now(timezone.utc).replace(microsecond=0)
    added = herald("keys", "add", "ci", "--role", "operator", "--kinds", "deploy,backup", "--expires", "30d", users=users)
    assert added.returncode == 0, added.stderr
    assert re.fullmatch(r"hk_[A-Za-z0-9_-]{43}\n", added.stdout), added.stdout
    key = added.stdout.strip()
    assert mode(users) == 0o600
    text = users.read_text()
    assert key not in text and key[3:] not in text
    [entry] = json.loads(text)["keys"]
    assert entry["hash"] == "sha256:" + hashlib.sha256(key.encode()).hexdigest()
    assert entry["kinds"] == ["deploy", "backup"] and entry["role"] == "operator"
    created = datetime.fromisoformat(entry["created"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(entry["expires"].replace("Z", "+00:00"))
    assert before <= created <= datetime.now(timezone.utc) and expires - created == timedelta(days=30)

    other = herald("keys", "add", "grafana", "--role", "viewer", users=users)
    assert other.returncode == 0, other.stderr
    assert other.stdout.strip() != key

    listed = herald("keys", "list", users=users)
    assert listed.returncode == 0, listed.stderr
    assert "sha256" not in listed.stdout and key not in listed.stdout
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert rows[0] == ["NAME", "ROLE", "KINDS", "CREATED", "EXPIRES"]
    assert rows[1] == ["ci", "operator", "deploy,backup", entry["created"], entry["expires"]]
    assert rows[2][:3] == ["grafana", "viewer", "*"] and rows[2][4] == "never"

    revoked = herald("keys", "revoke", "ci", users=users)
    assert revoked.returncode == 0, revoked.stderr
    assert [line.split()[0] for line in herald("keys", "list", users=users).stdout.splitlines()] == ["NAME", "grafana"]
    again = herald("keys", "revoke", "ci", users=users)
    assert again.returncode == 1 and 'has no key named "ci" (its keys: grafana)' in again.stderr


def test_refusals_say_why_and_change_nothing(tmp_path):
    users = tmp_path / "users.json"
    assert herald("users", "add", "alice", "--role", "admin", users=users, stdin=PASSWORD + "\n").returncode == 0
    assert herald("keys", "add", "ci", "--role", "viewer", users=users).returncode == 0
    original = users.read_bytes()
    cases = [
        (["users", "add", "alice", "--role", "viewer"], PASSWORD, 1, 'already has a user or key named "alice"'),
        (["keys", "add", "alice", "--role", "viewer"], "", 1, 'there is already a user named "alice"'),
        (["users", "add", "ci", "--role", "viewer"], PASSWORD, 1, 'already has a user or key named "ci"'),
        (["users", "add", "carol", "--role", "boss"], PASSWORD, 2, 'unknown role "boss"; the roles are viewer, operator, admin, worker'),
        (["users", "add", "carol"], PASSWORD, 2, "--role is required"),
        (["users", "add", "carol", "--role", "viewer"], "short\n", 1, "at least 8 characters"),
        (["users", "add", "carol", "--role", "viewer"], "", 1, "no password on stdin"),
        (["users", "add", "car ol", "--role", "viewer"], PASSWORD, 2, "a name must be 1 to 64 letters"),
        (["users", "remove", "carol"], "", 1, 'has no user named "carol" (its users: alice)'),
        (["keys", "add", "k", "--role", "viewer", "--kinds", "Deploy"], "", 2, "--kinds: a kind must match"),
        (["keys", "add", "k", "--role", "viewer", "--expires", "30y"], "", 2, "--expires must be a whole number and s, m, h, d or w"),
        (["keys", "frob"], "", 2, 'unknown keys command "frob"; the commands are add, revoke, list'),
        (["users", "list", "--colour"], "", 2, "unknown option --colour"),
    ]
    for args, stdin, code, message in cases:
        result = herald(*args, users=users, stdin=stdin)
        assert result.returncode == code and message in result.stderr, (args, result)
        assert result.stdout == "", (args, result.stdout)
        assert users.read_bytes() == original, args


def test_no_file_named_is_a_usage_error(tmp_path):
    for args in (["users", "list"], ["users", "add", "alice", "--role", "admin"], ["keys", "add", "ci", "--role", "viewer"]):
        result = herald(*args, stdin=PASSWORD + "\n")
        assert result.returncode == 2, (args, result)
        assert "no users file: give --users FILE or set HERALD_USERS" in result.stderr, result.stderr
    missing = herald("users", "list", users=tmp_path / "nope.json")
    assert missing.returncode == 2 and f"{tmp_path / 'nope.json'}: no such file" in missing.stderr
    assert not (tmp_path / "nope.json").exists()


def test_a_file_holding_a_password_in_clear_is_refused_by_name(tmp_path):
    users = tmp_path / "users.json"
    users.write_text(json.dumps({"version": 1, "users": [{"name": "alice", "role": "admin", "password": "hunter2hunter2"}]}))
    result = herald("users", "list", users=users)
    assert result.returncode == 2 and result.stdout == ""
    assert f'{users}: users[0] ("alice").password: is not an argon2id hash; it looks like a password in clear' in result.stderr
    assert "hunter2" not in result.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "version": 1,\n  "users": [,]\n}\n')
    result = herald("keys", "list", users=broken)
    assert result.returncode == 2 and f"{broken}: line 3, column 13: not valid JSON" in result.stderr, result.stderr


def run_in_terminal(args, answers):
    """Runs herald with a pseudo-terminal as stdin, stdout and stderr; types each answer after the
    prompt that asks for it. Returns (exit code, everything the terminal showed)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(str(herald_binary()), [str(herald_binary()), *args])
    shown = b""
    pending = list(answers)
    ended = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal, it is exiting
            ended = True
            break
        if not chunk:
            ended = True
            break
        shown += chunk
        prompts = shown.count(b"Password for") + shown.count(b"Again:")
        if pending and prompts > len(answers) - len(pending):
            os.write(fd, pending.pop(0).encode() + b"\n")
    if not ended:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), shown.decode(errors="replace")


def test_terminal_password_is_asked_twice_without_echo(tmp_path):
    users = tmp_path / "users.json"
    code, shown = run_in_terminal(["users", "add", "alice", "--role", "operator", "--users", str(users)], [PASSWORD, PASSWORD])
    assert code == 0, shown
    assert "Password for alice:" in shown and "Again:" in shown
    assert PASSWORD not in shown, "the password was echoed"
    assert json.loads(users.read_text())["users"][0]["name"] == "alice"

    original = users.read_bytes()
    code, shown = run_in_terminal(["users", "add", "bob", "--role", "viewer", "--users", str(users)], [PASSWORD, PASSWORD + "!"])
    assert code == 1 and "the two passwords differ; nothing was changed" in shown, shown
    assert users.read_bytes() == original


def test_commands_run_at_once_each_keep_their_edit(tmp_path):
    # A deploy script that adds keys in parallel: every key ends in the file (each edit holds a lock on the
    # file's folder from its read to its write), none is dropped by a writer that read the file before another wrote.
    users = tmp_path / "users.json"
    env = {key: value for key, value in os.environ.items() if key != "HERALD_USERS"}
    names = [f"bot{index}" for index in range(12)]
    runs = [subprocess.Popen([str(herald_binary()), "keys", "add", name, "--role", "viewer", "--users", str(users)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for name in names]
    for run in runs:
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
    assert sorted(key["name"] for key in json.loads(users.read_text())["keys"]) == sorted(names)
    removals = [subprocess.Popen([str(herald_binary()), "keys", "revoke", name, "--users", str(users)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for name in names[:6]]
    for run in removals:
        assert run.wait(timeout=60) == 0
    assert sorted(key["name"] for key in json.loads(users.read_text())["keys"]) == sorted(names[6:])
