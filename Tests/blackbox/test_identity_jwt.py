"""JWTs minted by an application (docs/security.md, "JWTs"): real tokens made here with PyJWT, over keys
made by the `openssl` command, against the real server. Good ones become principals with their role and
scope, on REST and on the WebSocket; every kind of bad one is refused 401 at once; a connection ends
with 4001 at its token's `exp`; no token ever reaches the server's log."""

import base64
import json
import shutil
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import websocket  # websocket-client

from testkit import contract

jwt = pytest.importorskip("jwt", reason="PyJWT is installed by `make deps-test`")
pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is installed by `make deps-test`")


@pytest.fixture
def keys(tmp_path):
    def openssl(*arguments):
        subprocess.run(["openssl", *arguments], check=True, capture_output=True)
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(tmp_path / "rsa.pem"))
    openssl("pkey", "-in", str(tmp_path / "rsa.pem"), "-pubout", "-out", str(tmp_path / "rsa.pub"))
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(tmp_path / "ec.pem"))
    openssl("pkey", "-in", str(tmp_path / "ec.pem"), "-pubout", "-out", str(tmp_path / "ec.pub"))
    (tmp_path / "hs.secret").write_bytes(b"a-shared-secret-of-at-least-32-bytes!!")
    return tmp_path


@pytest.fixture
def server(herald_factory, keys):
    return herald_factory("--jwt-key", str(keys / "rsa.pub"), "--jwt-key", str(keys / "ec.pub"),
                          "--jwt-key", str(keys / "hs.secret"), "--jwt-audience", "herald", "--jwt-issuer", "app")


def claims(**extra):
    now = int(time.time())
    return {"sub": "ann", "exp": now + 300, "iat": now, "aud": "herald", "iss": "app", **extra}


def rs256(keys, payload):
    return jwt.encode(payload, (keys / "rsa.pem").read_text(), algorithm="RS256")


def call(server, method, path, token=None, body=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url.rstrip("/") + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    contract.rest_answer(method, path.split("?")[0], status, "application/json", text)
    return status, json.loads(text)


def test_good_tokens_of_each_algorithm_become_their_principal(server, keys):
    made = {
        "RS256": rs256(keys, claims(role="operator", kinds=["search"])),
        "ES256": jwt.encode(claims(role="operator", kinds=["search"]), (keys / "ec.pem").read_text(), algorithm="ES256"),
        "HS256": jwt.encode(claims(role="operator", kinds=["search"]), (keys / "hs.secret").read_bytes(), algorithm="HS256"),
    }
    for algorithm, token in made.items():
        status, session = call(server, "GET", "/api/session", token)
        assert status == 200 and session["name"] == "ann" and session["role"] == "operator", (algorithm, session)
        assert session["via"] == "jwt" and session["kinds"] == ["search"]
    token = made["RS256"]
    status, job = call(server, "POST", "/api/jobs", token, {"kind": "search", "params": {"query": "needle"}})
    assert status == 202 and job["startedBy"] == "ann", job
    status, refused = call(server, "POST", "/api/jobs", token, {"kind": "sort", "params": {"count": 10}})
    assert (status, refused["code"]) == (403, "forbidden"), refused
    assert refused["message"] == "ann (operator) may not start jobs of kind sort"
    assert token not in server.log() and "eyJ" not in server.log()


def test_every_bad_token_is_refused(server, keys):
    rsa_public = (keys / "rsa.pub").read_text()
    good = rs256(keys, claims())
    header, payload, signature = good.split(".")
    tampered_payload = base64.urlsafe_b64encode(json.dumps(claims(role="admin")).encode()).rstrip(b"=").decode()
    bad = {
        "alg none": jwt.encode(claims(), None, algorithm="none"),
        "HS256 with the RSA public key as secret": _hs256_unchecked(claims(), rsa_public.encode()),
        "tampered payload": f"{header}.{tampered_payload}.{signature}",
        "expired": rs256(keys, claims(exp=int(time.time()) - 120)),
        "not yet valid": rs256(keys, claims(nbf=int(time.time()) + 600)),
        "wrong audience": rs256(keys, claims(aud="someone-else")),
        "wrong issuer": rs256(keys, claims(iss="mallory")),
        "over 8 KiB": rs256(keys, claims(padding="x" * 9_000)),
        "no exp": rs256(keys, {key: value for key, value in claims().items() if key != "exp"}),
    }
    for what, token in bad.items():
        status, refused = call(server, "GET", "/api/session", token)
        assert (status, refused["code"]) == (401, "unauthorized"), (what, refused)
        assert token[:40] not in refused["message"], f"{what}: a refusal never repeats the token"
    # 100 KB of headers: libwebsockets drops the request before any of it is read (its header limit is
    # 16 KiB); the server goes on.
    with pytest.raises((ConnectionError, urllib.error.URLError)):
        call(server, "GET", "/api/session", rs256(keys, claims(padding="x" * 100_000)))
    assert call(server, "GET", "/healthz")[0] == 200
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(server.ws, header=[f"Authorization: Bearer {bad['expired']}"], timeout=10)
    assert refused.value.status_code == 401
    with pytest.raises(websocket.WebSocketBadStatusException):
        websocket.create_connection(server.ws, timeout=10)
    assert not any(token[:60] in server.log() for token in bad.values())


def _hs256_unchecked(payload, secret: bytes) -> str:
    """HS256 signed with `secret` by hand (PyJWT refuses to use a PEM key as an HMAC secret: that refusal
    is exactly the attack this token stands for)."""
    import hashlib
    import hmac

    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).rstrip(b"=").decode()
    signing_input = part({"alg": "HS256", "typ": "JWT"}) + "." + part(payload)
    mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def test_a_token_scoped_to_one_job_sees_only_it_and_its_connection_ends_at_exp(server, keys):
    operator = rs256(keys, claims(role="operator"))
    ids = [call(server, "POST", "/api/jobs", operator, {"kind": "sort", "params": {"count": 50}})[1]["id"] for _ in range(2)]
    exp = int(time.time()) + 3
    viewer = rs256(keys, claims(sub="app-user-7", jobs=[ids[0]], exp=exp))
    connection = websocket.create_connection(server.ws + "?t=" + viewer, timeout=10)
    try:
        snapshot = contract.server_message(json.loads(connection.recv()))
        assert [job["id"] for job in snapshot["jobs"]] == [ids[0]] and snapshot["scope"] == {"jobs": [ids[0]]}
        assert snapshot["news"]["items"] == [] and snapshot["workers"] == []
        status, _ = call(server, "GET", f"/api/jobs/{ids[1]}", viewer)
        assert status == 404, "another job is as if it did not exist"
        status, _ = call(server, "GET", f"/api/jobs/{ids[0]}", viewer)
        assert status == 200
        connection.settimeout(15)
        while True:
            opcode, data = connection.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                break
        code = int.from_bytes(data[:2], "big")
        assert code == 4001 and data[2:].decode() == "credentials expired", data
        assert time.time() >= exp, "not before its exp"
    finally:
        connection.close()


def test_herald_watch_says_when_its_credentials_are_refused_or_end(server, keys):
    from testkit import herald_binary

    refused = subprocess.run([str(herald_binary()), "watch", server.ws], capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and "credentials (HTTP 401)" in refused.stderr and "--token" in refused.stderr, refused
    token = rs256(keys, claims(exp=int(time.time()) + 3))
    ended = subprocess.run([str(herald_binary()), "watch", "--token", token, server.ws], capture_output=True, text=True,
                           timeout=40)
    assert ended.returncode != 0 and "4001 credentials expired" in ended.stderr and "fresh credentials" in ended.stderr, ended
