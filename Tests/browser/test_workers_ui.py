"""Workers in the dashboard (docs/workers.md): the header lists connected workers live, a job's row names
the worker running it, and a job that nothing can run says "waiting for a worker". A real `herald serve`
and a real `herald work`, in headless Chromium."""

import json
import signal
import stat
import subprocess
import urllib.request
from pathlib import Path

from testkit import herald_binary
from .dashboard_page import Dashboard
from .test_dashboard import assert_no_console_errors

HOLD = r'''#!/bin/sh
echo '{"completed": 1, "total": 2, "message": "encoding"}'
while [ ! -f "{release}" ]; do sleep 0.05; done
echo '{"result": {"frames": 2}}'
'''


def test_the_header_lists_workers_and_rows_name_them_or_say_they_wait(server_factory, browser, tmp_path):
    release = tmp_path / "release"
    hold = tmp_path / "hold.sh"
    hold.write_text(HOLD.replace("{release}", str(release)))
    hold.chmod(hold.stat().st_mode | stat.S_IXUSR)
    params = {"name": {"type": "string", "default": "clip"}}
    server_jobs = tmp_path / "server.json"
    server_jobs.write_text(json.dumps({"kinds": {"encode": {"title": "Encode", "params": params}}}))
    worker_jobs = tmp_path / "worker.json"
    worker_jobs.write_text(json.dumps({"kinds": {"encode": {"title": "Encode", "command": [str(hold)], "params": params}}}))
    server = server_factory("--jobs", str(server_jobs))
    page = Dashboard(browser(), server.url).open()
    assert not page.by_id("workers").is_displayed(), "no worker yet: no workers in the header"

    request = urllib.request.Request(server.url + "api/jobs", data=b'{"kind":"encode"}', method="POST")
    job = json.loads(urllib.request.urlopen(request, timeout=10).read())["id"]
    message = f'[data-job-id="{job}"] .job-message'
    page.wait(lambda d: page.find(message).text == "waiting for a worker", message="the queued job does not say it waits")

    worker = subprocess.Popen([str(herald_binary()), "work", "--server", server.url, "--jobs", str(worker_jobs),
                               "--name", "gpu-1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        page.wait(lambda d: page.texts("#workers-list li") == ["gpu-1 · 1/1 busy"], message="the header does not show gpu-1 busy")
        page.wait(lambda d: page.find(f'[data-job-id="{job}"] .job-worker').text == "on gpu-1", message="the row does not name the worker")
        page.wait(lambda d: page.find(message).text == "encoding", message="the worker's progress message is not shown")
        release.write_text("go\n")
        page.wait(lambda d: page.job_state(job) == "succeeded", message="the job did not succeed")
        page.wait(lambda d: page.texts("#workers-list li") == ["gpu-1 · 0/1 busy"], message="the slot is not shown free")
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
    page.wait(lambda d: not page.by_id("workers").is_displayed(), message="a worker that left is still listed")
    assert_no_console_errors(page)
