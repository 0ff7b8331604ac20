"""The dashboard in a real browser against a real server (see conftest.py for the fixtures).

Run: scripts/pytest Tests/browser -v   (after `swift build --product herald`; HERALD_BIN overrides the binary)
"""

import json
import os
import re
import urllib.request
from pathlib import Path

import pytest

from .corpus import MATCHES_CASE_SENSITIVE, MATCHES_IGNORING_CASE, NEEDLE, expected_locations
from .dashboard_page import CONNECTION_NOISE, Dashboard

REPO_ROOT = Path(__file__).resolve().parents[2]
PUBLIC = REPO_ROOT / "Public"
SEARCH_TIMEOUT = 90


def http_get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, dict(response.headers), response.read()


def match_locations(page):
    """The `file:line` of every match shown, checking none is shown twice."""
    shown = page.js("return Array.from(document.querySelectorAll('#matches .match-loc'), (e) => e.textContent)")
    assert len(shown) == len(set(shown)), "a match is shown twice"
    return set(shown)


def assert_no_console_errors(*pages, allow=None):
    for page in pages:
        errors = page.console_errors(allow)
        assert not errors, "console errors:\n" + "\n".join(e["message"] for e in errors)


# ---- without a browser ------------------------------------------------------------------------------------


# Every page in Public/ and its one entry module: the dashboard, the sign-in page, a share link's page.
PAGES = {"index.html": "app.js", "signin.html": "signin.js", "share.html": "share.js"}


def test_static_files_obey_the_csp_rules():
    """No inline script or style, nothing from another host, no innerHTML: the CSP would block them."""
    assert sorted(path.name for path in PUBLIC.glob("*.html")) == sorted(PAGES), "a page missing from PAGES"
    for name, entry in PAGES.items():
        html = (PUBLIC / name).read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), f"inline <script> in {name}"
        assert "<style" not in html, f"<style> block in {name}"
        assert not re.search(r"\sstyle=", html), f"style= attribute in {name}"
        assert not re.search(r"\son[a-z]+=", html), f"inline event handler in {name}"
        assert not re.search(r"(src|href|action)=\"(https?:)?//", html), f"a resource from another host in {name}"
        # One entry module; everything else is imported. ES modules are always strict mode.
        assert re.findall(r"<script\b[^>]*>", html) == [f'<script type="module" src="{entry}">'], f"not one module entry in {name}"
    for script in PUBLIC.rglob("*.js"):
        text = script.read_text()
        name = str(script.relative_to(PUBLIC))
        assert "innerHTML" not in text and "outerHTML" not in text and "insertAdjacentHTML" not in text, name
        assert re.search(r"^(import|export) ", text, re.M), f"{name} is not an ES module"
        assert "eval(" not in text and "new Function" not in text, name


def test_server_sends_the_page_with_a_strict_csp(server):
    status, headers, body = http_get(server.url)
    assert status == 200 and b"<title>Herald</title>" in body
    csp = {key.lower(): value for key, value in headers.items()}.get("content-security-policy", "")
    assert "script-src 'self'" in csp and "style-src 'self'" in csp, f"CSP header: {csp!r}"


# ---- in the browser -------------------------------------------------------------------------------------


def test_page_goes_live_without_console_errors(server, browser):
    page = Dashboard(browser(), server.url).open()
    assert page.status_text().strip() == "Live"
    assert page.by_id("search-start").is_enabled()
    # Every control has a label.
    unlabeled = page.js(
        """return Array.from(document.querySelectorAll('input, select, textarea'))
             .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')).map((el) => el.id);"""
    )
    assert unlabeled == []
    assert_no_console_errors(page)


def test_search_in_two_windows(server, browser):
    one = Dashboard(browser(), server.url).open()
    two = Dashboard(browser(), server.url).open()

    for page in (one, two):
        page.record_progress()
    job = one.start_search(NEEDLE)
    # Start is disabled in both windows while the search is on the server.
    for page in (one, two):
        page.wait(lambda d, p=page: not p.search_start_enabled(), message="Start stayed enabled")
        page.wait(lambda d, p=page: p.has_row(job))
    # Both enabled again at the end, the job succeeded in both.
    for page in (one, two):
        page.wait(lambda d, p=page: p.job_state(job) == "succeeded", SEARCH_TIMEOUT, "the search did not succeed")
        page.wait(lambda d, p=page: p.search_start_enabled(), message="Start was not enabled again")
        assert page.progress_fraction(job) == 1.0
    # Both bars advanced: part-way values, rising, before the end.
    for page in (one, two):
        fractions = page.recorded_fractions(job)
        partial = [f for f in fractions if 0 < f < 1]
        assert len(set(partial)) >= 2, f"the bar was not seen advancing: {fractions}"
        assert fractions == sorted(fractions), f"the bar went backwards: {fractions}"
    # The match list filled, with the query highlighted case-insensitively.
    for page in (one, two):
        page.wait(lambda d, p=page: p.count("#matches .match") == MATCHES_IGNORING_CASE,
                  message="the match list did not fill")
        assert page.by_id("match-count").get_attribute("data-count") == str(MATCHES_IGNORING_CASE)
        marks = page.texts("#matches mark")
        assert len(marks) == MATCHES_IGNORING_CASE and {m.lower() for m in marks} == {NEEDLE}, set(marks)
        assert set(marks) == {"needle", "Needle"}
        assert match_locations(page) == expected_locations()
        summary = page.row(job).find_element("css selector", ".job-outcome").text
        assert f"{MATCHES_IGNORING_CASE} matches" in summary.replace(",", ""), summary
    assert_no_console_errors(one, two)


def test_a_tab_opened_mid_search_gets_every_match(server, browser):
    one = Dashboard(browser(), server.url).open()
    job = one.start_search(NEEDLE)
    one.wait(lambda d: one.progress_fraction(job) > 0.2, SEARCH_TIMEOUT)
    late = Dashboard(browser(), server.url).open()
    late.wait(lambda d: late.has_row(job))
    # The late tab's Start agrees with the server's state; on a loaded machine the search may
    # already have ended by the time this browser is up, so the check is "agrees", not "disabled".
    late.wait(lambda d: late.search_start_enabled() == (late.job_state(job) not in ("queued", "waiting", "running")),
              message="Start disagrees with the search's state")
    late.wait(lambda d: late.job_state(job) == "succeeded", SEARCH_TIMEOUT)
    # The matches it missed are loaded with `page` once the search ended.
    late.wait(lambda d: late.count("#matches .match") == MATCHES_IGNORING_CASE, message="missed matches not loaded")
    late.wait(lambda d: late.search_start_enabled())
    assert late.by_id("match-count").get_attribute("data-count") == str(MATCHES_IGNORING_CASE)
    assert match_locations(late) == expected_locations()
    assert_no_console_errors(one, late)


def test_capped_matches_say_so(server_factory, browser):
    small = server_factory("--max-results", "50")
    page = Dashboard(browser(), small.url).open()
    job = page.start_search(NEEDLE)
    page.wait(lambda d: page.job_state(job) == "succeeded", SEARCH_TIMEOUT)
    page.wait(lambda d: page.by_id("match-capped").is_displayed(), message="no note that the list is capped")
    assert page.count("#matches .match") == 50
    note = page.by_id("match-capped").text.replace(",", "")
    assert "first 50" in note and f"of {MATCHES_IGNORING_CASE}" in note, note
    assert page.by_id("match-count").get_attribute("data-count") == str(MATCHES_IGNORING_CASE)
    assert_no_console_errors(page)


def test_impatient_clicks_start_one_search_then_case_sensitive_matches(server, browser):
    page = Dashboard(browser(), server.url).open()
    before = set(page.job_ids("search"))
    field = page.by_id("search-query")
    field.clear()
    field.send_keys(NEEDLE)
    # A double click and two Enters in the same moment: one search, and no "busy" error. Ignoring
    # case, the default, so that the search lasts the seconds the corpus is calibrated for and the
    # last Enter, a round trip later, still lands while it runs (a case-sensitive search of this
    # corpus is over in milliseconds: memchr on a rare byte, no line counted where nothing matches).
    page.js(
        """const button = document.getElementById('search-start');
           button.click(); button.click();
           const form = document.getElementById('search-form');
           form.requestSubmit(); form.requestSubmit();"""
    )
    field.send_keys("\n")
    job = page.wait_new_job("search", before)
    page.wait(lambda d: page.job_state(job) == "succeeded", SEARCH_TIMEOUT)
    page.wait(lambda d: page.search_start_enabled())
    assert [j for j in page.job_ids("search") if j not in before] == [job]
    assert page.by_id("search-error").text == ""
    # Then the same query matching case: only the exact bytes.
    exact = page.start_search(NEEDLE, case_sensitive=True)
    page.wait(lambda d: page.job_state(exact) == "succeeded", SEARCH_TIMEOUT)
    page.wait(lambda d: page.count("#matches .match") == MATCHES_CASE_SENSITIVE)
    assert set(page.texts("#matches mark")) == {NEEDLE}
    assert match_locations(page) == expected_locations(case_sensitive=True)
    assert_no_console_errors(page)


def test_cancel_mid_search_shows_in_both_windows(server, browser):
    one = Dashboard(browser(), server.url).open()
    two = Dashboard(browser(), server.url).open()
    job = one.start_search(NEEDLE)
    two.wait(lambda d: two.has_row(job) and two.job_state(job) == "running" and two.progress_fraction(job) > 0,
             SEARCH_TIMEOUT, "the search never ran in the second window")
    # A start that slips through (another tab's search not heard of yet) is refused as busy, in words.
    two.by_id("search-query").send_keys("other")
    two.js("document.getElementById('search-start').disabled = false")
    two.by_id("search-start").click()
    busy = two.wait(lambda d: two.by_id("search-error").text or False, message="no busy error")
    assert busy.startswith("A search is already running"), busy
    two.row(job).find_element("css selector", ".job-cancel").click()
    for page in (one, two):
        page.wait(lambda d, p=page: p.job_state(job) == "cancelled", message="not cancelled")
        page.wait(lambda d, p=page: p.search_start_enabled())
        row = page.row(job)
        assert not row.find_element("css selector", ".job-cancel").is_displayed()
        assert row.find_element("css selector", ".job-state").text.lower() == "cancelled"
        assert row.find_element("css selector", ".job-outcome").text != ""
        assert page.progress_fraction(job) < 1
    assert_no_console_errors(one, two)


def test_empty_query_error_is_shown_next_to_the_field(server, browser):
    page = Dashboard(browser(), server.url).open()
    before = set(page.job_ids("search"))
    page.by_id("search-query").clear()
    page.by_id("search-start").click()
    error = page.wait(lambda d: page.by_id("search-error").text or False, message="no error shown")
    assert "text to find" in error.lower(), error  # the server's "query: …", in the form's words
    # Next to the field: right under the form, and the field points at it.
    assert page.by_id("search-query").get_attribute("aria-describedby") == "search-error"
    assert page.js("return document.getElementById('search-form').nextElementSibling.id") == "search-error"
    assert page.by_id("search-query").get_attribute("aria-invalid") == "true"
    page.wait(lambda d: page.search_start_enabled(), message="Start stayed disabled after the error")
    assert set(page.job_ids("search")) == before
    # The next good search clears it.
    job = page.start_search(NEEDLE)
    assert page.by_id("search-error").text == ""
    page.wait(lambda d: page.job_state(job) == "succeeded", SEARCH_TIMEOUT)
    assert_no_console_errors(page)


def _sort_values(page):
    return [int(cell.get_attribute("data-value")) for cell in page.find_all("#sort-rows .row-value")]


def _sort_rows(page):
    return [int(row.get_attribute("data-row")) for row in page.find_all("#sort-rows tr")]


def test_sort_summary_and_pages(server, browser):
    page = Dashboard(browser(), server.url).open()
    count = 12345
    field = page.by_id("sort-count")
    assert field.get_attribute("value") == "10000"
    field.clear()
    field.send_keys(str(count))

    def run_sort():
        before = set(page.job_ids("sort"))
        page.by_id("sort-start").click()
        job = page.wait_new_job("sort", before)
        page.wait(lambda d: page.job_state(job) == "succeeded", SEARCH_TIMEOUT, "the sort did not succeed")
        page.wait(lambda d: page.by_id("sort-summary").get_attribute("data-job-id") == job)
        page.wait(lambda d: page.by_id("sort-table").get_attribute("data-offset") == "0" and len(_sort_values(page)) == 100)
        return job

    run_sort()
    summary = page.by_id("sort-summary")
    assert summary.get_attribute("data-count") == str(count)
    assert summary.get_attribute("data-created") == "true"
    low, high = int(summary.get_attribute("data-min")), int(summary.get_attribute("data-max"))
    assert low <= high

    first = _sort_values(page)
    assert first == sorted(first) and first[0] == low
    assert _sort_rows(page) == list(range(100))
    assert page.find("#sort-rows tr .row-index").text == "1"
    assert page.by_id("sort-prev").get_attribute("disabled") is not None

    page.by_id("sort-next").click()
    page.wait(lambda d: page.by_id("sort-table").get_attribute("data-offset") == "100" and len(_sort_values(page)) == 100)
    second = _sort_values(page)
    assert second == sorted(second) and second[0] >= first[-1]
    assert _sort_rows(page) == list(range(100, 200))
    assert page.by_id("sort-page-info").text.replace(",", "").startswith("Rows 101–200 of 12345")

    page.by_id("sort-prev").click()
    page.wait(lambda d: page.by_id("sort-table").get_attribute("data-offset") == "0")
    assert _sort_values(page) == first

    # Go to a row near the end: the last page holds the largest value.
    goto = page.by_id("sort-goto")
    goto.clear()
    goto.send_keys(str(count - 9) + "\n")
    page.wait(lambda d: page.by_id("sort-table").get_attribute("data-offset") == str(count - 10))
    last = _sort_values(page)
    assert len(last) == 10 and last == sorted(last) and last[-1] == high
    assert page.by_id("sort-next").get_attribute("disabled") is not None

    # The same count again: the data file is reused.
    run_sort()
    summary = page.by_id("sort-summary")
    assert summary.get_attribute("data-created") == "false"
    assert summary.get_attribute("data-count") == str(count)
    assert (int(summary.get_attribute("data-min")), int(summary.get_attribute("data-max"))) == (low, high)
    assert _sort_values(page) == first
    assert_no_console_errors(page)


def test_news_while_hidden_reloads_when_visible(server, browser):
    page = Dashboard(browser(), server.url).open()
    page.wait(lambda d: page.by_id("news-fetch").is_enabled())
    # Visible: a fetch shows at once.
    before = page.news_ids()
    page.by_id("news-fetch").click()
    page.wait(lambda d: len(page.news_ids()) > len(before), message="news did not arrive while visible")
    assert page.by_id("news-stale").is_displayed() is False

    # Hidden: the list is only marked stale.
    shown = page.news_ids()
    page.set_hidden(True)
    page.wait(lambda d: page.by_id("news-fetch").is_enabled())
    page.by_id("news-fetch").click()
    page.wait(lambda d: page.by_id("news-stale").is_displayed(), message="no stale mark while hidden")
    assert page.news_ids() == shown

    # Visible again: the feed is reloaded over HTTP and the new items are counted.
    page.set_hidden(False)
    page.wait(lambda d: page.by_id("news-new-count").is_displayed(), message="no 'new' count")
    page.wait(lambda d: not page.by_id("news-stale").is_displayed())
    fresh = [i for i in page.news_ids() if i not in shown]
    assert fresh, "no new items after the reload"
    assert page.by_id("news-new-count").text == f"{len(fresh)} new"
    assert len(page.find_all("#news-list .news-item.is-new")) == len(fresh)
    loaded = page.js("return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('/api/news'))")
    assert loaded, "the feed was not reloaded with fetch('/api/news')"
    _, _, body = http_get(server.url.rstrip("/") + "/api/news")
    feed = json.loads(body)
    assert page.news_ids() == [item["id"] for item in feed["items"]]
    assert_no_console_errors(page)


def test_store_ignores_unknown_messages_and_old_events(server, browser):
    """The client state in isolation (a fresh Herald.Store in the page): what the protocol allows to vary."""
    page = Dashboard(browser(), server.url).open()
    result = page.js(
        """
        const store = new Herald.Store();
        const seen = [];
        store.onChange((what) => seen.push(what));
        const job = (id, state, extra) => Object.assign({ id, kind: 'sort', state, params: { count: 5 },
            progress: { completed: 0, total: 5, fraction: 0, message: null }, createdAt: 1 }, extra || {});
        store.applySnapshot({ type: 'snapshot', protocol: 1, reason: 'connect', epoch: 'e1', seq: 10,
            jobs: [job('j-aaaaaaaaaaaa', 'running')], news: { revision: 2, items: [{ id: 'n2-1', time: 1, headline: 'h' }] },
            limits: {}, somethingNew: { nested: true } });
        const outcomes = [
            store.applyEvent({ type: 'job', seq: 9, job: job('j-aaaaaaaaaaaa', 'failed') }),        // old: ignored
            store.applyEvent({ type: 'job', seq: 10, job: job('j-aaaaaaaaaaaa', 'failed') }),       // seen: ignored
            store.applyEvent({ type: 'hologram', seq: 11, payload: 1 }),                             // unknown type
            store.applyEvent({ type: 'progress', seq: 12, job: 'j-aaaaaaaaaaaa', completed: 2, total: 5, fraction: 0.4,
                               message: 'sorting', rate: 10, eta: 0.3, flavour: 'new field' }),
            store.applyEvent({ type: 'progress', seq: 13, job: 'j-unknown000', completed: 1 }),       // unknown job
            store.applyEvent({ type: 'job', seq: 15, job: job('j-bbbbbbbbbbbb', 'queued') }),         // a gap
            store.applyEvent({ type: 'job', seq: 14, job: 'not a job' }),                              // malformed
            store.applyEvent({ type: 'news', seq: 15, revision: 3, items: [{ id: 'n3-1', time: 2, headline: 'x' }, 7] }),
        ];
        const running = store.jobs.get('j-aaaaaaaaaaaa');
        return { outcomes, seq: store.seq, state: running.state, fraction: running.progress.fraction,
                 jobs: store.jobs.size, news: store.news.items.map((i) => i.id), revision: store.news.revision,
                 resume: store.resumePoint() };
        """
    )
    assert result["outcomes"] == ["duplicate", "duplicate", "applied", "applied", "applied", "gap", "applied", "applied"]
    assert result["seq"] == 15
    assert result["state"] == "running" and result["fraction"] == 0.4
    assert result["jobs"] == 1
    assert result["news"] == ["n3-1", "n2-1"] and result["revision"] == 3
    assert result["resume"] == {"epoch": "e1", "since": 15}
    assert_no_console_errors(page)


def test_fits_a_375_pixel_window(server, browser):
    driver = browser()
    # Headless windows have a minimum width; emulate the phone's viewport instead.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 375, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    page = Dashboard(driver, server.url).open()
    assert page.js("return window.innerWidth") == 375
    page.wait(lambda d: len(page.find_all("#jobs .job-row")) > 0)
    widths = page.js("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"horizontal scroll at 375 px: {widths}"
    # Content inside a box that scrolls sideways (the history table) may be wider than the screen:
    # the box itself must fit, and the page must not scroll.
    too_wide = page.js(
        """const width = document.documentElement.clientWidth + 0.5;
           const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
           const insideScroller = (el) => {
             for (let up = el.parentElement; up && up.tagName !== 'MAIN'; up = up.parentElement) {
               if (scrolls(up)) return true;
             }
             return false;
           };
           return Array.from(document.querySelectorAll('main *'))
             .filter((el) => el.getBoundingClientRect().right > width && !insideScroller(el))
             .map((el) => el.tagName + '#' + el.id + '.' + el.className).slice(0, 10);"""
    )
    assert too_wide == [], too_wide
    # Keyboard: Tab from the page start reaches the search field, and the focus ring shows.
    page.js("document.activeElement.blur()")
    body = page.find("body")
    for _ in range(6):
        if page.js("return document.activeElement.id") == "search-query":
            break
        body.send_keys("\t") if page.js("return document.activeElement === document.body") else page.driver.switch_to.active_element.send_keys("\t")
    assert page.js("return document.activeElement.id") == "search-query"
    assert page.js("return getComputedStyle(document.activeElement).outlineStyle") != "none"
    assert_no_console_errors(page)


def test_dark_scheme(server, browser):
    driver = browser()
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    page = Dashboard(driver, server.url).open()
    background = page.js("return getComputedStyle(document.body).backgroundColor")
    red, green, blue = [int(n) for n in re.findall(r"\d+", background)[:3]]
    assert red + green + blue < 150, background
    assert_no_console_errors(page)


def test_resumes_after_a_network_drop(server, browser):
    """Offline, then online again: the dashboard resumes from its last seq and gets what it missed."""
    driver = browser()
    page = Dashboard(driver, server.url).open()
    epoch = page.js("return Herald.debug.store.epoch")
    snapshots = page.js("return Herald.debug.store.snapshots.count")
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    page.wait(lambda d: page.status_state() == "offline", message="no offline status")
    assert page.status_text().startswith("Offline")
    # While this tab is away, another client starts a job.
    request = urllib.request.Request(server.url.rstrip("/") + "/api/jobs", data=json.dumps({"kind": "sort", "params": {"count": 777}}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        job = json.loads(response.read())["id"]
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    page.wait_live()
    page.wait(lambda d: page.has_row(job) and page.job_state(job) == "succeeded", message="the missed job did not arrive")
    assert page.js("return Herald.debug.store.epoch") == epoch
    assert page.js("return Herald.debug.store.snapshots.count") == snapshots, "resumed with a snapshot, not the missed events"
    assert_no_console_errors(page, allow=CONNECTION_NOISE)


def test_reconnects_after_a_restart_and_restores_state(server_factory, browser):
    own_server = server_factory()
    page = Dashboard(browser(), own_server.url).open()
    epoch_before = page.js("return Herald.debug.store.epoch")
    before = set(page.job_ids("sort"))
    field = page.by_id("sort-count")
    field.clear()
    field.send_keys("1000")
    page.by_id("sort-start").click()
    job = page.wait_new_job("sort", before)
    page.wait(lambda d: page.job_state(job) == "succeeded", SEARCH_TIMEOUT)

    own_server.stop()
    page.wait(lambda d: page.status_state() == "reconnecting", message="no reconnecting status")
    page.wait(lambda d: re.search(r"Reconnecting in \d+ s", page.status_text()), message="no countdown")
    assert not page.search_start_enabled()

    own_server.start(port=own_server.port)
    page.wait_live(timeout=60)
    page.wait(lambda d: page.has_row(job) and page.job_state(job) == "succeeded", message="past job not restored")
    assert page.js("return Herald.debug.store.epoch") != epoch_before
    assert page.js("return Herald.debug.store.snapshots.lastReason") == "resume"
    assert page.search_start_enabled()
    # The sorted numbers of the past job can still be paged.
    page.by_id("sort-next").click()
    page.wait(lambda d: page.by_id("sort-table").get_attribute("data-offset") == "100" and len(_sort_values(page)) == 100,
              message="the past sort's next page did not load after the restart: " + page.by_id("sort-error").text)
    assert_no_console_errors(page, allow=CONNECTION_NOISE)


@pytest.mark.skipif(os.environ.get("HERALD_SCREENSHOT") != "1", reason="set HERALD_SCREENSHOT=1 to refresh docs/dashboard.png")
def test_screenshot_for_the_docs(server, browser):
    page = Dashboard(browser(1280, 1000), server.url).open()
    job = page.start_search(NEEDLE)
    page.wait(lambda d: 0.3 < page.progress_fraction(job) < 0.9 and page.count("#matches .match") > 5,
              SEARCH_TIMEOUT)
    target = REPO_ROOT / "docs" / "dashboard.png"
    page.driver.save_screenshot(str(target))
    assert Path(target).stat().st_size > 10_000
    page.wait(lambda d: page.job_state(job) == "succeeded", SEARCH_TIMEOUT)
