"""`herald start`, `herald cancel` and `herald watch` against the real server."""

import shutil
import subprocess
import time

import pytest

from testkit import herald_binary, wait_for


def herald_cli(*args, timeout=60):
    return subprocess.run([str(herald_binary()), *args], capture_output=True, text=True, timeout=timeout)


def test_start_wait_exit_codes(herald):
    ok = herald_cli("start", "sort", "--param", "count=2000", "--wait", herald.ws)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip().startswith("j-")
    assert "succeeded" in ok.stderr

    refused = herald_cli("start", "search", "--param", "query=", herald.ws)
    assert refused.returncode == 2 and "bad_request" in refused.stderr

    missing = herald_cli("start", "sort", "--after", "j-doesnotexist", herald.ws)
    assert missing.returncode == 2 and "unknown job" in missing.stderr

    # A sort whose data file cannot be written fails: exit code 1 (on a cluster, whichever node runs it).
    for node in (herald, *herald.peers):
        (node.data / "numbers-777.bin").mkdir(parents=True)
    failed = herald_cli("start", "sort", "--param", "count=777", "--wait", herald.ws)
    assert failed.returncode == 1, failed.stderr
    assert "failed" in failed.stderr


def test_start_wait_reports_failure_and_cancel(herald):
    big = herald.corpus / "big.txt"
    big.write_text(("n" * 200 + "\n") * 200000)
    follower = subprocess.Popen(
        [str(herald_binary()), "start", "search", "--param", "query=needle", "--wait", herald.ws],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    job_id = follower.stdout.readline().strip()
    assert job_id.startswith("j-")
    cancelled = herald_cli("cancel", job_id, herald.ws)
    assert cancelled.returncode == 0, cancelled.stderr
    assert follower.wait(timeout=60) == 3
    # A job after a cancelled one is cancelled too, naming it: exit code 3.
    dependent = herald_cli("start", "sort", "--after", job_id, "--wait", herald.ws)
    assert dependent.returncode == 3 and job_id in dependent.stderr
    again = herald_cli("cancel", job_id, herald.ws)
    assert again.returncode == 2 and "not_cancellable" in again.stderr


def test_bad_usage_exits_2_with_a_message():
    for args in (["start"], ["serve", "--port", "x"], ["serve", "--frobnicate"], ["serve", "--heap-trim-interval", "-1"], ["watch", "http//nope"]):
        result = herald_cli(*args)
        assert result.returncode == 2, args
        assert result.stderr.strip(), args
    for value in ("-1", "1G"):
        result = herald_cli("serve", "--sort-cache-bytes", value)
        assert result.stderr.strip().splitlines()[0].endswith(f'--sort-cache-bytes must be a whole number from 0 to {1 << 50}, not "{value}"'), result.stderr
    for value in ("0", "65", "two"):
        result = herald_cli("serve", "--search-threads", value)
        assert result.returncode == 2 and "--search-threads must be a whole number from 1 to 64" in result.stderr, result.stderr
    assert "--search-threads N" in herald_cli("serve", "--help").stdout
    result = herald_cli("serve", "--ping-after", "30", "--hangup-after", "30")
    assert result.returncode == 2 and "--ping-after must be less than --hangup-after (30 s)" in result.stderr, result.stderr
    for args in (["bogus", "--help"], ["srve"], ["wacth", "ws://127.0.0.1:1/ws"]):
        result = herald_cli(*args)
        assert result.returncode == 2 and result.stdout == "", (args, result.stdout)
        assert f'unknown command "{args[0]}"' in result.stderr and "serve, watch, start, cancel, jobs, logs, work, schedules" in result.stderr, result.stderr
    assert herald_cli("--version").stdout.startswith("herald ")
    for command in ("serve", "watch", "start", "cancel"):
        assert "Usage:" in herald_cli(command, "--help").stdout


def test_watch_piped_prints_a_line_per_event(herald):
    watcher = subprocess.Popen([str(herald_binary()), "watch", herald.ws], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = watcher.stdout.readline()
        assert first.startswith("snapshot epoch=")
        herald_cli("start", "sort", "--param", "count=3000", "--wait", herald.ws)
        lines = []
        while not any("succeeded" in line for line in lines):
            lines.append(watcher.stdout.readline())
        assert any(line.startswith("job ") and "queued" in line for line in lines)
        assert any(line.startswith("progress ") for line in lines)
    finally:
        watcher.terminate()
        assert watcher.wait(timeout=10) == 0, "Ctrl-C/TERM exits cleanly"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is installed by `make deps-test`")
def test_watch_in_a_terminal_redraws_in_place(herald):
    session = f"herald-{herald.port}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "30",
                    f"{herald_binary()} watch {herald.ws}"], check=True)
    try:
        def screen():
            return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
        wait_for(lambda: "live" in screen(), what="watch to connect")
        herald_cli("start", "sort", "--param", "count=3000", "--wait", herald.ws)
        text = wait_for(lambda: (lambda s: s if "succeeded" in s else None)(screen()), what="the job's final line")
        sort_lines = [line for line in text.splitlines() if " sort " in line]
        assert len(sort_lines) == 1, f"one line per job, redrawn in place:\n{text}"
        assert text.count("herald watch") == 1, "the header is drawn once"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
