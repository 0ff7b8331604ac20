"""The dashboard's History section (Public/views/history.js, Public/views/timeline.js) in headless Chromium
against a real `herald serve` (fixtures in conftest.py): past jobs from
`GET /api/jobs?state=&kind=&before=&limit=`, filtered, paged with `next`, refreshed from the live stream
without asking the server for each event, and the timeline of the last hour.

HERALD_SCREENSHOT=1 also saves docs/history.png (the section with a job of every outcome).
"""

import json
import os
import re
import stat
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from selenium.webdriver.support.ui import Select

from .dashboard_page import CONNECTION_NOISE, Dashboard
from .test_dashboard import assert_no_console_errors

REPO_ROOT = Path(__file__).resolve().parents[2]
FINAL = {"succeeded", "failed", "cancelled", "interrupted"}
# Nepal is UTC+5:45 all year: a time shown in it cannot be mistaken for the UTC one.
ZONE = "Asia/Kathmandu"
ZONE_OFFSET = timezone(timedelta(hours=5, minutes=45))
DURATION = re.compile(r"^(\d+ ms|\d+(\.\d)? s|\d+ min \d\d s|\d+ h \d\d min)$")
# What Chromium writes to the console for a request that failed on purpose in these tests.
FAILED_REQUEST = re.compile(CONNECTION_NOISE.pattern + r"|status of 400")


# ---- the server, over REST ---------------------------------------------------------------------------------


def post_job(server, kind, params=None):
    request = urllib.request.Request(server.url + "api/jobs", data=json.dumps({"kind": kind, "params": params or {}}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["id"]


def cancel_job(server, job_id):
    request = urllib.request.Request(server.url + f"api/jobs/{job_id}/cancel", data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 202


def server_jobs(server):
    """Every job the server holds, by id (the plain `GET /api/jobs`)."""
    with urllib.request.urlopen(server.url + "api/jobs", timeout=10) as response:
        return {job["id"]: job for job in json.loads(response.read())["jobs"]}


def wait_jobs(page, server, ids, states=FINAL, message="the jobs did not end"):
    """Waits (polling the server) until every job in `ids` is in one of `states`; returns them by id."""
    def reached(_):
        jobs = server_jobs(server)
        return jobs if all(i in jobs and jobs[i]["state"] in states for i in ids) else False

    return page.wait(reached, 60, message)


def newest_first(jobs):
    return [job["id"] for job in sorted(jobs, key=lambda j: (j["createdAt"], j["id"]), reverse=True)]


# ---- the page ----------------------------------------------------------------------------------------------


def history_ids(page):
    return page.js("return Array.from(document.querySelectorAll('#history-rows tr'), (r) => r.dataset.jobId)")


def history_rows(page):
    """Each shown row as a dict of its data and cell texts, in order."""
    return page.js("""return Array.from(document.querySelectorAll('#history-rows tr'), (r) => ({
        id: r.dataset.jobId, kind: r.dataset.kind, state: r.dataset.state,
        when: r.querySelector('.history-when time').textContent, title: r.querySelector('.history-when time').title,
        took: r.querySelector('.history-took').textContent, result: r.querySelector('.history-result').textContent }))""")


def settled(page):
    return page.js("return !document.getElementById('history-table').hasAttribute('aria-busy')")


def open_dashboard(browser, server, width=1280, height=1000):
    driver = browser(width, height)
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ZONE})
    return Dashboard(driver, server.url).open()


def set_states(page, wanted):
    for box in page.find_all("#history-states input[type=checkbox]"):
        if box.is_selected() != (box.get_attribute("value") in wanted):
            box.click()


def bars(page):
    """Every bar of the timeline: id, state, class, geometry and title."""
    return page.js("""return Array.from(document.querySelectorAll('#timeline rect.tl-bar'), (r) => ({
        id: r.dataset.jobId, state: r.dataset.state, cls: r.getAttribute('class'),
        x: +r.getAttribute('x'), y: +r.getAttribute('y'), width: +r.getAttribute('width'),
        title: r.querySelector('title').textContent }))""")


def local_clock_texts(ms):
    """How a local (Kathmandu) time of day may be written: 24-hour or 12-hour clock."""
    t = datetime.fromtimestamp(ms / 1000, ZONE_OFFSET)
    return {t.strftime("%H:%M:%S"), t.strftime("%I:%M:%S %p")}


def plain(text):
    return text.replace("\u202f", " ").replace("\xa0", " ")


# ---- tests -------------------------------------------------------------------------------------------------


def test_history_lists_jobs_newest_first_in_local_time_and_filters_by_kind_and_state(server, browser):
    sorts = [post_job(server, "sort", {"count": 10 + i}) for i in range(3)]
    fetch = post_job(server, "fetch")
    page = open_dashboard(browser, server)
    jobs = wait_jobs(page, server, sorts + [fetch])
    page.wait(lambda d: set(sorts + [fetch]) <= set(history_ids(page)), message="the history does not list the new jobs")

    rows = history_rows(page)
    shown = [jobs[row["id"]] for row in rows if row["id"] in jobs]
    assert [row["id"] for row in rows] == newest_first(shown), "newest first, by createdAt then id"
    for row in rows:
        job = jobs[row["id"]]
        start = job.get("startedAt", job["createdAt"])
        # (with the date in front when the job started on another day than today, such as just before midnight)
        assert any(plain(row["when"]).endswith(t) for t in local_clock_texts(start)), f"{row['when']!r} is not the local time of {start}"
        assert DURATION.match(row["took"]), f"took {row['took']!r}"
        assert row["state"] == job["state"] and row["kind"] == job["kind"]
    sort_row = next(row for row in rows if row["id"] == sorts[0])
    assert sort_row["result"].startswith("10 numbers from"), sort_row

    # The kind select offers the snapshot's kinds; choosing one asks the server for that kind only.
    kinds = page.js("return Array.from(document.querySelectorAll('#history-kind option'), (o) => o.value)")
    assert kinds[0] == "" and {"search", "sort", "fetch"} <= set(kinds)
    Select(page.by_id("history-kind")).select_by_value("sort")
    page.wait(lambda d: settled(page) and fetch not in history_ids(page) and set(sorts) <= set(history_ids(page)),
              message="the kind filter did not apply")
    assert {row["kind"] for row in history_rows(page)} == {"sort"}

    # No job of this module's server was interrupted: a clear empty state, not an empty table.
    set_states(page, {"interrupted"})
    page.wait(lambda d: settled(page) and page.by_id("history-empty").text == "No jobs match these filters.",
              message="no empty state for a filter that matches nothing")
    assert history_ids(page) == [] and not page.by_id("history-table").is_displayed()
    set_states(page, set())
    page.wait(lambda d: page.by_id("history-empty").text == "Choose at least one state to see jobs.")

    set_states(page, {"succeeded", "failed"})
    Select(page.by_id("history-kind")).select_by_value("")
    page.wait(lambda d: settled(page) and fetch in history_ids(page), message="the filters did not clear")
    assert {row["state"] for row in history_rows(page)} <= {"succeeded", "failed"}
    assert page.by_id("history-error").text == ""
    assert_no_console_errors(page)


def test_older_pages_follow_the_servers_cursor(server_factory, browser):
    server = server_factory()
    ids = [post_job(server, "sort", {"count": 10}) for _ in range(25)]
    page = open_dashboard(browser, server)
    jobs = wait_jobs(page, server, ids)
    expected = newest_first(jobs.values())

    Select(page.by_id("history-limit")).select_by_value("20")
    page.wait(lambda d: settled(page) and history_ids(page) == expected[:20], message="the first page is not the newest 20")
    assert page.by_id("history-older").is_enabled() and not page.by_id("history-newer").is_enabled()
    assert page.by_id("history-page-info").text == "Newest 20 jobs"

    page.by_id("history-older").click()
    page.wait(lambda d: settled(page) and history_ids(page) == expected[20:], message="Older did not show the next page")
    assert not page.by_id("history-older").is_enabled(), "the last page has no Older"
    assert page.by_id("history-newer").is_enabled()
    assert page.by_id("history-page-info").text == "Page 2: 5 jobs"

    page.by_id("history-newer").click()
    page.wait(lambda d: settled(page) and history_ids(page) == expected[:20], message="Newer did not go back")
    assert_no_console_errors(page)


def test_the_history_follows_job_events_without_a_request_per_event(server_factory, browser):
    server = server_factory()
    page = open_dashboard(browser, server)
    page.wait(lambda d: page.by_id("history-empty").text == "No jobs yet.", message="no empty state on a new server")
    assert page.js("return document.querySelectorAll('#timeline rect.tl-bar').length") == 0
    # Every request the page makes from here on, with when it was made.
    page.js("""const real = window.fetch; window.__requests = [];
        window.fetch = (url, options) => { window.__requests.push({ url: String(url), at: Date.now() }); return real(url, options); };""")

    ids = [post_job(server, "sort", {"count": 10 + i}) for i in range(12)]
    wait_jobs(page, server, ids)
    page.wait(lambda d: set(ids) <= set(history_ids(page)) and
              all(row["state"] == "succeeded" for row in history_rows(page)),
              message="the history did not show the new jobs by itself")
    # 12 jobs made 36 job events; the list was fetched again after a quiet spell, at least 3 s apart.
    requests = page.js("return window.__requests")
    lists = [r["at"] for r in requests if "/api/jobs?" in r["url"]]
    assert 1 <= len(lists) < 12, requests
    assert all(b - a >= 2900 for a, b in zip(lists, lists[1:])), f"refetched too soon: {lists}"
    # The timeline follows the stream alone: no request for it after the first snapshot.
    page.wait(lambda d: {b["id"] for b in bars(page)} >= set(ids), message="the timeline did not draw the new jobs")
    assert not [r for r in requests if "limit=500" in r["url"]], requests
    assert_no_console_errors(page)


def test_a_failed_request_says_so(server_factory, browser):
    server = server_factory()
    post_job(server, "sort", {"count": 10})
    page = open_dashboard(browser, server)
    page.wait(lambda d: len(history_ids(page)) == 1, message="the history did not load")
    error = page.by_id("history-error")

    # A value the server refuses (limit 0): its words and the status.
    page.js("""const real = (window.__realFetch = window.fetch);
        window.fetch = (url, options) => real(String(url).replace(/limit=\\d+/, 'limit=0'), options);""")
    page.by_id("history-refresh").click()
    try:
        urllib.request.urlopen(server.url + "api/jobs?limit=0", timeout=10)
        raise AssertionError("the server accepted limit=0")
    except urllib.error.HTTPError as refusal:
        assert refusal.code == 400
        said = json.loads(refusal.read())["message"]
    page.wait(lambda d: "HTTP 400" in error.text, message="no error for a 400 answer")
    assert error.text.startswith("Could not load the job history: " + said.rstrip(".")), (error.text, said)

    # A server that answers the old way, without paging.
    page.js("""const real = window.__realFetch;
        window.fetch = (url, options) => real(String(url).replace(/\\?.*$/, ''), options);""")
    page.by_id("history-refresh").click()
    page.wait(lambda d: "does not page its job history" in error.text, message="no error for an answer without `next`")

    # No server at all.
    page.js("window.fetch = window.__realFetch")
    server.stop()
    page.by_id("history-refresh").click()
    page.wait(lambda d: error.text == "Could not load the job history: the server could not be reached.",
              message="no error while the server is down")
    assert len(history_ids(page)) == 1, "what was shown stays, under the error"
    assert_no_console_errors(page, allow=FAILED_REQUEST)


# Sleeps the given seconds, then exits with the given status.
WORK = "#!/bin/sh\nsleep \"$1\"\nexit \"$2\"\n"
# Runs until the release file exists.
HOLD = "#!/bin/sh\nwhile [ ! -f \"{release}\" ]; do sleep 0.05; done\n"


def _script(folder, name, text):
    path = folder / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_the_timeline_draws_each_job_of_the_last_hour_coloured_by_outcome(server_factory, browser, tmp_path):
    release = tmp_path / "hold.release"
    work = _script(tmp_path, "work.sh", WORK)
    hold = _script(tmp_path, "hold.sh", HOLD.replace("{release}", str(release)))
    seconds = {"type": "number", "minimum": 0, "maximum": 10, "default": 1}
    jobs_file = tmp_path / "jobs.json"
    jobs_file.write_text(json.dumps({"kinds": {
        "build": {"title": "Build", "command": [work, "{seconds}", "0"], "params": {"seconds": seconds}, "concurrency": 2},
        "deploy": {"title": "Deploy", "command": [work, "{seconds}", "3"], "params": {"seconds": seconds}},
        "hold": {"title": "Hold", "command": [hold], "concurrency": 3},
    }}))
    server = server_factory("--jobs", str(jobs_file), "--workers", "4")
    try:
        page = open_dashboard(browser, server, 1280, 1100)
        outcome = {}
        doomed = post_job(server, "hold")  # running when the server dies: interrupted
        first = post_job(server, "build", {"seconds": 1.5})
        wait_jobs(page, server, [first])
        outcome[first] = "succeeded"
        failing = post_job(server, "deploy", {"seconds": 1})
        wait_jobs(page, server, [failing])
        outcome[failing] = "failed"
        cancelled = post_job(server, "hold")
        wait_jobs(page, server, [cancelled], {"running"})
        page.wait(lambda d: any(b["id"] == cancelled and b["state"] == "running" for b in bars(page)),
                  message="a running job has no bar")
        cancel_job(server, cancelled)
        outcome[cancelled] = "cancelled"
        wait_jobs(page, server, [cancelled])

        # A crash: the job left running comes back interrupted; the page reconnects and fetches again.
        server.process.kill()
        server.process.wait()
        server.process = None
        server.start(port=server.port)
        outcome[doomed] = "interrupted"
        page.wait_live(60)
        second = post_job(server, "build", {"seconds": 0.5})
        outcome[second] = "succeeded"
        running = post_job(server, "hold")
        outcome[running] = "running"
        wait_jobs(page, server, list(outcome), FINAL | {"running"})

        classes = {"running": "tl-running", "succeeded": "tl-succeeded", "failed": "tl-failed",
                   "cancelled": "tl-cancelled", "interrupted": "tl-interrupted"}
        kinds = {"build": "Build", "deploy": "Deploy", "hold": "Hold"}
        jobs = server_jobs(server)

        def drawn(_):
            by_id = {b["id"]: b for b in bars(page)}
            return by_id if all(i in by_id and by_id[i]["state"] == s for i, s in outcome.items()) else False

        by_id = page.wait(drawn, message="the timeline does not show every job with its outcome: %r" % bars(page))
        for job_id, state in outcome.items():
            bar = by_id[job_id]
            assert classes[state] in bar["cls"].split(), bar
            kind = kinds[jobs[job_id]["kind"]]
            assert bar["title"].startswith(f"{job_id} · {kind} · {state} · "), bar["title"]
            took = bar["title"].split(" · ")[3].removesuffix(" so far")
            assert DURATION.match(took), bar["title"]
        assert by_id[running]["title"].split(" · ")[3].endswith(" so far")
        # Newest start on top.
        order = sorted(by_id.values(), key=lambda b: b["y"])
        starts = [jobs[b["id"]].get("startedAt", jobs[b["id"]]["createdAt"]) for b in order]
        assert starts == sorted(starts, reverse=True)

        # The axis: round local times, and the running job reaching "now".
        ticks = page.js("return Array.from(document.querySelectorAll('#timeline .tl-tick[data-time]'), "
                        "(t) => [+t.dataset.time, t.textContent])")
        assert len(ticks) >= 3, ticks
        for ms, text in ticks:
            assert ms % 300_000 == 0, ticks
            assert plain(text) in {t[:5] for t in local_clock_texts(ms)} | {t[:5] + t[8:] for t in local_clock_texts(ms)}, ticks
        now_x = float(page.by_id("timeline").get_attribute("data-now-x"))
        assert abs(by_id[running]["x"] + by_id[running]["width"] - now_x) < 1.5
        assert page.count(".timeline-legend li") == 6

        # The last minute, where a second is some pixels: the running bar grows as time passes.
        Select(page.by_id("timeline-window")).select_by_value("60")
        page.wait(lambda d: page.js("const t = document.querySelectorAll('#timeline .tl-tick[data-time]');"
                                    "return t.length >= 3 && t[1].dataset.time - t[0].dataset.time < 60000"),
                  message="the last minute has no ticks seconds apart")
        width = next(b["width"] for b in bars(page) if b["id"] == running)
        page.wait(lambda d: next(b["width"] for b in bars(page) if b["id"] == running) > width + 5,
                  message="the running job's bar does not grow")
        # The list caught up after the reconnect and the jobs started since, by itself.
        page.wait(lambda d: {row["id"]: row["state"] for row in history_rows(page)} == outcome,
                  message="the list did not catch up: %r" % history_rows(page))
        if os.environ.get("HERALD_SCREENSHOT") == "1":
            # For the picture, the running job's bar grows over a third of the minute first.
            page.js("document.activeElement.blur()")
            page.wait(lambda d: next(b["width"] for b in bars(page) if b["id"] == running) > 350, 60)
            section = page.by_id("history-section")
            page.js("arguments[0].scrollIntoView()", section)
            section.screenshot(str(REPO_ROOT / "docs" / "history.png"))
        assert page.by_id("history-error").text == "" and page.by_id("timeline-error").text == ""
        assert_no_console_errors(page, allow=CONNECTION_NOISE)
    finally:
        release.write_text("go\n")  # the scripts left behind by the crash end too
