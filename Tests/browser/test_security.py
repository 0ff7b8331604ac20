"""Security in a real browser: the dashboard's token sign-in, and cross-site WebSocket hijacking refused.

Run: scripts/pytest Tests/browser/test_security.py -v   (fixtures in conftest.py)
"""

import functools
import http.server
import re
import threading

import pytest

from .corpus import NEEDLE
from .dashboard_page import Dashboard

TOKEN = "s3cret"

# The page another site would serve: it opens a WebSocket to Herald and writes what happened into the DOM.
HIJACK_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>another site</title><link rel="icon" href="data:,"></head>
<body>
<p id="result" data-state="pending">pending</p>
<script>
  const out = document.getElementById('result');
  const target = new URLSearchParams(location.search).get('target');
  const ws = new WebSocket(target);
  ws.onopen = () => { out.dataset.state = 'open'; out.textContent = 'open'; };
  ws.onmessage = (event) => { out.dataset.message = String(event.data).slice(0, 200); };
  ws.onerror = () => { out.dataset.error = 'yes'; };
  ws.onclose = (event) => {
    out.dataset.closed = String(event.code);
    if (out.dataset.state === 'pending') { out.dataset.state = 'refused'; out.textContent = 'refused'; }
  };
</script>
</body>
</html>
"""


@pytest.fixture
def other_site(tmp_path):
    """A web server on another loopback port (another origin) serving the hijack page; yields its origin."""
    root = tmp_path / "other-site"
    root.mkdir()
    (root / "hijack.html").write_text(HIJACK_PAGE)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}"
    finally:
        site.shutdown()
        site.server_close()
        thread.join(timeout=5)


def hijack_outcome(driver, origin, herald):
    """Opens the other site's page against `herald` and returns the page's result element's dataset."""
    driver.get(f"{origin}/hijack.html?target={herald.ws_url}")
    page = Dashboard(driver, origin)
    page.wait(lambda d: page.find("#result").get_attribute("data-state") != "pending", message="the socket never opened or closed")
    if page.find("#result").get_attribute("data-state") == "open":
        page.wait(lambda d: page.find("#result").get_attribute("data-message"), message="no message after open")
    return page.js("return Object.assign({}, document.getElementById('result').dataset)")


def stderr_log(herald):
    return "".join(path.read_text(errors="replace") for path in sorted(herald.log_dir.glob("herald-*.stderr.log")))


# ---- cross-site WebSocket hijacking --------------------------------------------------------------------


def test_a_page_from_another_origin_cannot_open_the_stream(server_factory, browser, other_site):
    herald = server_factory()
    result = hijack_outcome(browser(), other_site, herald)
    assert result["state"] == "refused", result
    assert "message" not in result, f"the other site read the stream: {result}"
    assert result["closed"] == "1006", result  # the handshake failed: no close frame, no 101
    assert re.search(rf"origin {re.escape(other_site)} is not allowed", stderr_log(herald))


def test_the_same_page_opens_when_its_origin_is_allowed(server_factory, browser, other_site):
    """The control for the test above: the page does report an open socket when the server allows it."""
    herald = server_factory("--allow-origin", other_site)
    result = hijack_outcome(browser(), other_site, herald)
    assert result["state"] == "open", result
    assert '"type":"snapshot"' in result["message"]


# ---- token sign-in ---------------------------------------------------------------------------------------


def auth_shown(page):
    return page.find("#auth-section").is_displayed()


def signin_state(page):
    """The header's sign-in control: off (hidden), offer (the button), form (the field) or signed-in."""
    return page.find("#signin").get_attribute("data-state")


def snapshot_seen(page):
    return page.js("return Herald.debug.store.snapshots.count") >= 1


def storage(page):
    return page.js(
        "return {session: sessionStorage.getItem('herald.token'), local: JSON.stringify(localStorage),"
        " cookie: document.cookie, url: location.href}")


def test_start_asks_for_the_token_and_then_works(server_factory, browser):
    herald = server_factory("--token", TOKEN)
    page = Dashboard(browser(), herald.url).open()
    assert not auth_shown(page)

    page.by_id("search-query").send_keys(NEEDLE)
    page.by_id("search-start").click()
    page.wait(lambda d: auth_shown(page), message="the token form never appeared")
    assert page.js("return document.activeElement.id") == "auth-token", "the token field should have the focus"
    assert not page.search_start_enabled(), "Start should wait while the token is asked for"
    assert page.job_ids("search") == [], "a search started without the token"

    # A wrong token: said so, the form stays, nothing stored.
    page.by_id("auth-token").send_keys("wrong")
    page.by_id("auth-submit").click()
    page.wait(lambda d: "not accepted" in page.by_id("auth-error").text, message="no error for a wrong token")
    assert page.by_id("auth-token").get_attribute("aria-invalid") == "true"
    assert storage(page)["session"] is None
    assert page.job_ids("search") == []

    # The right one: the form goes away and the search that was refused starts.
    field = page.by_id("auth-token")
    field.clear()
    field.send_keys(TOKEN)
    page.by_id("auth-submit").click()
    job = page.wait_new_job("search", set())
    page.wait(lambda d: not auth_shown(page), message="the form stayed after a good token")
    page.wait(lambda d: signin_state(page) == "signed-in", message="the header did not say signed in")
    assert page.by_id("search-error").text == ""

    # Cancel needs the token too; this connection has it now.
    page.wait(lambda d: page.job_state(job) in ("running", "succeeded"), message="the search did not run")
    if page.job_state(job) == "running":
        page.row(job).find_element("css selector", ".job-cancel").click()
        page.wait(lambda d: page.job_state(job) in ("cancelled", "succeeded"), message="cancel did nothing")
        assert page.row(job).find_element("css selector", ".job-error").text == ""
    assert not auth_shown(page)

    # Kept in this tab's sessionStorage only: not in localStorage, a cookie or the URL.
    kept = storage(page)
    assert kept["session"] == TOKEN
    assert TOKEN not in kept["local"] and TOKEN not in kept["cookie"] and TOKEN not in kept["url"]

    # A new connection (reload) signs in by itself: a sort starts without the form.
    page.driver.refresh()
    page.wait_live()
    before = set(page.job_ids("sort"))
    page.by_id("sort-start").click()
    page.wait_new_job("sort", before)
    assert not auth_shown(page)
    assert page.by_id("sort-error").text == ""


def test_declining_the_token_shows_the_refusal(server_factory, browser):
    herald = server_factory("--token", TOKEN)
    page = Dashboard(browser(), herald.url).open()
    page.by_id("sort-start").click()
    page.wait(lambda d: auth_shown(page), message="the token form never appeared")
    page.by_id("auth-dismiss").click()
    page.wait(lambda d: "token" in page.by_id("sort-error").text, message="no refusal shown after 'Not now'")
    assert not auth_shown(page)
    assert page.by_id("sort-start").is_enabled()
    assert page.job_ids("sort") == []


def test_no_token_needed_no_form(server_factory, browser):
    herald = server_factory()
    page = Dashboard(browser(), herald.url).open()
    before = set(page.job_ids("sort"))
    page.by_id("sort-start").click()
    page.wait_new_job("sort", before)
    assert not auth_shown(page)
    assert storage(page)["session"] is None


def test_sign_in_is_offered_before_anything_is_refused(server_factory, browser):
    herald = server_factory("--token", TOKEN)
    page = Dashboard(browser(), herald.url).open()
    watcher = Dashboard(browser(), herald.url).open()  # never signs in

    # Offered on load, nothing pressed: the button in the header; Start stays there too.
    for window in (page, watcher):
        window.wait(lambda d, w=window: signin_state(w) == "offer", message="no sign-in offered on load")
        assert window.by_id("signin-open").is_displayed()
        assert window.by_id("signin-open").text == "Sign in to control jobs"
        assert window.js("return Herald.debug.store.limits.authRequired") is True
        assert not auth_shown(window), "the inline form is for refusals only"
        assert window.by_id("search-start").is_displayed() and window.by_id("sort-start").is_displayed()
    assert page.job_ids("search") == []

    # The button opens the field, focused.
    page.by_id("signin-open").click()
    page.wait(lambda d: page.by_id("signin-token").is_displayed(), message="the token field never appeared")
    assert signin_state(page) == "form" and not page.by_id("signin-open").is_displayed()
    assert page.js("return document.activeElement.id") == "signin-token"

    # A wrong token: the error next to the field, nothing kept, still offered.
    page.by_id("signin-token").send_keys("wrong")
    page.by_id("signin-submit").click()
    page.wait(lambda d: "not accepted" in page.by_id("signin-error").text, message="no error for a wrong token")
    assert page.by_id("signin-error").is_displayed()
    assert page.by_id("signin-token").get_attribute("aria-invalid") == "true"
    assert signin_state(page) == "form"
    assert storage(page)["session"] is None

    # The right one: "Signed in" instead of the control; kept in this tab's sessionStorage only.
    field = page.by_id("signin-token")
    field.clear()
    field.send_keys(TOKEN)
    page.by_id("signin-submit").click()
    page.wait(lambda d: signin_state(page) == "signed-in", message="the control never said signed in")
    assert page.by_id("signin-done").is_displayed()
    assert page.by_id("signin-done").text.lower() == "signed in"
    assert not page.by_id("signin-open").is_displayed() and not page.by_id("signin-form").is_displayed()
    kept = storage(page)
    assert kept["session"] == TOKEN
    assert TOKEN not in kept["local"] and TOKEN not in kept["cookie"] and TOKEN not in kept["url"]

    # Start works at the first press: no refusal, no inline form.
    job = page.start_search(NEEDLE)
    assert not auth_shown(page)
    assert page.by_id("search-error").text == ""

    # The window without a token watches it live (events on its first connection, no new snapshot) and
    # is still offered the sign-in.
    watcher.wait(lambda d: watcher.has_row(job), message="the watcher never saw the job")
    for window in (page, watcher):
        window.wait(lambda d, w=window: w.job_state(job) == "succeeded", 90, "the search did not succeed")
    assert watcher.js("return Herald.debug.store.snapshots.count") == 1
    assert signin_state(watcher) == "offer"
    assert storage(watcher)["session"] is None

    # A reload signs in by itself with the kept token and says so.
    page.driver.refresh()
    page.wait_live()
    page.wait(lambda d: signin_state(page) == "signed-in", message="not signed in after a reload")


def test_no_sign_in_offered_without_a_token(server_factory, browser):
    herald = server_factory()
    page = Dashboard(browser(), herald.url).open()
    page.wait(lambda d: snapshot_seen(page), message="no snapshot")
    assert page.js("return Herald.debug.store.limits.authRequired") is False
    assert signin_state(page) == "off"
    assert not page.by_id("signin").is_displayed()
    assert not page.by_id("signin-open").is_displayed()
