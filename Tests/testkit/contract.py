"""The published contract, checked on everything the black-box suites receive: every WebSocket message
against docs/protocol.schema.json (JSON Schema 2020-12) and every JSON answer of the REST API against the
response schemas of Public/openapi.json (OpenAPI 3.1, whose schemas are JSON Schema 2020-12 too). A field
renamed or added in the server's code and not in the contract fails the test that received it.

`server_message(text_or_object)` and `rest_answer(method, path, status, content_type, body)` raise
AssertionError naming the message and what is wrong; each returns what it checked.
"""

import json
import re
from pathlib import Path
from urllib.parse import quote, urlsplit

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_PATH = ROOT / "docs" / "protocol.schema.json"
OPENAPI_PATH = ROOT / "Public" / "openapi.json"

PROTOCOL = json.loads(PROTOCOL_PATH.read_text())
OPENAPI = json.loads(OPENAPI_PATH.read_text())
OPENAPI_URI = "urn:herald:openapi"

_registry = Registry().with_resources([
    (PROTOCOL["$id"], Resource(PROTOCOL, specification=DRAFT202012)),
    (OPENAPI_URI, Resource(OPENAPI, specification=DRAFT202012)),
])


def _validator(reference: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": reference}, registry=_registry)


SERVER_MESSAGE = _validator(PROTOCOL["$id"] + "#/$defs/serverMessage")
CLIENT_MESSAGE = _validator(PROTOCOL["$id"] + "#/$defs/clientMessage")


def _explain(validator, value) -> str | None:
    errors = list(validator.iter_errors(value))
    if not errors:
        return None
    # A oneOf over message kinds says little by itself: show the errors of the kind with this `type`.
    reasons = []
    for error in errors:
        for sub in error.context or [error]:
            reasons.append(f"{'/'.join(map(str, sub.absolute_path)) or '(message)'}: {sub.message}")
    return "; ".join(sorted(set(reasons))[:8])


def server_message(message):
    """Checks one message the server sent on /ws (text or parsed); returns it parsed."""
    value = json.loads(message) if isinstance(message, (str, bytes)) else message
    problem = _explain(SERVER_MESSAGE, value)
    if problem is not None and isinstance(value, dict):
        # Narrow to the definitions whose `type` matches, so the message names the real problem.
        kinds = [ref["$ref"] for ref in PROTOCOL["$defs"]["serverMessage"]["oneOf"]
                 if PROTOCOL["$defs"][ref["$ref"].rsplit("/", 1)[1]]["properties"]["type"].get("const") == value.get("type")]
        narrowed = [_explain(_validator(PROTOCOL["$id"] + kind), value) for kind in kinds]
        problem = " | ".join(p for p in narrowed if p) or problem
    assert problem is None, f"a server message breaks docs/protocol.schema.json: {problem}\n{json.dumps(value)[:2000]}"
    return value


def client_message(message):
    """Checks one message a client sends (text or parsed); returns it parsed."""
    value = json.loads(message) if isinstance(message, (str, bytes)) else message
    problem = _explain(CLIENT_MESSAGE, value)
    assert problem is None, f"a client message breaks docs/protocol.schema.json: {problem}\n{json.dumps(value)[:2000]}"
    return value


def _templates():
    """(method, compiled path pattern, path template) for every operation of the OpenAPI document."""
    out = []
    for template, item in OPENAPI["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "/?$")
        for method in item:
            out.append((method.upper(), pattern, template))
    return out


_OPERATIONS = _templates()


def rest_answer(method: str, path: str, status: int, content_type: str | None, body):
    """Checks a REST answer against the OpenAPI document, when its path is one the document describes and
    the answer is JSON: its status must be documented for the operation, its content type declared, and
    its body valid. Returns the parsed body (or the body as given when it is not JSON)."""
    path = urlsplit(path).path
    template = operation(method, path)
    media = (content_type or "").split(";")[0].strip().lower()
    if template is None:
        return body
    responses = OPENAPI["paths"][template][method.lower()]["responses"]
    assert str(status) in responses, f"{method} {path} answered {status}, which {template} does not document (openapi.json)"
    declared = responses[str(status)].get("content", {})
    assert media in declared, f"{method} {path} answered {status} as {content_type!r}; openapi.json declares {sorted(declared)}"
    if media != "application/json":
        return body
    value = json.loads(body) if isinstance(body, (str, bytes)) else body
    parts = ["paths", template, method.lower(), "responses", str(status), "content", media, "schema"]
    pointer = "/".join(quote(part.replace("~", "~0").replace("/", "~1"), safe="~") for part in parts)
    validator = _validator(f"{OPENAPI_URI}#/{pointer}")
    problem = _explain(validator, value)
    assert problem is None, f"{method} {path} {status} breaks openapi.json: {problem}\n{json.dumps(value)[:2000]}"
    return value


def operation(method: str, path: str):
    """The OpenAPI path template of the operation that answers `method path`, or None."""
    path = urlsplit(path).path
    return next((template for verb, pattern, template in _OPERATIONS if verb == method.upper() and pattern.match(path)), None)


def rest_body(method: str, path: str, body):
    """Checks a JSON answer whose status is not known (a docs transcript) against every JSON response the
    operation documents: it must be valid against one of them. Returns it parsed."""
    template = operation(method, path)
    assert template is not None, f"openapi.json describes no {method} {path}"
    value = json.loads(body) if isinstance(body, (str, bytes)) else body
    responses = OPENAPI["paths"][template][method.lower()]["responses"]
    problems = []
    for status, response in responses.items():
        if "application/json" not in response.get("content", {}):
            continue
        try:
            return rest_answer(method, path, int(status), "application/json", value)
        except AssertionError as error:
            problems.append(str(error).splitlines()[0])
    raise AssertionError(f"{method} {path}: the answer fits none of its documented responses: {problems}")
