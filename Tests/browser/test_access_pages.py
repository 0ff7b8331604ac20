"""The sign-in page (Public/signin.html) and the share-link page (Public/share.html) in headless Chromium.

The sign-in page is driven against a small stand-in for the server's documented answers to POST /api/session
(204 with a cookie, 401 with an error message, 429 with Retry-After), served with the server's own CSP; the
share page against a real `herald serve` (it shows a job through the dashboard's own views) and against a
stand-in that refuses the link (answers 401), as the server does for an expired or revoked one.

Run: scripts/pytest Tests/browser/test_access_pages.py -v   (fixtures in conftest.py)
"""

import base64
import functools
import http.server
import json
import re
import threading
import time

import pytest

from testkit import REPO_ROOT, Herald, wait_for

from .dashboard_page import Dashboard

PUBLIC = REPO_ROOT / "Public"
# The server's CSP (HTTPResponse.swift): the pages must work under it.
CSP = ("default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


class StandIn(http.server.SimpleHTTPRequestHandler):
    """Public/ with the CSP, and the answers of POST /api/session and of a refused share link."""

    site = None  # set per server: the recorded requests and the gate of slow answers

    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def answer(self, status, body=None, headers=()):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.site.requests.append(("GET", self.path, self.headers.get("Authorization")))
        if self.path.startswith("/ws") or self.path.startswith("/api/"):
            self.answer(401, {"error": {"code": "unauthorized", "message": "share link expired"}})
        elif self.path == "/":
            self.path = "/index.html"
            super().do_GET()
        else:
            super().do_GET()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        self.site.requests.append(("POST", self.path, body.decode()))
        if self.path != "/api/session":
            self.answer(404, {"error": {"code": "not_found", "message": "no such route"}})
            return
        sent = json.loads(body)
        if sent.get("user") == "slow":
            self.site.gate.wait(20)
        if sent == {"user": "ann", "password": "right"}:
            self.answer(204, headers=[("Set-Cookie", "herald_session=abc.def; HttpOnly; SameSite=Strict; Path=/")])
        elif sent.get("user") == "locked":
            self.answer(429, {"error": {"code": "rate_limited", "message": "too many failed sign-ins"}}, [("Retry-After", "42")])
        else:
            self.answer(401, {"error": {"code": "unauthorized", "message": "wrong user name or password"}})


@pytest.fixture
def stand_in():
    site = type("Site", (), {})()
    site.requests = []
    site.gate = threading.Event()
    handler = type("Handler", (StandIn,), {"site": site})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(PUBLIC)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site.url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        yield site
    finally:
        site.gate.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def token_for(job, exp):
    """A token with the documented payload; the signature is not checked by the page (the server does)."""
    payload = json.dumps({"v": 1, "id": "abc", "job": job, "exp": exp, "kid": 1}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(payload).decode().rstrip("=") + "." + "A" * 43


def sign_in(page, user, password):
    page.by_id("signin-user").clear()
    page.by_id("signin-user").send_keys(user)
    page.by_id("signin-password").send_keys(password)
    page.by_id("signin-page-submit").click()


# ---- the sign-in page -----------------------------------------------------------------------------------


def test_a_good_sign_in_posts_json_and_goes_to_the_dashboard(stand_in, browser):
    page = Dashboard(browser(), stand_in.url + "signin.html")
    page.driver.get(page.url)
    sign_in(page, "ann", "right")
    page.wait(lambda d: d.current_url == stand_in.url, message="the page did not go to the dashboard")
    posts = [r for r in stand_in.requests if r[0] == "POST"]
    assert posts == [("POST", "/api/session", '{"user":"ann","password":"right"}')]


def test_a_refused_sign_in_shows_the_servers_message_and_forgets_the_password(stand_in, browser):
    page = Dashboard(browser(), stand_in.url + "signin.html")
    page.driver.get(page.url)
    sign_in(page, "ann", "wrong")
    page.wait(lambda d: page.by_id("signin-page-error").text == "wrong user name or password", message="no error shown")
    assert page.by_id("signin-password").get_attribute("value") == ""
    assert page.by_id("signin-page-submit").is_enabled()
    assert page.by_id("signin-password").get_attribute("aria-invalid") == "true"
    assert "signin.html" in page.driver.current_url
    assert not page.console_errors(re.compile(r"/api/session.*401"))


def test_a_throttled_sign_in_says_when_to_try_again(stand_in, browser):
    page = Dashboard(browser(), stand_in.url + "signin.html")
    page.driver.get(page.url)
    sign_in(page, "locked", "whatever")
    page.wait(lambda d: page.by_id("signin-page-error").text == "Too many failed sign-ins. Try again in 42 seconds.",
              message="no throttling message")


def test_the_button_is_disabled_while_the_server_answers(stand_in, browser):
    page = Dashboard(browser(), stand_in.url + "signin.html")
    page.driver.get(page.url)
    sign_in(page, "slow", "whatever")
    submit = page.by_id("signin-page-submit")
    page.wait(lambda d: not submit.is_enabled() and submit.text == "Signing in…", message="the button stayed enabled")
    # A second press while waiting sends nothing more.
    page.js("document.getElementById('signin-page-form').requestSubmit()")
    stand_in.gate.set()
    page.wait(lambda d: submit.is_enabled(), message="the button was not enabled again")
    assert len([r for r in stand_in.requests if r[0] == "POST"]) == 1


def test_empty_fields_are_refused_before_anything_is_sent(stand_in, browser):
    page = Dashboard(browser(), stand_in.url + "signin.html")
    page.driver.get(page.url)
    page.by_id("signin-page-submit").click()
    page.wait(lambda d: page.by_id("signin-page-error").text == "Enter your user name.")
    assert [r for r in stand_in.requests if r[0] == "POST"] == []


# ---- the share page -------------------------------------------------------------------------------------


@pytest.fixture
def herald(tmp_path):
    server = Herald("--public", str(PUBLIC), root=tmp_path)
    try:
        yield server
    finally:
        server.stop()


def test_the_share_page_shows_the_job_with_the_dashboards_row_and_no_controls(herald, browser):
    status, job = herald.json("POST", "/api/jobs", {"kind": "sort", "params": {"count": 20000}})
    assert status == 202
    # A real link: the server checks the token the page connects with.
    made = wait_for(lambda: (lambda answer: answer[1] if answer[0] == 201 else None)(
        herald.json("POST", f"/api/jobs/{job['id']}/share")), what="a share link, once the server knows the job")
    token = made["token"]
    page = Dashboard(browser(), herald.url + "share.html?t=" + token)
    page.open()  # the status says live: the page connected with the link
    row = f'#jobs .job-row[data-job-id="{job["id"]}"]'
    page.wait(lambda d: page.js(f"const r = document.querySelector('{row}'); return r && r.dataset.state") == "succeeded",
              message="the shared job's row did not show it succeeded")
    assert page.js(f"return document.querySelector('{row} .job-progress').value") == page.js(
        f"return document.querySelector('{row} .job-progress').max")
    # Watching only: no cancel, no name of who started it, no worker.
    for part in (".job-actions", ".job-by", ".job-worker"):
        assert not page.js(f"return document.querySelector('{row} {part}').checkVisibility()"), part
    assert not page.by_id("share-gone").is_displayed()
    # The socket carried the link's token.
    assert page.js("return window.Herald.debug.client.url.searchParams.get('t')") == token
    assert not page.console_errors()


def test_an_expired_link_says_so_without_connecting(stand_in, browser):
    page = Dashboard(browser(), stand_in.url + "share.html?t=" + token_for("j-1", int(time.time()) - 10))
    page.driver.get(page.url)
    page.wait(lambda d: page.by_id("share-gone").is_displayed(), message="the page did not say the link ended")
    assert page.by_id("share-gone").text.startswith("This link has expired or was revoked")
    assert not page.by_id("jobs-section").is_displayed()
    assert [r for r in stand_in.requests if r[1].startswith(("/ws", "/api/"))] == []


def test_a_link_the_server_refuses_says_so_and_stops_trying(stand_in, browser):
    token = token_for("j-1", int(time.time()) + 3600)
    page = Dashboard(browser(), stand_in.url + "share.html?t=" + token)
    page.driver.get(page.url)
    page.wait(lambda d: page.by_id("share-gone").is_displayed(), message="the page did not say the link ended")
    assert page.by_id("share-gone").text.startswith("This link has expired or was revoked")
    # The page asked about its job with the token as a bearer credential, then stopped reconnecting.
    assert ("GET", "/api/jobs/j-1", "Bearer " + token) in stand_in.requests
    assert page.js("return window.Herald.debug.client.closed") is True


def test_an_address_without_a_token_says_the_link_is_incomplete(stand_in, browser):
    page = Dashboard(browser(), stand_in.url + "share.html")
    page.driver.get(page.url)
    page.wait(lambda d: page.by_id("share-gone").is_displayed())
    assert "not a complete share link" in page.by_id("share-gone-note").text
