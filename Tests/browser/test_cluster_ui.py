"""A cluster in the dashboard (docs/scaling.md): a dashboard on one node shows the jobs another node
runs, live, each row naming its node. Two real `herald serve --redis` nodes on one real redis-server,
in headless Chromium."""

import json
import urllib.request

from testkit.redis_server import RedisServer

from .dashboard_page import Dashboard
from .test_dashboard import assert_no_console_errors


def test_a_dashboard_on_one_node_shows_another_nodes_jobs_with_their_node(server_factory, browser, tmp_path):
    redis = RedisServer(tmp_path / "redis")
    try:
        first = server_factory("--redis", redis.url, "--node", "n1", "--workers", "1")
        second = server_factory("--redis", redis.url, "--node", "n2", "--workers", "1")
        page = Dashboard(browser(), first.url).open()
        # Started on n2, where there is room: it runs there (unless n2 does not take it within its
        # 100 ms head start, on a busy machine), and n1's dashboard names the node that ran it.
        request = urllib.request.Request(second.url + "api/jobs", data=b'{"kind":"search","params":{"query":"needle"}}',
                                         method="POST")
        job = json.loads(urllib.request.urlopen(request, timeout=10).read())["id"]
        page.wait(lambda d: page.job_state(job) == "succeeded", message="n1's dashboard does not show n2's search")
        ran_on = json.loads(urllib.request.urlopen(first.url + f"api/jobs/{job}", timeout=10).read())["node"]
        place = f'[data-job-id="{job}"] .job-worker'
        page.wait(lambda d: page.find(place).text == f"on node {ran_on}",
                  message=f"the row does not name {ran_on}: {page.find(place).text!r}")
        assert_no_console_errors(page)
    finally:
        redis.stop()
