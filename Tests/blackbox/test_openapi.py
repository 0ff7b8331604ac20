"""The REST contract (Public/openapi.json, served at /api/openapi.json) checked by an independent tool:
schemathesis generates requests for every operation from the document the running server serves, and
checks every answer: no 5xx, a documented status, the declared content type and headers, a body valid
against the schema, bad input refused with a 4xx, and no request slower than the timeout (a hang fails).
docs/api.md says what else checks the contract.

Three things libwebsockets' HTTP parser decides before Herald sees a request are left out of the
generated cases (docs/api.md, "What the contract does not cover"): a `%00` anywhere in the URL closes
the connection without an answer (schemathesis generates no NUL), a decoded CR or LF ends the path
(schemathesis_hooks.py leaves such path parameters out), and TRACE is answered 403 (so its
`unsupported_method` check is replaced here by the methods that reach the server: 405 with Allow).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from testkit import contract

ST = shutil.which("st")
pytestmark = pytest.mark.skipif(ST is None, reason="schemathesis is installed by `make deps-test`")
TOKEN = "openapi-test-token"
# Cases per operation: an operation whose parameters allow fewer distinct requests gets fewer. Generating
# them is most of the run's time (the server answers each in milliseconds).
EXAMPLES = 100
# A backstop only: a request that hangs fails by itself after --request-timeout. The run takes minutes on a
# busy two-core machine.
LONGEST_RUN = 1800
CHECKS = ",".join([
    "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_headers_conformance",
    "response_schema_conformance", "negative_data_rejection", "missing_required_header", "allow_header_conformance",
    "ignored_auth",
])
CONFIG = """
[generation]
allow-x00 = false
"""


def errors_reported(events: Path) -> str:
    """The errors schemathesis recorded (a request that timed out, a case it could not generate), for a
    failure's message: its console output names them but not always what they were."""
    if not events.exists():
        return ""
    errors = [line[:2000] for line in events.read_text(errors="replace").splitlines() if '"NonFatalError"' in line[:40]]
    return "".join(f"\n{error}" for error in errors[:8])


def test_the_served_document_is_the_checkouts(herald):
    status, body, headers = herald.request("GET", "/api/openapi.json")
    assert status == 200 and {name.lower(): value for name, value in headers.items()}["content-type"] == "application/json"
    served = json.loads(body)
    assert served == contract.OPENAPI
    assert served["info"]["version"] == herald.json("GET", "/healthz")[1]["version"], "the document's version is the server's"
    assert served["openapi"].startswith("3.1")


def test_a_method_an_operation_does_not_take_is_405_naming_those_it_does(herald):
    for path, item in contract.OPENAPI["paths"].items():
        concrete = path.replace("{id}", "j-nosuchjob")
        for method in {"PUT", "PATCH", "DELETE", "GET", "POST"} - {m.upper() for m in item}:
            status, body, headers = herald.request(method, concrete, b"" if method != "GET" else None)
            assert status == 405, f"{method} {concrete}: {status} {body}"
            allow = next(value for name, value in headers.items() if name.lower() == "allow")
            assert sorted(allow.split(", ")) == sorted(m.upper() for m in item), f"{method} {concrete}: {headers}"
            assert json.loads(body)["code"] == "method_not_allowed"


def test_schemathesis_finds_no_answer_outside_the_contract(herald_factory, tmp_path):
    herald = herald_factory("--token", TOKEN)
    events = tmp_path / "events.ndjson"
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    command = [
        ST, "--config-file", str(config), "run", herald.url + "api/openapi.json", "--checks", CHECKS, "--max-examples", str(EXAMPLES),
        "--phases", "examples,coverage,fuzzing", "--request-timeout", "10", "--max-response-time", "10",
        "--workers", "1", "--seed", "1", "--no-color", "--suppress-health-check", "too_slow",
        "--header", f"Authorization: Bearer {TOKEN}", "--report", "ndjson", "--report-ndjson-path", str(events)]
    environment = {**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": str(Path(__file__).parent)}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                          env=environment) as run:
        try:
            output, _ = run.communicate(timeout=LONGEST_RUN)
        except subprocess.TimeoutExpired:
            run.kill()
            output, _ = run.communicate()
            pytest.fail(f"schemathesis ran over {LONGEST_RUN} s\n{output[-8000:]}{errors_reported(events)}")
    assert run.returncode == 0, output[-12000:] + errors_reported(events)
    assert herald.process.poll() is None, "the server is still up"
    # Every operation of the document was exercised; count the cases each got.
    cases = {}
    for line in events.read_text().splitlines():
        event = json.loads(line)
        if "ScenarioFinished" in event:
            recorder = event["ScenarioFinished"]["recorder"]
            cases[recorder["label"]] = cases.get(recorder["label"], 0) + len(recorder.get("cases", {}))
    # schemathesis leaves out the operation it loaded the document from: the first test checks that one.
    operations = {f"{method.upper()} {path}" for path, item in contract.OPENAPI["paths"].items() for method in item}
    assert set(cases) == operations - {"GET /api/openapi.json"}, f"schemathesis tested {sorted(cases)}"
    # Each operation with parameters or a body got its cases; the others allow only a few distinct requests.
    for label, count in cases.items():
        method, path = label.split(" ", 1)
        operation = contract.OPENAPI["paths"][path][method.lower()]
        if operation.get("parameters") or operation.get("requestBody"):
            assert count >= EXAMPLES, f"{label}: only {count} cases"
