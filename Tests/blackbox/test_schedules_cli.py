"""Schedules from the outside: `herald schedules next`, and the jobs file's "schedules" as
`herald serve --jobs` and `herald jobs check` read them (docs/schedules.md)."""

import json
import subprocess
from datetime import datetime

from testkit import herald_binary


def herald(*args, stdin=None):
    return subprocess.run([str(herald_binary()), *args], input=stdin, capture_output=True, text=True, timeout=60)


KINDS = {"backup": {"command": ["sh", "-c", "true"], "params": {"src": {"type": "string", "required": True}}}}


def test_next_prints_local_times_with_offsets_and_epoch_seconds():
    after = int(datetime.fromisoformat("2026-03-28T12:00:00+01:00").timestamp())
    result = herald("schedules", "next", "30 2 * * *", "--timezone", "Europe/Berlin", "--after", str(after), "--count", "3")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [
        "2026-03-29T03:00:00+02:00",
        "2026-03-30T02:30:00+02:00",
        "2026-03-31T02:30:00+02:00",
    ]
    for line in lines:
        local, epoch = line.split()
        assert int(datetime.fromisoformat(local).timestamp()) == int(epoch), line


def test_next_without_after_starts_now_and_knows_every():
    before = int(datetime.now().timestamp())
    result = herald("schedules", "next", "every 10m")
    assert result.returncode == 0, result.stderr
    epoch = int(result.stdout.split()[1])
    assert epoch % 600 == 0 and before < epoch <= before + 601, (before, result.stdout)


def test_bad_expressions_and_usage_exit_2_with_one_line():
    cases = [
        (["next", "61 * * * *"], 'herald: minute "61": 61 is out of range (0-59)'),
        (["next", "0 0 * * *", "--timezone", "Mars/Olympus"], 'herald: timezone "Mars/Olympus": not a time zone'),
        (["next", "every 10x"], 'herald: every "10x": "x" is not a unit'),
    ]
    for args, expected in cases:
        result = herald("schedules", *args)
        assert result.returncode == 2 and result.stdout == "", (args, result)
        assert result.stderr.splitlines() == [result.stderr.splitlines()[0]] and result.stderr.startswith(expected), (args, result.stderr)
    for args in (["lst"], [], ["next"], ["next", "* * * * *", "--count", "0"], ["next", "--batch", "x"], ["pause"],
                 ["run", "a", "ws://127.0.0.1:1/ws", "extra"], ["list", "--colour"]):
        result = herald("schedules", *args)
        assert result.returncode == 2 and result.stdout == "", (args, result)
        assert "Usage: herald schedules next" in result.stderr and "herald schedules list" in result.stderr, (args, result.stderr)
    unknown = herald("schedules", "lst").stderr
    assert unknown.startswith('herald: unknown schedules command "lst"; the commands are next, list, pause, resume, run\n'), unknown
    assert "pause needs a schedule's NAME" in herald("schedules", "pause").stderr
    for args in (["--help"], ["list", "--help"], ["run", "--help"]):
        text = herald("schedules", *args).stdout
        assert "Usage: herald schedules next" in text and "herald schedules pause|resume|run NAME" in text, (args, text)


def test_batch_answers_each_line_in_order():
    lines = "0 * * * *\tUTC\t0\nbad\tUTC\t0\n@daily\tAustralia/Lord_Howe\t0\n0 0 30 2 *\tUTC\t0\n"
    result = herald("schedules", "next", "--batch", stdin=lines)
    assert result.returncode == 0, result.stderr
    answers = result.stdout.splitlines()
    assert answers[0] == "3600"
    assert answers[1].startswith('error: expression "bad": must have 5 fields')
    assert answers[2] == str(int(datetime.fromisoformat("1970-01-01T00:00:00+10:00").timestamp()) + 86400)
    assert answers[3].startswith("error: expression") and "names no date" in answers[3]


def test_jobs_check_lists_schedules(tmp_path):
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"kinds": KINDS, "schedules": {
        "nightly": {"kind": "backup", "params": {"src": "/srv"}, "cron": "30 2 * * *", "timezone": "Europe/Berlin"},
        "often": {"kind": "backup", "params": {"src": "/srv"}, "every": "10m", "paused": True}}}))
    result = herald("jobs", "check", str(jobs))
    assert result.returncode == 0, result.stderr
    assert "1 kind, 2 schedules, all usable" in result.stdout
    assert "schedule nightly: backup 30 2 * * * (Europe/Berlin); next 20" in result.stdout
    assert "schedule often: backup every 10m; paused" in result.stdout


def test_a_bad_schedule_stops_serve_and_check_with_status_2_and_one_line(tmp_path):
    cases = [
        ({"kind": "backup", "params": {"src": "/srv"}, "cron": "30 25 * * *"}, '"cron": hour "25": 25 is out of range (0-23)'),
        ({"kind": "backup", "params": {"src": "/srv"}, "cron": "0 * * * *", "timezone": "Europe/Atlantis"},
         '"timezone" "Europe/Atlantis" is not a time zone'),
        ({"kind": "restore", "cron": "0 * * * *"}, '"kind" "restore" is not a kind of this file (backup)'),
        ({"kind": "backup", "cron": "0 * * * *"}, '"params" refused by kind "backup": src: required'),
        ({"kind": "backup", "params": {"src": "/srv"}, "every": "1h", "colour": "red"}, 'unknown key "colour"'),
    ]
    for declaration, expected in cases:
        jobs = tmp_path / "jobs.json"
        jobs.write_text(json.dumps({"kinds": KINDS, "schedules": {"nightly": declaration}}))
        for argv in (["serve", "--port", "0", "--jobs", str(jobs)], ["jobs", "check", str(jobs)]):
            result = herald(*argv)
            assert result.returncode == 2, (argv, result.stdout, result.stderr)
            assert result.stderr.strip().splitlines()[0].startswith(f'herald: {jobs}: schedule "nightly": {expected}'), (argv, result.stderr)
            assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == "", (argv, result)
