"""The Webhooks panel (docs/webhooks.md), in headless Chromium against a real `herald serve --jobs FILE` whose
file tells two receivers on free loopback ports about every job that ends: one answers 200 (each delivery
verified with the `standardwebhooks` package), the other accepts connections and never answers. With
`--webhook-timeout 1` and a small `--webhook-retry-scale`, the silent one's ten attempts run out in about ten
seconds. The server's own answer (`GET /api/webhooks`) and what the receivers saw are the oracles.

HERALD_SCREENSHOT=1 also saves docs/webhooks.png (the panel).
"""

import base64
import json
import os
import socket
import tempfile
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from standardwebhooks import Webhook

from testkit import REPO_ROOT, herald_binary

from .conftest import HeraldServer
from .dashboard_page import CONNECTION_NOISE, Dashboard
from .test_dashboard import assert_no_console_errors

SECRET = "whsec_" + base64.b64encode(b"herald webhook panel test key 32").decode()
# Ten attempts of at most 1 s each, with the waits between them (15.7 h in all) shrunk to about a second.
FAST = ["--webhook-retry-scale", "0.00002", "--webhook-timeout", "1"]
ATTEMPTS = 10  # docs/webhooks.md: "10 attempts in all"


class Answering:
    """An HTTP receiver on 127.0.0.1, port 0: verifies each delivery's signature, answers 200."""

    def __init__(self):
        verifier = Webhook(SECRET)
        self.ids = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                verifier.verify(body, {key.lower(): value for key, value in self.headers.items()})
                with receiver.lock:
                    receiver.ids.append(self.headers["webhook-id"])
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Silent:
    """Accepts connections on 127.0.0.1, port 0, reads each request's head and never answers; keeps the
    `webhook-id` of every attempt."""

    def __init__(self):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/silent"
        self.ids = []
        self.connections = []
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.connections.append(connection)
            threading.Thread(target=self.read, args=(connection,), daemon=True).start()

    def read(self, connection):
        data = b""
        while b"\r\n\r\n" not in data:
            try:
                chunk = connection.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            data += chunk
        for line in data.split(b"\r\n"):
            if line.lower().startswith(b"webhook-id:"):
                with self.lock:
                    self.ids.append(line.split(b":", 1)[1].strip().decode())

    def stop(self):
        self.listener.close()
        with self.lock:
            for connection in self.connections:
                connection.close()


@pytest.fixture
def receivers():
    answering, silent = Answering(), Silent()
    try:
        yield answering, silent
    finally:
        answering.stop()
        silent.stop()


@pytest.fixture
def webhook_server(tmp_path, receivers):
    answering, silent = receivers
    base = Path(tempfile.mkdtemp(prefix="hooks-", dir=tmp_path))
    for folder in ("data", "root"):
        (base / folder).mkdir()
    secret = base / "hook.secret"
    secret.write_text(SECRET + "\n")
    os.chmod(secret, 0o600)
    jobs = {
        "kinds": {"ok": {"title": "OK", "command": ["true"]}},
        "notify": [
            {"on": ["succeeded"], "webhook": answering.url, "secretFile": str(secret)},
            {"on": ["succeeded"], "webhook": silent.url, "secretFile": str(secret)},
        ],
    }
    (base / "jobs.json").write_text(json.dumps(jobs))
    binary = herald_binary()
    if not binary.exists():
        pytest.fail(f"no herald binary at {binary}: run `swift build --product herald` or set HERALD_BIN")
    server = HeraldServer(binary, base / "root", base / "data", base, ["--jobs", str(base / "jobs.json"), *FAST])
    server.start()
    try:
        yield server
    finally:
        server.stop()


def server_webhooks(server):
    with urllib.request.urlopen(server.url + "api/webhooks", timeout=10) as response:
        return {entry["webhook"]: entry for entry in json.loads(response.read())["webhooks"]}


def start_job(server, kind):
    request = urllib.request.Request(server.url + "api/jobs", data=json.dumps({"kind": kind}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["id"]


def panel(page):
    """Each webhook card as the page shows it, by URL: its counts, its warning and its delivery rows."""
    return {card["url"]: card for card in page.js("""
        return Array.from(document.querySelectorAll('#webhooks-list .webhook-row'), (card) => {
          const text = (root, selector) => root.querySelector(selector).textContent;
          return {
            url: card.dataset.webhook, shownUrl: text(card, '.webhook-url'), counts: text(card, '.webhook-counts'),
            warning: card.querySelector('.webhook-given-up').hidden ? null : text(card, '.webhook-given-up'),
            none: !card.querySelector('.webhook-none').hidden,
            rows: Array.from(card.querySelectorAll('.webhook-delivery'), (row) => ({
              id: row.dataset.id, status: row.dataset.status, job: text(row, '.delivery-job'),
              event: text(row, '.delivery-event'), said: text(row, '.delivery-status'),
              attempts: text(row, '.delivery-attempts'), next: text(row, '.delivery-next'),
              outcome: text(row, '.delivery-outcome') })),
          };
        });""")}


def test_the_panel_shows_each_delivery_and_says_when_a_silent_receiver_is_given_up(webhook_server, receivers, browser):
    answering, silent = receivers
    server = webhook_server
    page = Dashboard(browser(), server.url).open()
    page.wait(lambda d: set(panel(page)) == {answering.url, silent.url}, message="the panel did not list both webhooks")
    assert page.find("#webhooks-section").is_displayed()
    assert [card.get_attribute("data-webhook") for card in page.find_all("#webhooks-list .webhook-row")] == \
        [answering.url, silent.url], "in the jobs file's order"
    assert all(card["none"] and card["rows"] == [] and card["warning"] is None for card in panel(page).values())

    job = start_job(server, "ok")

    # The answering receiver has it at the first attempt; the silent one's delivery is shown pending while its
    # attempts go on (the panel asks again when the job ends).
    delivered = page.wait(lambda d: (lambda rows: rows and rows[0]["status"] == "delivered" and rows[0])(
        panel(page)[answering.url]["rows"]), message="the delivered delivery did not show")
    assert delivered["job"] == job and delivered["event"] == "succeeded" and delivered["said"] == "delivered"
    assert delivered["attempts"] == f"1 of {ATTEMPTS}" and delivered["next"] == "—" and delivered["outcome"] == "HTTP 200"
    assert answering.ids == [delivered["id"]], "the id the panel shows is the one the receiver got"
    pending = page.wait(lambda d: (lambda rows: rows and rows[0]["status"] == "pending" and rows[0])(
        panel(page)[silent.url]["rows"]), message="the silent receiver's delivery was not shown pending")
    assert pending["job"] == job and pending["said"] == "pending"
    assert pending["attempts"].endswith(f" of {ATTEMPTS}") and int(pending["attempts"].split()[0]) < ATTEMPTS
    assert pending["next"], pending

    # Every attempt times out; after the tenth the delivery is given up, and the panel says so.
    given_up = page.wait(lambda d: (lambda rows: rows and rows[0]["status"] == "givenUp" and rows[0])(
        panel(page)[silent.url]["rows"]), timeout=90, message="the panel never said the delivery was given up")
    truth = server_webhooks(server)[silent.url]
    assert truth["givenUp"] == 1 and truth["maxAttempts"] == ATTEMPTS
    (delivery,) = truth["deliveries"]
    assert delivery["status"] == "givenUp" and delivery["attempts"] == ATTEMPTS
    assert given_up["id"] == delivery["id"] == pending["id"]
    assert given_up["said"] == f"given up after {ATTEMPTS} attempts"
    assert given_up["attempts"] == f"{ATTEMPTS} of {ATTEMPTS}" and given_up["next"] == "—"
    assert given_up["outcome"] == delivery["lastOutcome"] == "timed out after 1 s"
    card = panel(page)[silent.url]
    assert card["warning"] == (f"1 delivery was given up since the server started: every one of its {ATTEMPTS} "
                               "attempts failed."), card
    assert card["counts"] == "0 delivered · 9 retried · 1 given up · 0 pending", card
    assert panel(page)[answering.url]["warning"] is None
    # The receiver's threads read the last attempt's head on their own time.
    page.wait(lambda d: len(silent.ids) >= ATTEMPTS, message="the receiver did not read the tenth attempt")
    with silent.lock:
        assert silent.ids == [delivery["id"]] * ATTEMPTS, "ten attempts, each with the same webhook-id"

    if os.environ.get("HERALD_SCREENSHOT") == "1":
        page.js("document.activeElement.blur()")
        section = page.by_id("webhooks-section")
        page.js("arguments[0].scrollIntoView()", section)
        section.screenshot(str(REPO_ROOT / "docs" / "webhooks.png"))
    assert page.by_id("webhooks-error").text == ""
    assert_no_console_errors(page, allow=CONNECTION_NOISE)


def test_a_pending_delivery_says_when_its_next_attempt_is_due(webhook_server, browser):
    """The words for a delivery between attempts, from the panel's own module (the live test above mostly sees
    attempts under way: its waits are milliseconds)."""
    page = Dashboard(browser(), webhook_server.url).open()
    now = 1796549400000
    said = page.js("""
        return import('/views/webhooks.js').then((view) => {
          const delivery = { id: 'msg_1', job: 'j-1', event: 'failed', status: 'pending', attempts: 3,
                             createdAt: arguments[0] - 60000, nextAttemptAt: arguments[0] + 120000, lastOutcome: 'HTTP 503' };
          return { next: view.nextText(delivery, arguments[0]), attempts: view.attemptText(delivery, 10),
                   status: view.statusText(delivery),
                   underWay: view.nextText({ ...delivery, nextAttemptAt: null }, arguments[0]),
                   done: view.nextText({ ...delivery, status: 'delivered', nextAttemptAt: null }, arguments[0]),
                   givenUp: view.statusText({ ...delivery, status: 'givenUp', attempts: 1 }) };
        });""", now)
    assert said["next"].endswith(" (in 2 min)") and said["attempts"] == "3 of 10" and said["status"] == "pending", said
    assert said["underWay"] == "under way" and said["done"] == "—" and said["givenUp"] == "given up after 1 attempt", said
