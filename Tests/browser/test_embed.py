"""docs/examples/embed.html in a real browser: a page of another origin loads Herald's JavaScript client from
the server (/client.js) and shows one job's progress; without --allow-origin it says what is missing.

Run: scripts/pytest Tests/browser/test_embed.py -v   (fixtures in conftest.py)
"""

import functools
import http.server
import json
import threading
import urllib.parse
import urllib.request

import pytest

from testkit import REPO_ROOT

from .corpus import NEEDLE
from .dashboard_page import Dashboard

EXAMPLES = REPO_ROOT / "docs" / "examples"

# Installed before the page's own scripts: records every value the bar takes, so the test can tell that it
# advanced without racing it.
RECORD_BAR = """
window.__bar = [];
new MutationObserver((records) => {
  for (const record of records) {
    if (record.target instanceof HTMLProgressElement) window.__bar.push(record.target.value);
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['value'] });
"""


@pytest.fixture
def other_site():
    """docs/examples served on another loopback port (another origin) by Python's http.server; yields its origin."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(EXAMPLES)))
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}"
    finally:
        site.shutdown()
        site.server_close()
        thread.join(timeout=5)


def start_search(herald) -> str:
    request = urllib.request.Request(
        herald.url.rstrip("/") + "/api/jobs", data=json.dumps({"kind": "search", "params": {"query": NEEDLE}}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["id"]


def open_embed(driver, origin, herald, job):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_BAR})
    query = urllib.parse.urlencode({"server": herald.url, "job": job})
    driver.get(f"{origin}/embed.html?{query}")
    return Dashboard(driver, origin)


def test_the_embed_page_shows_a_job_moving_to_the_end(server_factory, browser, other_site):
    herald = server_factory("--allow-origin", other_site)
    job = start_search(herald)
    page = open_embed(browser(), other_site, herald, job)
    page.wait(lambda d: page.js("return document.body.dataset.state") == "succeeded", 60, "the job's end never showed")
    assert page.find("#job").text == job
    assert page.find("#percent").text == "100%"
    assert page.js("return document.getElementById('bar').value") == 1
    values = page.js("return window.__bar")
    assert any(0 < value < 1 for value in values), f"the bar never showed a value between the ends: {values}"
    assert values == sorted(values), f"the bar went backwards: {values}"
    assert page.find("#connection").text == "live"
    assert not page.find("#error").is_displayed()


def test_the_client_module_is_shared_only_with_an_allowed_origin(server_factory, other_site):
    herald = server_factory("--allow-origin", other_site)
    for origin, expected in ((other_site, other_site), ("http://elsewhere.example", None)):
        request = urllib.request.Request(herald.url + "client.js", headers={"Origin": origin})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.headers.get("Access-Control-Allow-Origin") == expected
            assert b"export class HeraldClient extends EventTarget" in response.read()


def test_without_allow_origin_the_embed_page_says_what_is_missing(server_factory, browser, other_site):
    herald = server_factory()
    job = start_search(herald)
    page = open_embed(browser(), other_site, herald, job)
    page.wait(lambda d: page.find("#error").is_displayed(), message="no error shown")
    assert f"--allow-origin {other_site}" in page.find("#error").text
    assert page.js("return document.body.dataset.state") is None
