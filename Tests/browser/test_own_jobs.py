"""Your own jobs in the dashboard: start forms built from a jobs file's kinds, and a job's live log, in two
headless Chromium windows against a real `herald serve --jobs FILE` (fixtures in conftest.py).

The scripts the kinds run are written in a temp folder; a job that must stay running until the test has
looked waits for a file the test creates (no sleeps in the test).
"""

import json
import stat
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from .dashboard_page import CONNECTION_NOISE, Dashboard
from .test_dashboard import assert_no_console_errors

# Prints LINES lines to stdout and to stderr with progress between them, waits for the release file, says
# something on stderr and exits with CODE.
CHATTER = r'''#!/bin/sh
lines=$1; label=$2; code=$3; mode=$4
i=0
while [ "$i" -lt "$lines" ]; do
  i=$((i + 1))
  echo "$label out $i ($mode)"
  echo "$label err $i" >&2
  echo "{\"completed\": $i, \"total\": $lines, \"message\": \"step $i\"}"
done
while [ ! -f "{release}" ]; do sleep 0.05; done
j=0
while [ "$j" -lt 40 ]; do
  j=$((j + 1))
  echo "$label after $j"
done
echo "disk full" >&2
exit "$code"
'''

HOLD = r'''#!/bin/sh
echo "holding"
while [ ! -f "{release}" ]; do sleep 0.05; done
echo "released"
'''

MANY = r'''#!/bin/sh
i=0
while [ "$i" -lt "$1" ]; do
  i=$((i + 1))
  echo "line $i"
  if [ $((i % 100)) -eq 0 ]; then sleep 0.05; fi
done
'''


def _script(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


class Release:
    """A file whose existence lets a waiting script go on."""

    def __init__(self, path: Path):
        self.path = path

    def __call__(self):
        self.path.write_text("go\n")

    def reset(self):
        self.path.unlink(missing_ok=True)


@pytest.fixture
def jobs_server(server_factory, tmp_path):
    """A server with three kinds from a jobs file, and the files that release the waiting scripts."""
    chatter_release = Release(tmp_path / "chatter.release")
    hold_release = Release(tmp_path / "hold.release")
    chatter = _script(tmp_path, "chatter.sh", CHATTER.replace("{release}", str(chatter_release.path)))
    hold = _script(tmp_path, "hold.sh", HOLD.replace("{release}", str(hold_release.path)))
    many = _script(tmp_path, "many.sh", MANY)
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"kinds": {
        "chatter": {
            "title": "Chatter",
            "command": [chatter, "{lines}", "{label}", "{code}", "{mode}"],
            "concurrency": 2,
            "params": {
                "lines": {"type": "integer", "minimum": 1, "maximum": 500, "default": 4},
                "label": {"type": "string", "default": "hello", "pattern": "^[a-z]+$", "maxLength": 20},
                "code": {"type": "integer", "minimum": 0, "maximum": 9, "default": 0},
                "mode": {"type": "string", "enum": ["quick", "thorough"], "default": "quick"},
                "loud": {"type": "boolean", "default": False, "flag": "--loud"},
            },
        },
        "exclusive": {"title": "Exclusive", "command": [hold], "whenBusy": "refuse"},
        "many": {"title": "Many lines", "command": [many, "{n}"],
                 "params": {"n": {"type": "integer", "default": 1200, "minimum": 1}}},
    }}))
    server = server_factory("--jobs", str(jobs))
    server.chatter_release = chatter_release
    server.hold_release = hold_release
    return server


def test_the_form_shows_each_kinds_fields_with_defaults_and_a_refusal_next_to_its_field(jobs_server, browser):
    page = Dashboard(browser(), jobs_server.url).open()
    page.wait(lambda d: page.by_id("kinds-section").is_displayed(), message="no forms for the jobs file's kinds")
    assert page.js("return Array.from(document.querySelectorAll('#kind-forms form'), (f) => f.dataset.kind)") == \
        ["chatter", "exclusive", "many"], "one form per jobs-file kind, none for the built-in kinds"
    assert page.kind_form("chatter").find_element("css selector", "h3").text == "Chatter"
    lines = page.kind_field("chatter", "lines")
    assert (lines.get_attribute("type"), lines.get_attribute("value"), lines.get_attribute("min"), lines.get_attribute("max")) == \
        ("number", "4", "1", "500")
    label = page.kind_field("chatter", "label")
    assert (label.get_attribute("type"), label.get_attribute("value"), label.get_attribute("maxlength")) == ("text", "hello", "20")
    mode = page.kind_field("chatter", "mode")
    assert mode.tag_name == "select"
    assert page.texts('#kind-forms [data-param="mode"] option') == ["quick", "thorough"]
    assert page.js("const s = document.querySelector('#kind-forms [data-param=\"mode\"] select'); return s.options[s.selectedIndex].text") == "quick"
    loud = page.kind_field("chatter", "loud")
    assert loud.get_attribute("type") == "checkbox" and not loud.is_selected()
    assert page.count('#kind-forms form[data-kind="exclusive"] [data-param]') == 0
    # Every generated control has a label.
    assert page.js("""return Array.from(document.querySelectorAll('#kind-forms input, #kind-forms select'))
                        .filter((el) => !(el.labels && el.labels.length)).length""") == 0

    # A value the server refuses: the error is shown next to that field, and nothing starts.
    before = set(page.job_ids("chatter"))
    label.clear()
    label.send_keys("Not Allowed")
    page.find('#kind-forms form[data-kind="chatter"] .kind-start').click()
    error = page.wait(lambda d: page.kind_field_error("chatter", "label") or False, message="no error next to the field")
    assert "must match" in error.lower(), error
    assert label.get_attribute("aria-invalid") == "true"
    assert page.kind_field_error("chatter", "lines") == ""
    assert page.find('#kind-forms form[data-kind="chatter"] .kind-error').text == ""
    page.wait(lambda d: page.kind_start_enabled("chatter"), message="Start stayed disabled after the refusal")
    assert set(page.job_ids("chatter")) == before
    # Typing clears it; a number out of range is refused next to its own field.
    label.send_keys("x")
    assert page.kind_field_error("chatter", "label") == "" and label.get_attribute("aria-invalid") is None
    label.clear()
    label.send_keys("fine")
    lines.clear()
    lines.send_keys("501")
    page.find('#kind-forms form[data-kind="chatter"] .kind-start').click()
    error = page.wait(lambda d: page.kind_field_error("chatter", "lines") or False, message="no error next to lines")
    assert "at most 500" in error, error
    assert set(page.job_ids("chatter")) == before
    assert_no_console_errors(page)


def test_a_job_started_in_one_window_shows_its_progress_and_log_live_in_the_other(jobs_server, browser):
    one = Dashboard(browser(), jobs_server.url).open()
    two = Dashboard(browser(), jobs_server.url).open()
    for page in (one, two):
        page.wait(lambda d, p=page: p.by_id("kinds-section").is_displayed())
    job = one.start_kind("chatter", {"lines": 6, "code": 3})
    # Window two: the row, with the kind's title, running, its bar part-way (the script waits for the release).
    two.wait(lambda d: two.has_row(job) and two.job_state(job) == "running", message="the job never ran in window two")
    two.wait(lambda d: two.progress_fraction(job) == 1.0, message="window two's bar did not follow the progress")
    assert two.row(job).find_element("css selector", ".job-kind").text == "Chatter"
    assert "lines: 6" in one.row(job).find_element("css selector", ".job-params").text
    # Its log, live: stdout and stderr lines, marked apart.
    two.open_log(job)
    two.wait(lambda d: len(two.log_lines()) == 12, message="window two's log did not fill")
    assert two.log_lines("stdout") == [f"hello out {i} (quick)" for i in range(1, 7)]
    assert two.log_lines("stderr") == [f"hello err {i}" for i in range(1, 7)]
    assert two.job_state(job) == "running", "the log was seen while the job ran"
    assert two.by_id("log-attempt").text == "Attempt 1"
    assert two.by_id("log-exit").text == ""
    stderr_color, stdout_color = two.js(
        """return ['.stream-stderr', '.stream-stdout'].map((s) => getComputedStyle(document.querySelector('#log-lines ' + s)).color)""")
    assert stderr_color != stdout_color, "stderr is not marked apart"
    # The filter shows one stream.
    two.js("const f = document.getElementById('log-filter'); f.value = 'stderr'; f.dispatchEvent(new Event('change'))")
    two.wait(lambda d: two.visible_log_lines() == [f"hello err {i}" for i in range(1, 7)], message="the stderr filter")
    # Window one opens it too; the release lets the script finish: both see the new lines, the exit status, the error.
    one.open_log(job)
    one.wait(lambda d: len(one.log_lines()) == 12)
    jobs_server.chatter_release()
    for page in (one, two):
        page.wait(lambda d, p=page: p.job_state(job) == "failed", message="the job did not fail")
        page.wait(lambda d, p=page: p.by_id("log-exit").get_attribute("data-code") == "3", message="no exit status")
        page.wait(lambda d, p=page: "hello after 40" in p.log_lines("stdout"), message="the last lines did not arrive")
        exit_text = page.by_id("log-exit").text
        assert exit_text.startswith("Exit code 3") and "disk full" in exit_text, exit_text
        assert page.log_lines("stderr")[-1] == "disk full"
        assert page.by_id("log-state").text.lower() == "failed"
        assert page.by_id("log-attempt").text == "Attempt 1"
    assert two.visible_log_lines()[-1] == "disk full", "the filter still applies to new lines"
    assert_no_console_errors(one, two)


def test_a_refuse_when_busy_kind_disables_start_in_every_window_while_it_runs(jobs_server, browser):
    one = Dashboard(browser(), jobs_server.url).open()
    two = Dashboard(browser(), jobs_server.url).open()
    for page in (one, two):
        page.wait(lambda d, p=page: p.kind_start_enabled("exclusive"), message="Start was not enabled at first")
    job = one.start_kind("exclusive")
    for page in (one, two):
        page.wait(lambda d, p=page: p.has_row(job) and p.job_state(job) == "running")
        page.wait(lambda d, p=page: not p.kind_start_enabled("exclusive"), message="Start stayed enabled")
        assert "running" in page.find('#kind-forms form[data-kind="exclusive"] .kind-note').text
        # Only that kind: a kind that queues, and search, can still be started.
        assert page.kind_start_enabled("chatter") and page.kind_start_enabled("many")
        assert page.search_start_enabled()
    # A start that slips through anyway is refused as busy, in words, under its form.
    two.js("document.querySelector('#kind-forms form[data-kind=\"exclusive\"] .kind-start').disabled = false")
    two.find('#kind-forms form[data-kind="exclusive"] .kind-start').click()
    busy = two.wait(lambda d: two.find('#kind-forms form[data-kind="exclusive"] .kind-error').text or False, message="no busy error")
    assert busy.startswith("“Exclusive” is already running"), busy
    jobs_server.hold_release()
    for page in (one, two):
        page.wait(lambda d, p=page: p.job_state(job) == "succeeded")
        page.wait(lambda d, p=page: p.kind_start_enabled("exclusive"), message="Start was not enabled again")
    assert_no_console_errors(one, two)


def test_the_log_stops_following_when_scrolled_up_and_offers_to_follow_again(jobs_server, browser):
    page = Dashboard(browser(), jobs_server.url).open()
    page.wait(lambda d: page.by_id("kinds-section").is_displayed())
    job = page.start_kind("chatter", {"lines": 60})
    page.open_log(job)
    page.wait(lambda d: len(page.log_lines()) == 120, message="the log did not fill")
    assert page.js("const l = document.getElementById('log-lines'); return l.scrollHeight > l.clientHeight + 50"), "the log does not overflow"
    page.wait(lambda d: page.log_at_bottom(), message="the log does not follow")
    assert not page.by_id("log-follow").is_displayed()
    # Scrolled up: it stops following, and offers to follow again.
    page.js("document.getElementById('log-lines').scrollTop = 0")
    page.wait(lambda d: page.by_id("log-follow").is_displayed(), message="no offer to follow again")
    assert page.by_id("log-lines").get_attribute("data-following") == "false"
    jobs_server.chatter_release()
    page.wait(lambda d: "hello after 40" in page.log_lines("stdout"), message="the new lines did not arrive")
    page.wait(lambda d: page.job_state(job) == "succeeded")
    assert page.js("return document.getElementById('log-lines').scrollTop") == 0, "the view moved while not following"
    page.by_id("log-follow").click()
    page.wait(lambda d: page.log_at_bottom(), message="Follow did not go to the end")
    assert not page.by_id("log-follow").is_displayed()
    assert page.by_id("log-exit").text.startswith("Exit code 0")
    assert_no_console_errors(page)


def _paging_supported(server, job_id):
    try:
        with urllib.request.urlopen(f"{server.url.rstrip('/')}/api/jobs/{job_id}/log?offset=0&limit=1", timeout=10) as response:
            return response.status == 200
    except urllib.error.HTTPError:
        return False


def test_a_log_opened_late_pages_back_through_older_lines(jobs_server, browser):
    request = urllib.request.Request(jobs_server.url.rstrip("/") + "/api/jobs", data=json.dumps({"kind": "many"}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        job = json.loads(response.read())["id"]
    page = Dashboard(browser(), jobs_server.url).open()
    page.wait(lambda d: page.has_row(job) and page.job_state(job) == "succeeded", message="the job did not succeed")
    if not _paging_supported(jobs_server, job):
        page.open_log(job)
        page.wait(lambda d: "not available" in page.by_id("log-note").text, message="no word that older lines are unavailable")
        pytest.skip("this server does not page logs yet")
    page.open_log(job)
    # Opened after the job ended: the newest lines are loaded first.
    page.wait(lambda d: page.log_lines()[-1:] == ["line 1200"], message="the newest lines were not loaded")
    first_shown = int(page.log_lines()[0].split()[1])
    assert first_shown > 1 and page.by_id("log-older").is_enabled()
    assert page.log_lines() == [f"line {i}" for i in range(first_shown, 1201)]
    # Back, page by page, to the first line.
    while page.log_lines()[0] != "line 1":
        shown = len(page.log_lines())
        page.wait(lambda d: page.by_id("log-older").is_enabled())
        page.by_id("log-older").click()
        page.wait(lambda d: len(page.log_lines()) > shown, message="no older lines came")
    assert page.log_lines() == [f"line {i}" for i in range(1, 1201)]
    page.wait(lambda d: not page.by_id("log-older").is_enabled())
    assert page.by_id("log-older").text == "No older lines"
    assert_no_console_errors(page)


def test_a_tab_opened_while_a_job_runs_gets_its_earlier_lines_then_the_new_ones(jobs_server, browser):
    one = Dashboard(browser(), jobs_server.url).open()
    one.wait(lambda d: one.by_id("kinds-section").is_displayed())
    job = one.start_kind("chatter", {"lines": 5})
    one.open_log(job)
    one.wait(lambda d: len(one.log_lines()) == 10, message="the log did not fill")
    # A second tab, opened while the script waits: what was written before comes from the kept log.
    late = Dashboard(browser(), jobs_server.url).open()
    late.wait(lambda d: late.has_row(job) and late.job_state(job) == "running")
    late.open_log(job)
    late.wait(lambda d: len(late.log_lines()) == 10, message="the earlier lines were not loaded")
    assert late.log_lines() == one.log_lines()
    jobs_server.chatter_release()
    for page in (one, late):
        page.wait(lambda d, p=page: p.by_id("log-exit").get_attribute("data-code") == "0", message="no exit status")
        page.wait(lambda d, p=page: len(p.log_lines()) == 10 + 40 + 1, message="the new lines did not follow")
    assert late.log_lines() == one.log_lines(), "the same lines in the same order, none twice"
    assert late.log_lines()[-2:] == ["hello after 40", "disk full"]
    assert not late.by_id("log-older").is_enabled() and late.by_id("log-older").text == "No older lines"
    assert_no_console_errors(one, late)


def test_log_paging_joins_older_lines_to_the_streamed_ones(jobs_server, browser):
    """The client's log buffer in isolation (a fresh Herald.LogBook in the page): page replies, as the protocol
    describes them, put older lines in front of the streamed ones without a gap or a duplicate."""
    page = Dashboard(browser(), jobs_server.url).open()
    result = page.js(
        """
        const lines = (from, to) => Array.from({ length: to - from }, (_, i) => ({ stream: (from + i) % 3 ? 'stdout' : 'stderr', text: 'line ' + (from + i) }));
        const book = new Herald.LogBook();
        // A tab that opened late: it streamed lines 1000..1049 of a job whose log holds 1050 lines by now.
        book.applyEvent({ type: 'log', job: 'j-late', first: 1000, lines: lines(1000, 1050) });
        const buffer = book.get('j-late');
        const steps = [];
        let range = buffer.olderRange(200);
        steps.push(range);
        // The first ask cannot know where it is: the reply's first and total tell; 0..199 do not adjoin 1000.
        steps.push(buffer.applyPage(range.offset, lines(range.offset, range.offset + range.limit), 1050, 0));
        range = buffer.olderRange(200);
        steps.push(range);
        // More lines streamed meanwhile: the reply counts them in its total.
        book.applyEvent({ type: 'log', job: 'j-late', first: 1050, lines: lines(1050, 1060) });
        steps.push(buffer.applyPage(range.offset, lines(range.offset, range.offset + range.limit), 1060, 0));
        range = buffer.olderRange(200);
        steps.push(range);
        const texts = buffer.lines.map((l) => l.text);
        // A job seen from its start has nothing older to ask for.
        book.sawCreated('j-new');
        book.applyEvent({ type: 'log', job: 'j-new', first: 0, lines: lines(0, 5), skipped: 7 });
        const fresh = book.get('j-new');
        // Lines a log event skipped are in the kept log: the next event's first counts them.
        book.applyEvent({ type: 'log', job: 'j-flood', first: 500, lines: lines(500, 510), skipped: 90 });
        book.applyEvent({ type: 'log', job: 'j-flood', first: 600, lines: lines(600, 610) });
        const flood = book.get('j-flood');
        const floodOutcome = flood.applyPage(0, lines(0, 200), 610, 0);
        const floodRange = flood.olderRange(200);
        // The seam: a tab opens a running job's log before any event reached it. Its page holds lines
        // 0..119, of which 100..119 were batched into an event still on its way; 300 older lines fell off
        // the front meanwhile (first 300).
        const seam = book.get('j-seam');
        const seamSteps = [seam.applyPage(0, lines(300, 420), 120, 300)];
        book.applyEvent({ type: 'log', job: 'j-seam', first: 400, lines: lines(400, 430) });
        // And the other way: an event first, then a page that overlaps it.
        book.applyEvent({ type: 'log', job: 'j-other', first: 50, lines: lines(50, 60) });
        const other = book.get('j-other');
        seamSteps.push(other.applyPage(0, lines(0, 60), 60, 0));
        return { steps, first: texts[0], last: texts[texts.length - 1], count: texts.length, floodOutcome, floodRange,
                 contiguous: texts.every((t, i) => t === 'line ' + (800 + i)), streams: buffer.lines.slice(0, 3).map((l) => l.stream),
                 freshRange: fresh.olderRange(200), freshLines: fresh.lines.map((l) => l.stream), seamSteps,
                 seam: seam.lines.map((l) => l.text), other: other.lines.map((l) => l.text), seamStart: seam.start };
        """
    )
    assert result["steps"] == [{"offset": 0, "limit": 200}, "calibrated", {"offset": 800, "limit": 200}, "prepended",
                               {"offset": 600, "limit": 200}]
    assert (result["first"], result["last"], result["count"]) == ("line 800", "line 1059", 260)
    assert result["contiguous"] and result["streams"] == ["stdout", "stderr", "stdout"]  # line 801 is a stderr line
    assert result["freshRange"] is None
    assert result["floodOutcome"] == "calibrated" and result["floodRange"] == {"offset": 300, "limit": 200}
    assert result["freshLines"] == ["stderr", "stdout", "stdout", "stderr", "stdout", "note"], "a note says lines were skipped"
    assert result["seamSteps"] == ["prepended", "prepended"]
    assert result["seam"] == [f"line {i}" for i in range(300, 430)], "the lines the page and the event both hold, once"
    assert result["seamStart"] == 0
    assert result["other"] == [f"line {i}" for i in range(0, 60)]
    assert_no_console_errors(page)


def test_forms_and_log_fit_a_375_pixel_window(jobs_server, browser):
    driver = browser()
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 375, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    page = Dashboard(driver, jobs_server.url).open()
    page.wait(lambda d: page.by_id("kinds-section").is_displayed())
    job = page.start_kind("chatter", {"lines": 3, "label": "averyveryverylonglabelx"[:20]})
    page.open_log(job)
    page.wait(lambda d: len(page.log_lines()) == 6)
    jobs_server.chatter_release()
    page.wait(lambda d: page.by_id("log-exit").get_attribute("data-code") == "0")
    widths = page.js("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"horizontal scroll at 375 px: {widths}"
    too_wide = page.js(
        """return Array.from(document.querySelectorAll('#kinds-section *, #log-section *'))
             .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
             .map((el) => el.tagName + '#' + el.id + '.' + el.className).slice(0, 10);"""
    )
    assert too_wide == [], too_wide
    assert_no_console_errors(page)


def test_an_open_log_is_loaded_again_after_the_server_restarts(jobs_server, browser):
    page = Dashboard(browser(), jobs_server.url).open()
    page.wait(lambda d: page.by_id("kinds-section").is_displayed())
    jobs_server.chatter_release()  # the script runs straight through
    job = page.start_kind("chatter", {"lines": 3})
    page.wait(lambda d: page.job_state(job) == "succeeded")
    page.open_log(job)
    expected = [f"hello out {i} (quick)" for i in range(1, 4)]
    page.wait(lambda d: len(page.log_lines()) == 3 + 3 + 40 + 1, message="the log did not fill")
    lines = page.log_lines()
    assert [line for line in lines if "out" in line] == expected
    epoch = page.js("return Herald.debug.store.epoch")
    jobs_server.restart()
    page.wait(lambda d: page.js("return Herald.debug.store.epoch") != epoch, 60, "no snapshot from the restarted server")
    page.wait_live()
    # The snapshot may have holes to fill: the lines come again from the log the server kept on disk.
    page.wait(lambda d: page.log_lines() == lines, message="the log was not loaded again after the restart")
    assert page.by_id("log-section").get_attribute("data-job-id") == job
    assert page.by_id("log-exit").get_attribute("data-code") == "0"
    assert_no_console_errors(page, allow=CONNECTION_NOISE)
