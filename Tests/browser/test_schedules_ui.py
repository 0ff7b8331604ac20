"""The Schedules panel and the job-end notifications (docs/schedules.md), in headless Chromium against a real
`herald serve --jobs FILE` whose file declares two schedules: `often` every 2 s, and `yearly` at 03:00 on
1 January in Europe/Berlin (far away). The server's own answer (`GET /api/schedules`) is the oracle.

Notifications: the permission is granted through CDP (`Browser.grantPermissions`), as a user's "Allow" would,
so the page sees `Notification.permission === 'granted'` from the browser itself. Headless Chromium keeps
every page visible and has no place to show a notification, so the test (a) overrides
`document.visibilityState` and fires `visibilitychange`, as the other browser tests do for a background tab,
and (b) wraps `window.Notification` in a subclass that records each notification and then creates the real one.

HERALD_SCREENSHOT=1 also saves docs/schedules.png (the panel).
"""

import json
import os
import tempfile
import urllib.request
from pathlib import Path

import pytest

from testkit import REPO_ROOT, herald_binary

from .conftest import HeraldServer
from .dashboard_page import CONNECTION_NOISE, Dashboard
from .test_dashboard import assert_no_console_errors

TOKEN = "s3cret-schedules"

JOBS = {
    "kinds": {"nap": {"title": "Nap", "command": ["sleep", "{s}"], "concurrency": 4,
                      "params": {"s": {"type": "number", "minimum": 0, "maximum": 60, "default": 0.2}}}},
    "schedules": {
        "often": {"kind": "nap", "every": "2s"},
        "yearly": {"kind": "nap", "params": {"s": 0.5}, "cron": "0 3 1 1 *", "timezone": "Europe/Berlin"},
    },
}

# Records every notification the page makes (and still makes the real one).
RECORD_NOTIFICATIONS = """
const Real = window.Notification;
window.__notes = [];
class Recorded extends Real {
  constructor(title, options) {
    super(title, options);
    window.__notes.push({ title, body: options && options.body, tag: options && options.tag });
  }
}
Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
window.Notification = Recorded;
"""


@pytest.fixture
def schedule_server(tmp_path):
    """schedule_server(*extra_args, jobs=JOBS) → a started server with that jobs file (None: none); stopped at
    the end."""
    made = []

    def make(*extra_args, jobs=JOBS):
        base = Path(tempfile.mkdtemp(prefix="sched-", dir=tmp_path))
        (base / "data").mkdir()
        (base / "root").mkdir()
        args = list(extra_args)
        if jobs is not None:
            path = base / "jobs.json"
            path.write_text(json.dumps(jobs))
            args = ["--jobs", str(path), *args]
        binary = herald_binary()
        if not binary.exists():
            pytest.fail(f"no herald binary at {binary}: run `swift build --product herald` or set HERALD_BIN")
        server = HeraldServer(binary, base / "root", base / "data", base, args)
        made.append(server)
        server.start()
        return server

    try:
        yield make
    finally:
        for server in made:
            server.stop()


def server_schedules(server):
    with urllib.request.urlopen(server.url + "api/schedules", timeout=10) as response:
        return {entry["name"]: entry for entry in json.loads(response.read())["schedules"]}


def panel(page):
    """Each schedule row as the page shows it, by name."""
    return {row["name"]: row for row in page.js("""
        return Array.from(document.querySelectorAll('#schedules-list .schedule-row'), (row) => {
          const text = (selector) => row.querySelector(selector).textContent;
          const shown = (selector) => !row.querySelector(selector).hidden;
          return { name: row.dataset.name, paused: row.dataset.paused, kind: text('.schedule-kind'),
                   rule: text('.schedule-rule'), state: text('.schedule-state'), next: text('.schedule-next-time'),
                   nextAt: row.querySelector('.schedule-next-time').getAttribute('datetime'),
                   relative: text('.schedule-next-relative'), last: text('.schedule-last'),
                   fired: text('.schedule-fired'), pause: shown('.schedule-pause'), resume: shown('.schedule-resume'),
                   run: shown('.schedule-run'), error: text('.schedule-error') };
        });""")}


def click(page, name, button):
    page.find(f'#schedules-list .schedule-row[data-name="{name}"] .schedule-{button}').click()


def iso(ms):
    """The page's `datetime` attribute for an epoch-ms instant (Date.toISOString)."""
    from datetime import datetime, timezone
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def test_schedules_panel_lists_both_and_pause_resume_and_run_reach_the_server(schedule_server, browser):
    server = schedule_server()
    page = Dashboard(browser(), server.url).open()
    page.wait(lambda d: set(panel(page)) == {"often", "yearly"}, message="the panel did not list both schedules")
    assert page.find("#schedules-section").is_displayed()
    assert [row.get_attribute("data-name") for row in page.find_all("#schedules-list .schedule-row")] == ["often", "yearly"], \
        "in the jobs file's order"
    truth = server_schedules(server)
    rows = panel(page)
    assert rows["often"]["rule"] == "every 2s" and rows["yearly"]["rule"] == "0 3 1 1 * (Europe/Berlin)"
    assert rows["often"]["kind"] == rows["yearly"]["kind"] == "Nap", "the kind's title from the jobs file"
    assert rows["yearly"]["nextAt"] == iso(truth["yearly"]["next"]), "the next run is the server's instant"
    assert rows["yearly"]["relative"].startswith("(in ") and rows["yearly"]["relative"].endswith(" days)"), rows["yearly"]
    assert rows["yearly"]["next"] and rows["yearly"]["state"] == "active" and rows["yearly"]["last"] == "not yet"
    # The every-2s schedule fires on its own; its jobs' events make the panel ask again.
    page.wait(lambda d: panel(page)["often"]["last"].startswith("succeeded"), message="often's last outcome never showed")
    page.wait(lambda d: int(panel(page)["often"]["fired"]) >= 2, message="often's fired count did not follow")
    assert panel(page)["often"]["relative"].startswith("(in ")

    if os.environ.get("HERALD_SCREENSHOT") == "1":
        page.js("document.activeElement.blur()")
        section = page.by_id("schedules-section")
        page.js("arguments[0].scrollIntoView()", section)
        section.screenshot(str(REPO_ROOT / "docs" / "schedules.png"))

    click(page, "yearly", "pause")
    page.wait(lambda d: panel(page)["yearly"]["paused"] == "true", message="Pause did not show it paused")
    row = panel(page)["yearly"]
    assert row["state"] == "paused" and row["resume"] and not row["pause"] and row["next"] == "paused"
    assert server_schedules(server)["yearly"]["paused"] is True, "the server says it is paused"
    assert server_schedules(server)["often"]["paused"] is False, "only that one"

    click(page, "yearly", "resume")
    page.wait(lambda d: panel(page)["yearly"]["paused"] == "false", message="Resume did not show it running")
    assert server_schedules(server)["yearly"]["paused"] is False
    assert panel(page)["yearly"]["pause"] and not panel(page)["yearly"]["resume"]

    click(page, "yearly", "run")
    job = page.wait(lambda d: page.js("""
        const row = Array.from(document.querySelectorAll('#jobs .job-row'))
          .find((r) => r.querySelector('.job-by').textContent === 'by schedule yearly');
        return row ? row.dataset.jobId : null;"""), message="Run now's job did not appear marked as the schedule's")
    truth = server_schedules(server)["yearly"]
    assert truth["fired"] == 1 and truth["last"]["job"] == job, truth
    page.wait(lambda d: panel(page)["yearly"]["last"].startswith("succeeded"), message="the run's outcome did not show")
    page.wait(lambda d: "by schedule yearly" in page.texts("#history-rows .history-by"), message="History did not say who started it")
    assert all(row["error"] == "" for row in panel(page).values())
    assert page.by_id("schedules-error").text == ""
    assert_no_console_errors(page, allow=CONNECTION_NOISE)


def test_a_server_without_schedules_shows_no_panel(schedule_server, browser):
    server = schedule_server(jobs=None)
    page = Dashboard(browser(), server.url).open()
    page.wait(lambda d: page.js("return window.performance.getEntriesByType('resource')"
                                ".some((e) => e.name.endsWith('/api/schedules'))"), message="the panel never asked")
    assert not page.find("#schedules-section").is_displayed()
    assert page.by_id("schedules-error").get_attribute("textContent") == ""


def test_pause_on_a_server_with_a_token_asks_for_it_then_pauses(schedule_server, browser):
    server = schedule_server("--token", TOKEN)
    page = Dashboard(browser(), server.url).open()
    page.wait(lambda d: "yearly" in panel(page), message="the panel did not list the schedules")
    click(page, "yearly", "pause")
    page.wait(lambda d: page.find("#auth-section").is_displayed(), message="the token prompt did not appear")
    assert server_schedules(server)["yearly"]["paused"] is False, "refused without the token"
    page.by_id("auth-token").send_keys(TOKEN)
    page.by_id("auth-submit").click()
    page.wait(lambda d: panel(page)["yearly"]["paused"] == "true", message="the pause did not go again with the token")
    assert server_schedules(server)["yearly"]["paused"] is True
    assert not page.find("#auth-section").is_displayed()
    assert panel(page)["yearly"]["error"] == ""


def test_not_now_at_the_prompt_says_why_the_pause_did_not_happen(schedule_server, browser):
    server = schedule_server("--token", TOKEN)
    page = Dashboard(browser(), server.url).open()
    page.wait(lambda d: "yearly" in panel(page), message="the panel did not list the schedules")
    click(page, "yearly", "pause")
    page.wait(lambda d: page.find("#auth-section").is_displayed(), message="the token prompt did not appear")
    page.by_id("auth-dismiss").click()
    page.wait(lambda d: panel(page)["yearly"]["error"].startswith("Could not pause it: "), message="no refusal shown")
    assert "token" in panel(page)["yearly"]["error"]
    assert server_schedules(server)["yearly"]["paused"] is False


def hidden_page(page, server):
    """Grants the notification permission as the browser's own, records notifications, picks a choice later."""
    origin = server.url.rstrip("/")
    page.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["notifications"]})
    assert page.js("return Notification.permission") == "granted"
    page.js(RECORD_NOTIFICATIONS)


def succeeded(page, schedule):
    """How many jobs of `schedule` this page saw succeed."""
    return page.js("return Array.from(window.Herald.debug.store.jobs.values())"
                   ".filter((j) => j.schedule === arguments[0] && j.state === 'succeeded').length", schedule)


def choose(page, value):
    page.js("const s = document.getElementById('notify-choice'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('change'))", value)
    page.wait(lambda d: page.find("#notify").get_attribute("data-choice") == value, message=f"the choice {value} did not hold")


def test_any_job_ending_in_the_background_makes_one_notification_and_the_choice_is_kept(schedule_server, browser):
    server = schedule_server()
    page = Dashboard(browser(), server.url).open()
    assert page.js("return Notification.permission") == "default", "nothing asked on load"
    assert page.find("#notify").get_attribute("data-choice") == "off"
    hidden_page(page, server)
    choose(page, "all")
    # Visible: jobs end (often fires every 2 s), nothing is shown.
    before = succeeded(page, "often")
    page.wait(lambda d: succeeded(page, "often") > before, message="no job of often ended")
    assert page.js("return window.__notes") == []
    page.set_hidden(True)
    notes = page.wait(lambda d: page.js("return window.__notes"), message="no notification while hidden")
    note = notes[0]
    assert note["title"] == "Nap succeeded", note
    assert note["body"].startswith("Took ") and "Started by schedule often." in note["body"], note
    job = note["tag"].removeprefix("herald-")
    assert page.js("return window.Herald.debug.store.jobs.get(arguments[0]).state", job) == "succeeded"
    assert len([n for n in page.js("return window.__notes") if n["tag"] == note["tag"]]) == 1, "one per job"
    assert page.js("return localStorage.getItem('herald.notify')") == "all"
    page.set_hidden(False)
    page.driver.refresh()
    page.wait_live()
    assert page.find("#notify").get_attribute("data-choice") == "all", "the choice outlives a reload"


def test_my_jobs_only_notify_for_the_job_this_tab_started(schedule_server, browser):
    server = schedule_server()
    page = Dashboard(browser(), server.url).open()
    page.wait(lambda d: "yearly" in panel(page), message="the panel did not list the schedules")
    hidden_page(page, server)
    choose(page, "mine")
    page.set_hidden(True)
    before = succeeded(page, "often")
    click(page, "yearly", "run")
    notes = page.wait(lambda d: page.js("return window.__notes"), message="no notification for the job started here")
    assert notes[0]["title"] == "Nap succeeded"
    mine = server_schedules(server)["yearly"]["last"]["job"]
    assert notes[0]["tag"] == "herald-" + mine
    # Jobs of `often` end meanwhile; none of them is this tab's, so none is told.
    page.wait(lambda d: succeeded(page, "often") > before + 1, message="no job of often ended")
    assert [n["tag"] for n in page.js("return window.__notes")] == ["herald-" + mine]


def test_a_failed_read_is_said_in_the_panel_and_clears_when_reads_work_again(schedule_server, browser):
    server = schedule_server()
    page = Dashboard(browser(), server.url).open()
    page.wait(lambda d: "yearly" in panel(page), message="the panel did not list the schedules")
    # The server answers the schedules with an error for a while (api.js looks window.fetch up on each call).
    page.js("""
        const real = window.fetch;
        window.__failSchedules = true;
        window.fetch = (url, options) => window.__failSchedules && String(url) === '/api/schedules'
          ? Promise.resolve(new Response(JSON.stringify({ code: 'shutting_down', message: 'the server is stopping' }),
              { status: 503, headers: { 'Content-Type': 'application/json' } }))
          : real(url, options);""")
    page.wait(lambda d: page.by_id("schedules-error").text.startswith("Could not load the schedules: "),
              message="the failed read was not said")
    assert "shutting down" in page.by_id("schedules-error").text
    assert page.find("#schedules-section").is_displayed() and "yearly" in panel(page), "what was known stays shown"
    page.js("window.__failSchedules = false")
    page.wait(lambda d: page.by_id("schedules-error").text == "", message="the error stayed after a good read")
