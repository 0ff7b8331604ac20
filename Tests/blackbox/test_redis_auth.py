"""Redis logins (docs/scaling.md): cluster nodes on a redis-server that wants a password
(`requirepass`) and has an ACL user. Two nodes log in as the ACL user, one with the password in
`--redis`, one with `--redis-password-file`; they share jobs, and log in again after Redis restarts.
A wrong password stops a node at start with exit 2 and one line naming the problem. The password is
in no log line, error, `/healthz` or `/metrics` text."""

import secrets
import subprocess

from testkit import herald_binary, wait_for

# Fresh every run, so finding one in a log can only mean it was written there.
DEFAULT_PASSWORD = "default-" + secrets.token_hex(8)
ALICE_PASSWORD = "al1ce-" + secrets.token_hex(8)


def protected_redis(redis_factory):
    return redis_factory(configuration=(
        "--requirepass", DEFAULT_PASSWORD, "--user", "alice", "on", f">{ALICE_PASSWORD}", "~*", "&*", "+@all"))


def sort_job_ends(start_on, seen_on):
    # Refused `unavailable` while a node is still finding out that its connection died: try again.
    status, job = wait_for(lambda: (lambda answer: answer if answer[0] == 202 else None)(
        start_on.json("POST", "/api/jobs", {"kind": "sort", "params": {"count": 1000}})), timeout=30, what="an accepted start")
    wait_for(lambda: seen_on.json("GET", f"/api/jobs/{job['id']}")[1].get("state") == "succeeded",
             timeout=30, what=f"{job['id']} succeeded, seen from the other node")


def texts_shown(node):
    """Everything a node shows an operator: its log, /healthz and /metrics."""
    return [node.log(), node.request("GET", "/healthz")[1], node.request("GET", "/metrics")[1]]


def test_two_nodes_log_in_as_an_acl_user_and_never_show_the_password(herald_factory, redis_factory, tmp_path):
    redis = protected_redis(redis_factory)
    password_file = tmp_path / "redis-password"
    password_file.write_text(ALICE_PASSWORD + "\n")
    one = herald_factory("--redis", f"redis://alice:{ALICE_PASSWORD}@127.0.0.1:{redis.port}/1", "--node", "n1")
    two = herald_factory("--redis", f"redis://alice@127.0.0.1:{redis.port}/1", "--redis-password-file", str(password_file),
                         "--node", "n2")
    sort_job_ends(one, two)
    assert redis.command("AUTH", "alice", ALICE_PASSWORD) == "OK"

    # Every connection logs in: after a restart (which loses the data) the nodes connect again, and
    # agree on the new epoch they made in Redis.
    epoch = one.json("GET", "/healthz")[1]["epoch"]
    redis.restart()
    wait_for(lambda: len({node.json("GET", "/healthz")[1]["epoch"] for node in (one, two)} - {epoch}) == 1
             and all(node.json("GET", "/healthz")[1]["epoch"] != epoch for node in (one, two)), timeout=30,
             what="both nodes on the new epoch after Redis restarted")
    sort_job_ends(two, one)

    for node in (one, two):
        for text in texts_shown(node):
            assert ALICE_PASSWORD not in text and DEFAULT_PASSWORD not in text
        assert "alice:***@127.0.0.1" in node.log(), "the log names the cluster without its password"


def test_a_wrong_password_stops_the_node_at_start_with_one_line(redis_factory, tmp_path):
    redis = protected_redis(redis_factory)
    wrong = "wrong-" + secrets.token_hex(8)
    for url in (f"redis://alice:{wrong}@127.0.0.1:{redis.port}", f"redis://:{wrong}@127.0.0.1:{redis.port}"):
        result = subprocess.run(
            [str(herald_binary()), "serve", "--port", "0", "--data-dir", str(tmp_path / "data"), "--redis", url, "--node", "n3"],
            capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, result
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert "refused the login" in lines[0] and "WRONGPASS" in lines[0], lines[0]
        assert wrong not in result.stderr + result.stdout


def test_no_password_where_redis_wants_one_is_named(redis_factory, tmp_path):
    redis = protected_redis(redis_factory)
    result = subprocess.run(
        [str(herald_binary()), "serve", "--port", "0", "--data-dir", str(tmp_path / "data"),
         "--redis", f"redis://127.0.0.1:{redis.port}", "--node", "n4"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "NOAUTH" in lines[0], result.stderr
