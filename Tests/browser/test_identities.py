"""Identities in real Chromium against a real server with a users file (docs/security.md): a browser
without a session lands on the sign-in page; a viewer sees and cannot start; an operator starts within
the role and has no cancel on someone else's job; signing out ends the session; a share link opened
in a second browser with no cookies shows that one job and nothing else, and stops after its expiry and
after it is revoked.

Run: scripts/pytest Tests/browser/test_identities.py -v   (fixtures in conftest.py)
"""

import json
import os
import subprocess
import urllib.error
import urllib.request

import pytest

from testkit import herald_binary

from .conftest import NEEDLE
from .dashboard_page import Dashboard

PASSWORDS = {"ann": "ann's long password", "vic": "vic's long password"}


@pytest.fixture
def team(server_factory, tmp_path):
    users = tmp_path / "users.json"
    env = {key: value for key, value in os.environ.items() if key != "HERALD_USERS"}
    for name, role in (("ann", "operator"), ("vic", "viewer")):
        subprocess.run([str(herald_binary()), "users", "add", name, "--role", role, "--users", str(users)],
                       input=PASSWORDS[name] + "\n", text=True, check=True, capture_output=True, env=env)
    key = subprocess.run([str(herald_binary()), "keys", "add", "bot", "--role", "admin", "--users", str(users)],
                         text=True, check=True, capture_output=True, env=env).stdout.strip()
    return server_factory("--users", str(users)), key


def rest(server, method, path, key, body=None):
    request = urllib.request.Request(server.url.rstrip("/") + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


def sign_in(driver, server, user):
    driver.get(server.url)
    page = Dashboard(driver, server.url)
    page.wait(lambda d: d.current_url.endswith("/signin.html"), message="no sign-in page for a browser without a session")
    page.by_id("signin-user").send_keys(user)
    page.by_id("signin-password").send_keys(PASSWORDS[user])
    page.by_id("signin-page-submit").click()
    page.wait(lambda d: not d.current_url.endswith("/signin.html"), message="the sign-in did not go to the dashboard")
    page.wait_live()
    page.wait(lambda d: page.by_id("identity-name").text == user, message="the header never named the user")
    return page


def test_a_viewer_watches_an_operator_starts_and_signing_out_ends_it(team, browser):
    server, key = team
    theirs = rest(server, "POST", "/api/jobs", key, {"kind": "sort", "params": {"count": 200000}})["id"]
    viewer = sign_in(browser(), server, "vic")
    assert viewer.by_id("identity-role").text.lower() == "viewer"
    assert viewer.by_id("role-note").is_displayed()
    assert not viewer.by_id("search-start").is_displayed(), "a viewer has no start controls"
    viewer.wait(lambda d: viewer.has_row(theirs), message="a viewer sees every job")

    operator = sign_in(browser(), server, "ann")
    assert operator.by_id("search-start").is_displayed()
    job = operator.start_search(NEEDLE)
    operator.wait(lambda d: "by ann" in operator.row(job).find_element("css selector", ".job-by").text, message="who started it")
    viewer.wait(lambda d: viewer.has_row(job), message="the viewer sees ann's job")
    if operator.job_state(theirs) in ("queued", "running"):
        assert not operator.row(theirs).find_element("css selector", ".job-cancel").is_displayed(), \
            "no cancel on another's job for an operator"
    operator.by_id("identity-signout").click()
    operator.wait(lambda d: d.current_url.endswith("/signin.html"), message="signing out goes to the sign-in page")
    operator.driver.get(server.url)
    operator.wait(lambda d: d.current_url.endswith("/signin.html"), message="the session is gone")


def test_the_history_lists_the_jobs_of_whoever_is_named_in_started_by(team, browser):
    server, key = team
    bots = [rest(server, "POST", "/api/jobs", key, {"kind": "sort", "params": {"count": 10 + i}})["id"] for i in range(2)]
    page = sign_in(browser(), server, "ann")
    mine = page.start_search(NEEDLE)

    def shown():
        return set(page.js("return Array.from(document.querySelectorAll('#history-rows tr'), (r) => r.dataset.jobId)"))

    def settled():
        return page.js("return !document.getElementById('history-table').hasAttribute('aria-busy')")

    page.wait(lambda d: {mine, *bots} <= shown(), message="the history does not list both people's jobs")
    page.wait(lambda d: {"ann", "bot"} <= set(page.js(
        "return Array.from(document.querySelectorAll('#history-by-names option'), (o) => o.value)")),
        message="the field does not suggest the names of those who started jobs")

    page.by_id("history-by").send_keys("bot")
    page.wait(lambda d: settled() and shown() == set(bots), message="naming bot did not list only bot's jobs")
    page.by_id("history-by").clear()
    page.by_id("history-by").send_keys("nobody")
    page.wait(lambda d: settled() and page.by_id("history-empty").text == "No jobs match these filters.",
              message="a name nobody used does not say that no job matches")
    assert shown() == set()


def test_a_share_link_shows_one_job_to_a_stranger_until_revoked_or_expired(team, browser):
    server, key = team
    shown = rest(server, "POST", "/api/jobs", key, {"kind": "sort", "params": {"count": 1000}})["id"]
    other = rest(server, "POST", "/api/jobs", key, {"kind": "sort", "params": {"count": 1000}})["id"]

    def link(lifetime):
        for _ in range(100):
            try:
                return rest(server, "POST", f"/api/jobs/{shown}/share?for={lifetime}", key)
            except urllib.error.HTTPError as error:
                if error.code != 404:
                    raise
        raise AssertionError("the server never knew the job")

    made = link("1h")
    stranger = Dashboard(browser(), made["url"])
    stranger.driver.get(made["url"])
    stranger.wait(lambda d: stranger.has_row(shown), message="the shared job's row")
    assert not stranger.has_row(other), "nothing else"
    assert stranger.count("#news-list li") == 0 and "History" not in stranger.driver.page_source
    rest(server, "DELETE", f"/api/shares/{made['id']}", key)
    stranger.wait(lambda d: stranger.by_id("share-gone").is_displayed(), message="a revoked link ends the page")

    # A short link shows the job while it lasts and ends the page when it expires. Loading the page must take
    # less than the link's life; on a busy machine it can take longer, and then the page opens already ended,
    # so the link is made again to live twice as long.
    second = Dashboard(browser(), made["url"])
    for lifetime in (3, 6, 12, 24, 48):
        short = link(f"{lifetime}s")
        second.driver.get(short["url"])
        second.wait(lambda d: second.has_row(shown) or second.by_id("share-gone").is_displayed(), timeout=lifetime + 30,
                    message="the page neither showed the job nor ended")
        if second.has_row(shown):
            break
    else:
        raise AssertionError("no short link showed the job before it expired")
    second.wait(lambda d: second.by_id("share-gone").is_displayed(), timeout=lifetime + 20,
                message="an expired link ends the page")
