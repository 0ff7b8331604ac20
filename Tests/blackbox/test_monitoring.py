"""deploy/grafana and deploy/prometheus against a real herald: the dashboard keeps its schema and
names only metrics and labels that /metrics exposes; promtool accepts the alert rules, their unit
tests (deploy/prometheus/alerts_test.yml), the dashboard's queries and a real /metrics scrape.

promtool comes with Debian's `prometheus` package (`make deps-test` installs it). Its postinst
starts a Prometheus daemon where services may start (not in a container whose policy-rc.d forbids
it); nothing here talks to one, and herald listens on a port of its own.
"""

import json
import re
import shutil
import subprocess

import jsonschema
import pytest
import yaml

from testkit import REPO_ROOT, wait_for

DASHBOARD = REPO_ROOT / "deploy" / "grafana" / "herald.json"
SCHEMA = REPO_ROOT / "deploy" / "grafana" / "dashboard.schema.json"
ALERTS = REPO_ROOT / "deploy" / "prometheus" / "alerts.yml"
ALERT_TESTS = REPO_ROOT / "deploy" / "prometheus" / "alerts_test.yml"
PROMTOOL = shutil.which("promtool")
WEBSOCAT = shutil.which("websocat")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool is not installed (make deps-test installs it)")

# PromQL words that are neither functions (followed by "(") nor metric names.
KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan"}
# The families the operations issue asks the dashboard to show.
REQUIRED_ON_DASHBOARD = {
    "herald_connections_open", "herald_event_seq", "herald_frames_sent_total", "herald_bytes_sent_total",
    "herald_delivery_latency_seconds_bucket", "herald_resyncs_total", "herald_slow_client_closes_total",
    "herald_jobs_running", "herald_jobs_finished_total", "herald_job_duration_seconds_bucket",
}


def dashboard_exprs():
    def walk(panels):
        for panel in panels:
            yield from (target["expr"] for target in panel.get("targets", []))
            yield from walk(panel.get("panels", []))
    dashboard = json.loads(DASHBOARD.read_text())
    return list(walk(dashboard["panels"]))


def alert_rules():
    return [rule for group in yaml.safe_load(ALERTS.read_text())["groups"] for rule in group["rules"]]


def grafana_to_promql(expr):
    """Replaces Grafana's variables with values, so promtool can parse the query."""
    return expr.replace("$__rate_interval", "5m").replace("$instance", ".+")


def metric_names(expr):
    """The metric names a PromQL expression reads (a small lexer: enough for these files)."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}", " ", expr)
    expr = re.sub(r"\[[^\]]*\]", " ", expr)
    expr = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    names = set()
    for match in re.finditer(r"(?<![\w.])[A-Za-z_:][A-Za-z0-9_:]*", expr):
        if expr[match.end():].lstrip().startswith("(") or match.group().lower() in KEYWORDS:
            continue  # a function or an aggregation, or a keyword
        names.add(match.group())
    return names


def label_names(expr):
    """The labels an expression groups by or matches on."""
    labels = set()
    for clause in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", expr):
        labels |= {label.strip() for label in clause.split(",") if label.strip()}
    for matchers in re.findall(r"\{([^}]*)\}", re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)):
        labels |= set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)", matchers))
    return labels


def test_metric_names_lexer():
    expr = 'histogram_quantile(0.99, sum by (instance, le) (rate(x_bucket{a="b{c}"}[$__rate_interval]))) > 1 and sum(y) >= 5'
    assert metric_names(expr) == {"x_bucket", "y"}
    assert label_names(expr) == {"instance", "le", "a"}



@pytest.fixture
def cluster_scrape(herald_factory, redis_factory):
    """/metrics of a cluster node (docs/scaling.md): its own families besides a single server's."""
    node = herald_factory("--redis", redis_factory().url, "--node", "n1")
    status, text, _ = node.request("GET", "/metrics")
    assert status == 200 and 'herald_cluster_degraded{node="n1"} 0' in text, text
    return text


@pytest.fixture
def scrape(herald):
    """A real /metrics after a WebSocket client sent a command and watched a search to its end, so the
    labelled families (commands, jobs finished) have samples and delivery latency has observations."""
    if WEBSOCAT is None:
        pytest.skip("websocat is installed by `make deps-test`")
    script = '{"type":"ping"}\n{"type":"start","kind":"search","params":{"query":"needle"}}\n'
    subprocess.run(["bash", "-c", f'(printf %s "$0"; sleep 2) | {WEBSOCAT} -t {herald.ws} >/dev/null', script], timeout=30, check=True)
    wait_for(lambda: [job["state"] for job in herald.json("GET", "/api/jobs")[1]["jobs"]] == ["succeeded"], what="the search")
    status, text, headers = herald.request("GET", "/metrics")
    content_type = {key.lower(): value for key, value in headers.items()}["content-type"]
    assert status == 200 and content_type.startswith("text/plain"), content_type
    return text


def exposed(text):
    """Metric names with a sample, and every label name, in an exposition."""
    names, labels = set(), set()
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s", line)
        assert match, line
        names.add(match.group(1))
        labels |= set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)=\"", match.group(3) or ""))
    return names, labels


def test_dashboard_matches_its_schema():
    dashboard = json.loads(DASHBOARD.read_text())
    jsonschema.validate(dashboard, json.loads(SCHEMA.read_text()))
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids)), "panel ids are unique"


def test_dashboard_and_alerts_use_only_what_metrics_exposes(scrape, cluster_scrape):
    names, labels = exposed(scrape)
    cluster_names, cluster_labels = exposed(cluster_scrape)
    assert {"herald_cluster_degraded", "herald_cluster_stream_lag_seconds", "herald_event_seq"} <= cluster_names
    names |= cluster_names
    labels |= cluster_labels
    assert "herald_commands_total" in names and "herald_jobs_finished_total" in names
    count = next(line for line in scrape.splitlines() if line.startswith("herald_delivery_latency_seconds_count "))
    assert int(count.split()[1]) > 0, "the client's events were observed as delivery latency"
    used = set()
    for expr in dashboard_exprs():
        found = metric_names(expr)
        assert found, f"no metric in {expr!r}"
        assert found <= names, f"{expr!r} reads {sorted(found - names)}, which /metrics does not expose"
        assert label_names(expr) <= labels | {"instance", "job"}, expr
        used |= found
    assert REQUIRED_ON_DASHBOARD <= used, f"the dashboard lacks {sorted(REQUIRED_ON_DASHBOARD - used)}"
    for rule in alert_rules():
        # `up` is Prometheus's own series for each scrape target.
        assert metric_names(rule["expr"]) <= names | {"up"}, rule["alert"]
        assert label_names(rule["expr"]) <= labels | {"instance", "job"}, rule["alert"]


def test_alerts_have_what_the_runbook_needs():
    rules = alert_rules()
    assert [rule["alert"] for rule in rules] == ["HeraldDown", "HeraldResyncStorm", "HeraldDeliveryLatencyHigh", "HeraldJobFailureRate",
                                                 "HeraldRedisDegraded", "HeraldStorageFailing", "HeraldWebhookGivenUp"]
    operations = (REPO_ROOT / "docs" / "operations.md").read_text()
    for rule in rules:
        assert rule["labels"]["severity"] in ("critical", "warning"), rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], rule["alert"]
        assert rule["alert"] in operations, f"docs/operations.md does not say what {rule['alert']} means"


@needs_promtool
def test_promtool_checks_the_alert_rules():
    result = subprocess.run([PROMTOOL, "check", "rules", str(ALERTS)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "7 rules found" in result.stdout


@needs_promtool
def test_promtool_unit_tests_of_the_alerts():
    # Each alert fires on series made to cross its threshold, and not on series that stay below it.
    result = subprocess.run([PROMTOOL, "test", "rules", str(ALERT_TESTS)], capture_output=True, text=True, timeout=60,
                            cwd=ALERT_TESTS.parent)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_promtool_parses_the_dashboard_queries(tmp_path):
    # As recording rules, promtool parses every query the dashboard sends.
    lines = ["groups:", "  - name: dashboard", "    rules:"]
    for index, expr in enumerate(dashboard_exprs()):
        lines += [f"      - record: dashboard:query{index}", f"        expr: {json.dumps(grafana_to_promql(expr))}"]
    rules = tmp_path / "dashboard-rules.yml"
    rules.write_text("\n".join(lines) + "\n")
    result = subprocess.run([PROMTOOL, "check", "rules", str(rules)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_promtool_lints_a_real_scrape(scrape):
    result = subprocess.run([PROMTOOL, "check", "metrics"], input=scrape, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def sort_and_wait(herald, count):
    status, job = herald.json("POST", "/api/jobs", {"kind": "sort", "params": {"count": count}})
    assert status == 202, job

    def done():
        job_now = herald.json("GET", f"/api/jobs/{job['id']}")[1]
        return job_now if job_now["state"] in ("succeeded", "failed", "cancelled") else None
    finished = wait_for(done, what=f"the sort of {count}")
    assert finished["state"] == "succeeded", finished
    return finished


def samples(text, prefix):
    return {line.split()[0]: float(line.split()[1]) for line in text.splitlines() if line.startswith(prefix)}


def test_sort_cache_keeps_the_bound_and_metrics_say_so(herald_factory):
    """Sorts of four counts under --sort-cache-bytes 45000 (a file holds 24 + 4 x count bytes): the
    data folder stays within the bound, least recently used out first (a page of the second sort,
    read before the fourth, keeps its file over the third sort's), and /metrics counts the files."""
    herald = herald_factory("--sort-cache-bytes", "45000")
    jobs = {count: sort_and_wait(herald, count) for count in (1000, 2000, 3000)}
    status, page = herald.json("GET", f"/api/jobs/{jobs[2000]['id']}/results?limit=3")
    assert status == 200 and page["values"][0] == jobs[2000]["summary"]["min"], page
    jobs[4000] = sort_and_wait(herald, 4000)

    files = {path.name: path.stat().st_size for path in herald.data.glob("*.bin")}
    assert set(files) == {"sorted-2000.bin", "numbers-4000.bin", "sorted-4000.bin"}, files
    assert sum(files.values()) <= 45000
    status, text, _ = herald.request("GET", "/metrics")
    assert status == 200
    assert samples(text, "herald_sort_cache_") == {
        "herald_sort_cache_bytes": sum(files.values()), "herald_sort_cache_files": 3,
        "herald_sort_cache_limit_bytes": 45000, "herald_sort_cache_evictions_total": 5,
    }, text
    for count in (1000, 3000):
        status, body = herald.json("GET", f"/api/jobs/{jobs[count]['id']}/results")
        assert status == 410 and body["code"] == "gone", body
        assert body["message"] == f"the sorted values (sorted-{count}.bin) are gone; run the sort again", body
    if PROMTOOL is not None:
        result = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr

    # Files of an earlier run count from the start, and a smaller bound trims them oldest written first.
    herald.stop()
    (herald.data / "sorted-2000.bin").touch()
    restarted = herald_factory("--data-dir", str(herald.data), "--sort-cache-bytes", "25000")
    assert {path.name for path in herald.data.glob("*.bin")} == {"sorted-2000.bin", "sorted-4000.bin"}
    status, text, _ = restarted.request("GET", "/metrics")
    assert samples(text, "herald_sort_cache_")["herald_sort_cache_bytes"] == 8024 + 16024, text
