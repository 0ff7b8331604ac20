"""Job history over REST against the real binary: `GET /api/jobs?state=&kind=&before=&limit=` pages
jobs in memory and archived, newest first, filtered, across a restart; bad parameters are 400."""

import urllib.parse

from testkit import Herald, wait_for

TERMINAL = {"succeeded", "failed", "cancelled", "interrupted"}


def page(herald, **params):
    status, body = herald.json("GET", "/api/jobs?" + urllib.parse.urlencode(params))
    assert status == 200, body
    assert set(body) == {"jobs", "next"}, body
    return body


def every_page(herald, **params):
    """Follows `next` to the end; returns the pages."""
    pages = [page(herald, **params)]
    while pages[-1]["next"] is not None:
        assert len(pages) < 1000
        pages.append(page(herald, **params, before=pages[-1]["next"]))
    return pages


def ids(pages):
    return [job["id"] for p in pages for job in p["jobs"]]


def run_jobs(herald):
    """Five sorts of small distinct counts and two fetches, one after another; returns them as they ended."""
    started = []
    for body in [{"kind": "sort", "params": {"count": 1000 + n}} for n in range(5)] + [{"kind": "fetch"}] * 2:
        status, job = herald.json("POST", "/api/jobs", body)
        assert status == 202, job
        started.append(job["id"])
        wait_for(lambda: herald.json("GET", f"/api/jobs?limit=1&kind={job['kind']}")[1]["jobs"][0]["state"] in TERMINAL,
                 what=f"{job['kind']} {job['id']} to end")
    return started


def test_history_pages_filters_and_restart(herald_factory):
    # Two finished jobs stay in memory; the others are archived, and pages cover both.
    herald = herald_factory("--recent-jobs", "2", "--history-jobs", "100")
    started = run_jobs(herald)
    newest_first = list(reversed(started))

    pages = every_page(herald, limit=2)
    assert ids(pages) == newest_first
    assert [len(p["jobs"]) for p in pages] == [2, 2, 2, 1]
    assert all(isinstance(p["next"], str) for p in pages[:-1]) and pages[-1]["next"] is None
    jobs = [job for p in pages for job in p["jobs"]]
    created = [(job["createdAt"], job["id"]) for job in jobs]
    assert created == sorted(created, reverse=True), "newest first by createdAt, ties by id"

    # The objects are the snapshot's: the two in memory are the same as GET /api/jobs lists them.
    status, listing = herald.json("GET", "/api/jobs")
    assert status == 200 and set(listing) == {"seq", "epoch", "jobs"}, "without the parameters the answer is as before"
    assert [job["id"] for job in listing["jobs"]] == started[-2:]
    assert {job["id"]: job for job in jobs if job["id"] in started[-2:]} == {job["id"]: job for job in listing["jobs"]}
    archived = next(job for job in jobs if job["id"] == started[0])
    assert archived["state"] == "succeeded" and archived["summary"]["count"] == 1000
    assert herald.json("GET", f"/api/jobs/{started[0]}") == (200, archived), "an archived job is read by id as it is listed"
    status, gone = herald.json("GET", f"/api/jobs/{started[0]}/results?limit=5")
    assert status == 410 and gone["code"] == "gone" and "archived" in gone["message"], gone

    assert ids(every_page(herald, kind="fetch")) == newest_first[:2]
    assert ids(every_page(herald, kind="sort,fetch", limit=3)) == newest_first
    assert ids(every_page(herald, kind="sort", state="succeeded", limit=2)) == newest_first[2:]
    assert ids(every_page(herald, state="failed,cancelled")) == []
    assert page(herald, kind="search") == {"jobs": [], "next": None}
    assert ids(every_page(herald, before=pages[0]["next"], limit=500)) == newest_first[2:], "strictly older than the cursor"
    assert page(herald, state="", kind="")["jobs"][0]["id"] == newest_first[0], "an empty value is no filter"

    # After a restart the same jobs page the same way.
    herald.stop()
    again = Herald("--recent-jobs", "2", "--history-jobs", "100", root=herald.root)
    try:
        assert [job for p in every_page(again, limit=3) for job in p["jobs"]] == jobs
        assert ids(every_page(again, kind="fetch", limit=1)) == newest_first[:2]
    finally:
        again.stop()


def test_history_refuses_bad_parameters(herald):
    cases = {
        "limit=0": "limit: must be an integer from 1 to 500",
        "limit=501": "limit: must be an integer from 1 to 500",
        "limit=ten": "limit: must be an integer from 1 to 500",
        "state=done": 'state: "done" is not a job state',
        "state=succeeded,": 'state: "" is not a job state',
        "kind=sort,,fetch": 'kind: "" is not a kind name',
        "kind=a%20b": 'kind: "a b" is not a kind name',
        "before=yesterday": 'before: "yesterday" is not a cursor',
        "before=12.j-x%2F..": 'before: "12.j-x/.." is not a cursor',
    }
    for query, message in cases.items():
        status, body = herald.json("GET", "/api/jobs?" + query)
        assert status == 400, (query, body)
        assert body["code"] == "bad_request" and body["message"].startswith(message), (query, body)
    status, body = herald.json("GET", "/api/jobs?limit=5")
    assert status == 200 and body == {"jobs": [], "next": None}
