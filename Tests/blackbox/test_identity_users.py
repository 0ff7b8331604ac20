"""Users, keys, sessions, share links and the audit on a real server (docs/security.md): a users file
made with the real `herald users` and `herald keys`; signing in (slowed after failures, unknown and
known names answered alike), the session cookie and its CSRF rule; a key's scope; a key revoked while
its connection is open; a share link's one-job view and its revocation; the audit as an admin reads
it; and no password, key, cookie or link token anywhere in the log, the data dir or /metrics."""

import http.cookiejar
import json
import os
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import websocket  # websocket-client

from testkit import contract, herald_binary, wait_for
from test_jobs_file import write_jobs

PASSWORDS = {"ann": "ann's long password", "vic": "vic's long password", "root": "root's long password"}


def cli(*args, users, stdin=""):
    env = {key: value for key, value in os.environ.items() if key != "HERALD_USERS"}
    done = subprocess.run([str(herald_binary()), *args, "--users", str(users)], input=stdin, capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def team(herald_factory, tmp_path):
    users = tmp_path / "users.json"
    for name, role in (("ann", "operator"), ("vic", "viewer"), ("root", "admin")):
        cli("users", "add", name, "--role", role, users=users, stdin=PASSWORDS[name] + "\n")
    key = cli("keys", "add", "ci", "--role", "operator", "--kinds", "search", users=users)
    server = herald_factory("--users", str(users))
    return server, users, key


class Browser:
    """urllib with a cookie jar: what a browser sends, including Origin on writes."""

    def __init__(self, server):
        self.server = server
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def call(self, method, path, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server.url.rstrip("/") + path, data=data, method=method, headers=headers or {})
        try:
            with self.opener.open(request, timeout=30) as response:
                status, text, answered = response.status, response.read().decode(), response.headers
        except urllib.error.HTTPError as error:
            status, text, answered = error.code, error.read().decode(), error.headers
        contract.rest_answer(method, path.split("?")[0], status, answered.get("content-type"), text)
        return status, (json.loads(text) if text else None), answered

    def sign_in(self, user, password):
        return self.call("POST", "/api/session", {"user": user, "password": password})

    @property
    def cookie(self):
        return next((cookie.value for cookie in self.jar if cookie.name == "herald_session"), None)


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_sign_in_is_slowed_alike_for_known_and_unknown_names_and_the_session_follows_its_rules(team):
    server, _, _ = team
    browser = Browser(server)
    wrong = browser.sign_in("ann", "not it")
    unknown = browser.sign_in("nobody", "not it")
    assert wrong[0] == unknown[0] == 401 and wrong[1] == unknown[1], (wrong[1], unknown[1])
    set_cookie = browser.call("POST", "/api/session", {"user": "vic", "password": PASSWORDS["vic"]})[2]["Set-Cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie, set_cookie
    status, session, _ = browser.call("GET", "/api/session")
    assert status == 200 and session == {"name": "vic", "role": "viewer", "via": "session"}, session
    status, refused, _ = browser.call("POST", "/api/jobs", {"kind": "search", "params": {"query": "x"}})
    assert (status, refused["code"], refused["message"]) == (403, "forbidden", "vic (viewer) may not start jobs of kind search")

    ann = Browser(server)
    ann.sign_in("ann", PASSWORDS["ann"])
    status, refused, _ = ann.call("POST", "/api/jobs", {"kind": "search", "params": {"query": "x"}},
                                  headers={"Origin": "http://evil.example"})
    assert status == 403 and "evil.example" in refused["message"], "another site may not act with the cookie"
    status, job, _ = ann.call("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}},
                              headers={"Origin": server.url.rstrip("/")})
    assert status == 202 and job["startedBy"] == "ann", job
    assert ann.call("DELETE", "/api/session")[0] == 200
    assert ann.call("GET", "/api/session")[0] == 401, "signed out"

    # Five failures from one address: the sixth try waits, for an unknown name as for a known one, and
    # so does a right password from that address until the wait is over.
    for _ in range(3):
        browser.sign_in("nobody", "not it")
    throttled = browser.sign_in("nobody", "not it")
    assert throttled[0] == 429 and int(throttled[2]["Retry-After"]) >= 1, throttled
    assert browser.sign_in("ann", "not it")[1] == throttled[1]
    assert browser.sign_in("ann", PASSWORDS["ann"])[0] == 429


def test_a_key_is_scoped_and_a_revoked_key_loses_its_open_connection(team):
    server, users, key = team
    browser = Browser(server)
    status, job, _ = browser.call("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}}, headers=bearer(key))
    assert status == 202 and job["startedBy"] == "ci"
    status, refused, _ = browser.call("POST", "/api/jobs", {"kind": "sort", "params": {"count": 5}}, headers=bearer(key))
    assert status == 403 and refused["message"] == "ci (operator) may not start jobs of kind sort"
    viewer = websocket.create_connection(server.ws, header=[f"Authorization: Bearer {key}"], timeout=10)
    try:
        snapshot = contract.server_message(json.loads(viewer.recv()))
        assert snapshot["scope"] == {"kinds": ["search"]}
        cli("keys", "revoke", "ci", users=users)
        viewer.settimeout(15)
        while True:
            opcode, data = viewer.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                break
        assert int.from_bytes(data[:2], "big") == 4003 and data[2:].decode() == "credentials revoked"
    finally:
        viewer.close()
    assert browser.call("GET", "/api/session", headers=bearer(key))[0] == 401


def test_a_share_link_shows_one_job_until_it_is_revoked(team):
    server, _, _ = team
    ann = Browser(server)
    ann.sign_in("ann", PASSWORDS["ann"])
    origin = {"Origin": server.url.rstrip("/")}
    ids = [ann.call("POST", "/api/jobs", {"kind": "sort", "params": {"count": 20}}, headers=origin)[1]["id"] for _ in range(2)]
    def make():
        status, body, _ = ann.call("POST", f"/api/jobs/{ids[0]}/share", {"for": "2w"}, headers=origin)
        return body if status == 201 else None
    link = wait_for(make, what="a link, once the server's stream has told of the job")
    fortnight = 14 * 86_400_000
    assert abs(link["expiresAt"] - time.time() * 1000 - fortnight) < 120_000, link
    status, body, _ = ann.call("POST", f"/api/jobs/{ids[0]}/share", {"for": "2 weeks"}, headers=origin)
    assert status == 400 and "s, m, h, d or w" in json.dumps(body), body
    assert link["url"].startswith(server.url.rstrip("/") + "/share.html?t="), link
    token = link["token"]
    stranger = Browser(server)
    assert stranger.call("GET", f"/api/jobs/{ids[0]}?t={token}")[0] == 200
    assert stranger.call("GET", f"/api/jobs/{ids[1]}?t={token}")[0] == 404
    assert stranger.call("GET", f"/api/news?t={token}")[0] == 403
    assert stranger.call("GET", "/api/jobs?limit=50&t=" + token)[1]["jobs"] == [
        job for job in stranger.call("GET", "/api/jobs?limit=50&t=" + token)[1]["jobs"] if job["id"] == ids[0]]
    watching = websocket.create_connection(server.ws + "?t=" + token, timeout=10)
    try:
        snapshot = contract.server_message(json.loads(watching.recv()))
        assert [job["id"] for job in snapshot["jobs"]] == [ids[0]]
        root = Browser(server)
        root.sign_in("root", PASSWORDS["root"])
        listed = root.call("GET", "/api/shares")[1]["links"]
        assert [each["id"] for each in listed] == [link["id"]] and "token" not in listed[0]
        assert root.call("DELETE", f"/api/shares/{link['id']}", headers={"Origin": server.url.rstrip("/")})[0] == 200
        watching.settimeout(15)
        while True:
            opcode, data = watching.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                break
        assert int.from_bytes(data[:2], "big") == 4003
    finally:
        watching.close()
    status, refused, _ = stranger.call("GET", f"/api/jobs/{ids[0]}?t={token}")
    assert status == 401 and refused["message"] == "share link revoked"


def test_the_audit_records_who_did_what_and_no_secret_is_written_anywhere(team):
    server, users, key = team
    ann, root = Browser(server), Browser(server)
    ann.sign_in("ann", "wrong password")
    ann.sign_in("ann", PASSWORDS["ann"])
    origin = {"Origin": server.url.rstrip("/")}
    job = ann.call("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}}, headers=origin)[1]
    Browser(server).call("POST", "/api/jobs", {"kind": "sort", "params": {"count": 5}}, headers=bearer(key))
    for _ in range(3):
        assert Browser(server).call("GET", "/api/jobs", headers=bearer(key))[0] == 200
    share = ann.call("POST", f"/api/jobs/{job['id']}/share", headers=origin)
    assert ann.call("GET", "/api/audit")[0] == 403, "the audit is for admins"
    root.sign_in("root", PASSWORDS["root"])

    def events():
        return root.call("GET", "/api/audit?limit=100")[1]["events"]
    wait_for(lambda: {"signin", "signin_failed", "start", "refused"} <= {each["event"] for each in events()}, what="the audit")
    started = [each for each in events() if each["event"] == "start"]
    assert started and started[0]["actor"] == "ann" and started[0]["job"] == job["id"], started
    # The key's four REST calls within a minute are one line: who used which key, from where.
    used = [each for each in events() if each["event"] == "key_used" and each["actor"] == "ci"]
    assert len(used) == 1 and used[0]["address"] == "127.0.0.1", used
    secrets = [*PASSWORDS.values(), key, ann.cookie, root.cookie]
    if share[0] == 201:
        secrets.append(share[1]["token"])
    metrics = urllib.request.urlopen(urllib.request.Request(server.url + "metrics", headers=bearer(key)), timeout=10).read().decode()
    places = {"log": server.log(), "metrics": metrics, "users file": users.read_text()}
    for path in server.data.rglob("*"):
        if path.is_file():
            places[str(path)] = path.read_bytes().decode(errors="replace")
    for secret in secrets:
        assert secret
        for place, text in places.items():
            assert secret not in text, f"a secret in {place}"


def test_on_a_cluster_a_key_revoked_is_refused_by_every_node_within_5_s(herald_factory, redis_factory, tmp_path):
    """Two nodes on a Redis with `requirepass` and an ACL user, reading one users file: a key revoked
    with `herald keys` is refused on the other node within 5 s too, and a start there records its name."""
    password = "redis-" + os.urandom(6).hex()
    redis = redis_factory(configuration=("--requirepass", password, "--user", "herald", "on", f">{password}", "~*", "&*", "+@all"))
    users = tmp_path / "users.json"
    key = cli("keys", "add", "deploy-bot", "--role", "operator", users=users)
    url = f"redis://herald:{password}@127.0.0.1:{redis.port}/2"
    one = herald_factory("--redis", url, "--node", "n1", "--users", str(users))
    two = herald_factory("--redis", url, "--node", "n2", "--users", str(users))
    status, job, _ = Browser(one).call("POST", "/api/jobs", {"kind": "sort", "params": {"count": 10}}, headers=bearer(key))
    assert status == 202 and job["startedBy"] == "deploy-bot"
    wait_for(lambda: Browser(two).call("GET", f"/api/jobs/{job['id']}", headers=bearer(key))[0] == 200, what="the job on n2")
    cli("keys", "revoke", "deploy-bot", users=users)
    wait_for(lambda: all(Browser(node).call("GET", "/api/session", headers=bearer(key))[0] == 401 for node in (one, two)),
             timeout=5, interval=0.2, what="both nodes to refuse the revoked key")
    for node in (one, two):
        assert password not in node.log() and key not in node.log()


def test_on_a_cluster_every_node_answers_the_same_audit_with_each_events_node(herald_factory, redis_factory, tmp_path):
    """Two nodes on one Redis: a start on one, a cancel on the other, refusals and sign-ins on both are
    in `GET /api/audit` of either, the same answer from each, every event with the node that recorded
    it; a cursor from one node pages on the other. With Redis gone a node answers from its own file."""
    redis = redis_factory()
    users = tmp_path / "users.json"
    cli("users", "add", "root", "--role", "admin", users=users, stdin=PASSWORDS["root"] + "\n")
    key = cli("keys", "add", "ci", "--role", "operator", users=users)
    watcher = cli("keys", "add", "watcher", "--role", "viewer", users=users)
    jobs = write_jobs(tmp_path, {"nap": {"command": ["/bin/sleep", "30"]}})
    bad = subprocess.run([str(herald_binary()), "serve", "--port", "0", "--redis", redis.url, "--audit-stream-size", "5"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--audit-stream-size must be a whole number from 1000 to 10000000" in bad.stderr, bad.stderr
    one, two = (herald_factory("--redis", redis.url, "--node", name, "--users", str(users), "--jobs", str(jobs),
                               "--audit-stream-size", "1000") for name in ("n1", "n2"))
    status, job, _ = Browser(one).call("POST", "/api/jobs", {"kind": "nap"}, headers=bearer(key))
    assert status == 202, job
    wait_for(lambda: Browser(two).call("GET", f"/api/jobs/{job['id']}", headers=bearer(key))[0] == 200, what="the job on n2")
    status, cancelled, _ = Browser(two).call("POST", f"/api/jobs/{job['id']}/cancel", headers=bearer(key))
    assert status == 202, cancelled
    assert Browser(two).call("POST", "/api/jobs", {"kind": "nap"}, headers=bearer(watcher))[0] == 403
    assert Browser(one).call("GET", "/api/jobs", headers=bearer("not-a-key"))[0] == 401
    admins = {}
    for name, node in (("n1", one), ("n2", two)):
        admins[name] = Browser(node)
        assert admins[name].sign_in("root", PASSWORDS["root"])[0] == 200
    expected = {("start", "n1"), ("cancel", "n2"), ("refused", "n2"), ("refused", "n1"), ("signin", "n1"), ("signin", "n2")}

    def the_same_from_both():
        pages = [admins[name].call("GET", "/api/audit?limit=1000")[1] for name in ("n1", "n2")]
        seen = {(event["event"], event.get("node")) for event in pages[0]["events"]}
        return pages[0] if pages[0] == pages[1] and expected <= seen else None
    page = wait_for(the_same_from_both, timeout=10, what="the same audit, with every event, from both nodes")
    assert page["source"] == "cluster" and all(event["node"] in ("n1", "n2") for event in page["events"]), page
    events = page["events"]
    start = next(event for event in events if event["event"] == "start")
    cancel = next(event for event in events if event["event"] == "cancel")
    assert start["actor"] == cancel["actor"] == "ci" and start["job"] == cancel["job"] == job["id"], events
    refused = {event["node"]: event for event in events if event["event"] == "refused"}
    assert refused["n2"]["actor"] == "watcher" and refused["n1"]["actor"] == "unidentified", refused
    # A cursor from one node goes on from there on the other.
    first = admins["n1"].call("GET", "/api/audit?limit=2")[1]
    assert first["events"] == events[:2] and first["next"], first
    status, rest, _ = admins["n2"].call("GET", f"/api/audit?limit=2&before={first['next']}")
    assert status == 200 and rest["events"] == events[2:4], rest
    # Redis gone: each node answers from its own file, and says so; the cluster's next page is refused.
    redis.stop()
    status, local, _ = admins["n1"].call("GET", "/api/audit?limit=1000")
    assert status == 200 and local["source"] == "local", local
    assert {event["event"] for event in local["events"]} >= {"start", "signin"}
    assert not any(event["event"] == "cancel" or "node" in event for event in local["events"]), local
    assert admins["n2"].call("GET", f"/api/audit?limit=2&before={first['next']}")[0] == 503
