"""The transcripts in the docs are checked against the contract (docs/api.md, "How it is checked"), so an
example that no longer matches what the server sends fails here.

A transcript is a fenced block right after a `<!-- transcript -->` line, in README.md or docs/*.md. In it:
- `$ … printf '…' | websocat …`: each line of the printf string is a message to the server;
- `$ curl …`: the JSON lines after it are its answer, checked against the operation's documented
  responses (method from `-X`, else POST with `-d`, else GET; path from the URL); lines after a command
  piped into `head` are cut short and not checked;
- `< {…}` or a line that starts with `{` (outside curl): a message from the server;
- `> {…}`: a message to the server.
A message shortened with `…` is skipped; every transcript must have at least one message checked.
"""

import json
import re
import shlex
from urllib.parse import urlsplit

import pytest

from testkit import REPO_ROOT, contract

MARK = "<!-- transcript -->"
DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


def transcripts():
    """(file name, line number, block lines) for every marked fenced block."""
    found = []
    for path in DOCS:
        lines = path.read_text().splitlines()
        for index, line in enumerate(lines):
            if line.strip() != MARK:
                continue
            start = index + 1
            assert start < len(lines) and lines[start].startswith("```"), f"{path.name}:{index + 1}: {MARK} must precede a fence"
            end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
            found.append((path.name, start + 1, lines[start + 1:end]))
    return found


def curl_request(command):
    words = shlex.split(command)
    method = words[words.index("-X") + 1] if "-X" in words else ("POST" if "-d" in words else "GET")
    url = next(word for word in words if word.startswith("http"))
    return method, urlsplit(url).path


def check(block):
    """Validates every complete message of one transcript; returns how many it checked."""
    checked = 0
    request = None  # the last curl command's (method, path), while its answer is being read
    for line in block:
        if line.startswith("$ "):
            command = line[2:]
            request = None
            if command.startswith("curl") and "| head" not in command:
                request = curl_request(command.split("|")[0])
            elif command.startswith("curl"):
                request = ("cut", "")
            for script in re.findall(r"printf '([^']*)'", command) if "websocat" in command else []:
                for message in script.split("\\n"):
                    if message and "…" not in message:
                        contract.client_message(message)
                        checked += 1
            continue
        direction, text = None, line
        if line.startswith("< "):
            direction, text = "server", line[2:]
        elif line.startswith("> "):
            direction, text = "client", line[2:]
        elif line.startswith("{"):
            direction = "rest" if request else "server"
        if direction is None or "…" in text or request == ("cut", ""):
            continue
        if direction == "server":
            contract.server_message(text)
        elif direction == "client":
            contract.client_message(text)
        else:
            contract.rest_body(*request, text)
        checked += 1
    return checked


@pytest.mark.parametrize("name,line,block", transcripts(), ids=lambda value: str(value) if not isinstance(value, list) else "")
def test_every_transcript_matches_the_contract(name, line, block):
    assert check(block) > 0, f"{name}:{line}: a transcript with no complete message to check"


def test_the_transcripts_are_found():
    names = {name for name, _, _ in transcripts()}
    assert {"README.md", "protocol.md", "rest.md", "workers.md"} <= names, names


def test_a_wrong_message_in_a_transcript_fails():
    with pytest.raises(AssertionError):
        check(['{"type":"job","seq":1,"ts":1,"job":{"id":"j-a","kind":"sort","state":"finished"}}'])
    with pytest.raises(AssertionError):
        check(["$ curl -s http://127.0.0.1:8080/api/news", '{"revision":0,"news":[]}'])
