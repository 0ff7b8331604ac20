#!/usr/bin/env python3
"""A program to run as a Herald job: counts the lines of the files under a folder, with a progress
bar on every dashboard (herald.tqdm), a log line per file that cannot be read (herald.log) and a
summary (herald.result). Declared in a jobs file as

    {"kinds": {"count-lines": {
        "title": "Count lines",
        "command": ["python3", "/path/to/count_files.py", "{folder}"],
        "params": {"folder": {"type": "string", "required": true}}}}}

It runs the same outside Herald: then the progress lines go to stdout for you to read.
"""

import sys
from pathlib import Path

import herald

files = sorted(path for path in Path(sys.argv[1]).rglob("*") if path.is_file())
lines = 0
unreadable = 0
for path in herald.tqdm(files, desc="counting"):
    try:
        with open(path, "rb") as file:
            lines += sum(1 for _ in file)
    except OSError as error:
        unreadable += 1
        herald.log(f"skipped {path}: {error.strerror}", stream="stderr")
herald.result(files=len(files), lines=lines, unreadable=unreadable)
