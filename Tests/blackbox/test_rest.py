"""The HTTP API, health and metrics against the real binary: each endpoint, success and errors."""

import re

from testkit import wait_for


def finished(herald, job_id):
    status, job = herald.json("GET", f"/api/jobs/{job_id}")
    assert status == 200
    return job if job["state"] in ("succeeded", "failed", "cancelled") else None


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


def test_jobs_lifecycle_over_rest(herald):
    status, job = herald.json("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}})
    assert status == 202 and job["kind"] == "search" and job["state"] in ("queued", "running")
    done = wait_for(lambda: finished(herald, job["id"]), what="search to finish")
    assert done["state"] == "succeeded"
    assert done["summary"]["matches"] == 20 * 50
    status, page = herald.json("GET", f"/api/jobs/{job['id']}/results?offset=0&limit=3")
    assert status == 200 and page["total"] == 1000 and len(page["values"]) == 3
    assert page["values"][0]["text"] == "needle here"
    status, listing = herald.json("GET", "/api/jobs")
    assert status == 200 and [j["id"] for j in listing["jobs"]] == [job["id"]]


def test_sort_pages_over_rest(herald):
    status, job = herald.json("POST", "/api/jobs", {"kind": "sort", "params": {"count": 5000}})
    assert status == 202
    done = wait_for(lambda: finished(herald, job["id"]), what="sort")
    assert done["summary"]["count"] == 5000 and done["summary"]["created"] is True
    status, first = herald.json("GET", f"/api/jobs/{job['id']}/results?offset=0&limit=100")
    status, second = herald.json("GET", f"/api/jobs/{job['id']}/results?offset=100&limit=100")
    values = first["values"] + second["values"]
    assert values == sorted(values) and values[0] == done["summary"]["min"]


def test_errors_have_codes_and_statuses(herald):
    assert herald.json("POST", "/api/jobs", b"{nope")[0] == 400
    status, body = herald.json("POST", "/api/jobs", {"kind": "search", "params": {}})
    assert status == 400 and body["code"] == "bad_request" and body["message"].startswith("query")
    status, body = herald.json("POST", "/api/jobs", {"kind": "teleport"})
    assert status == 400 and body["code"] == "unknown_kind"
    status, body = herald.json("GET", "/api/jobs/j-nothing")
    assert status == 404 and body["code"] == "not_found"
    status, body = herald.json("POST", "/api/jobs/j-nothing/cancel")
    assert status == 404
    status, body = herald.json("POST", "/api/jobs", b"x" * 70000)
    assert status == 413 and body["code"] == "too_large"
    status, body = herald.json("GET", "/api/jobs/j-x/results?limit=0")
    assert status == 400
    status, body = herald.json("DELETE", "/api/jobs")
    assert status == 405


def test_busy_is_409_and_cancel_is_202(herald_factory):
    herald = herald_factory("--max-results", "5")
    big = herald.corpus / "big.txt"
    big.write_text(("n" * 200 + "\n") * 200000)
    status, first = herald.json("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}})
    assert status == 202
    status, second = herald.json("POST", "/api/jobs", {"kind": "search", "params": {"query": "other"}})
    assert status == 409 and second["code"] == "busy"
    status, cancelled = herald.json("POST", f"/api/jobs/{first['id']}/cancel")
    assert status == 202
    done = wait_for(lambda: finished(herald, first["id"]), what="cancel")
    assert done["state"] == "cancelled" and done["error"] == "cancelled by request"
    status, again = herald.json("POST", f"/api/jobs/{first['id']}/cancel")
    assert status == 409 and again["code"] == "not_cancellable"


def test_every_job_history_lists_is_readable_by_id(herald_factory):
    herald = herald_factory("--recent-jobs", "1", "--kept-results-bytes", "1")
    ids = []
    for query in ("needle", "alpha", "omega"):
        status, job = herald.json("POST", "/api/jobs", {"kind": "search", "params": {"query": query}})
        assert status == 202, job
        wait_for(lambda: finished(herald, job["id"]), what=f"search {query}")
        ids.append(job["id"])
    status, history = herald.json("GET", "/api/jobs?limit=200")
    assert status == 200 and set(ids) <= {j["id"] for j in history["jobs"]}
    for job_id in ids:
        status, job = herald.json("GET", f"/api/jobs/{job_id}")
        assert status == 200 and job["id"] == job_id and job["state"] == "succeeded", (job_id, job)
    # The first two left memory: their record stays readable, their matches are said to be gone.
    for job_id in ids[:2]:
        status, page = herald.json("GET", f"/api/jobs/{job_id}/results?offset=0&limit=5")
        assert status == 410 and page["code"] == "gone" and job_id in page["message"], page
    status, page = herald.json("GET", f"/api/jobs/{ids[2]}/results?offset=0&limit=5")
    assert status == 200 and page["total"] == 1000, "the newest keeps its matches, whatever the byte bound"
    status, body = herald.json("GET", "/api/jobs/j-neverseen")
    assert status == 404 and body["code"] == "not_found"


def test_token_guards_mutations(herald_factory):
    herald = herald_factory("--token", "s3cret")
    status, body = herald.json("POST", "/api/jobs", {"kind": "fetch"})
    assert status == 401 and body["code"] == "unauthorized"
    assert herald.json("GET", "/api/jobs")[0] == 200, "reading stays open"
    status, job = herald.json("POST", "/api/jobs", {"kind": "fetch"}, {"Authorization": "Bearer s3cret"})
    assert status == 202


def test_news_healthz_and_metrics(herald):
    status, news = herald.json("GET", "/api/news")
    assert status == 200 and news == {"revision": 0, "items": []}
    status, job = herald.json("POST", "/api/jobs", {"kind": "fetch"})
    wait_for(lambda: finished(herald, job["id"]), what="fetch")
    status, news = herald.json("GET", "/api/news")
    assert news["revision"] == 1 and 1 <= len(news["items"]) <= 3
    status, health = herald.json("GET", "/healthz")
    assert status == 200 and health["status"] == "ok" and health["jobsRunning"] == 0
    status, text, headers = herald.request("GET", "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    sample = re.compile(r'^[a-z_:][a-z0-9_:]*(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9.e+Inf]+$')
    for line in text.splitlines():
        assert line.startswith("# HELP ") or line.startswith("# TYPE ") or sample.match(line), line
    assert metric(text, 'herald_jobs_finished_total{kind="fetch",state="succeeded"}') == 1
    before = metric(text, "herald_http_requests_total")
    _, text, _ = herald.request("GET", "/metrics")
    assert metric(text, "herald_http_requests_total") > before


def test_dashboard_is_served_with_a_strict_policy(herald):
    status, text, headers = herald.request("GET", "/")
    assert status == 200 and "<html" in text.lower()
    assert "script-src 'self'" in headers["content-security-policy"]
    assert herald.request("GET", "/../../etc/passwd")[0] == 404
