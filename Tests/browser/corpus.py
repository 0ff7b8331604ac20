"""The generated search corpus: what it holds is known, so tests can check match counts exactly."""

import os
import random
from pathlib import Path

CORPUS_FILES = int(os.environ.get("HERALD_CORPUS_FILES", "300"))
CORPUS_FILE_KB = int(os.environ.get("HERALD_CORPUS_KB", "256"))
NEEDLE = "needle"
# Every file has one line with "needle" and one with "Needle": a case-insensitive search finds both.
MATCHES_IGNORING_CASE = 2 * CORPUS_FILES
MATCHES_CASE_SENSITIVE = CORPUS_FILES


# Text dense in "n", the query's first letter: the scanner stops at every one of them, so a search of
# a few tens of MB takes seconds in a debug build, long enough to watch its progress and cancel it.
# No word contains the query.
FILLER_WORDS = (
    "nnnnnnnn nonnen ninon nun noon nanny ninny nannan nine neon need nee nest nnnn unn anna "
    "Nnnn NNNN Nonne Ninon need Need NEED"
).split()


def _filler_block() -> bytes:
    rng = random.Random(7)
    lines = []
    for _ in range(2048):
        lines.append(" ".join(rng.choice(FILLER_WORDS) for _ in range(rng.randint(6, 14))))
    return ("\n".join(lines) + "\n").encode()


def generate_corpus(root: Path, files: int, file_kb: int) -> None:
    block = _filler_block()
    target = file_kb * 1024
    for index in range(files):
        folder = root / f"area{index % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        head = (
            f"file {index} begins\n"
            f"alpha {NEEDLE} beta in file {index}\n"
            f"gamma {NEEDLE.capitalize()} delta in file {index}\n"
        ).encode()
        body = bytearray(head)
        while len(body) < target:
            body += block
        with open(folder / f"file{index:04d}.txt", "wb") as handle:
            handle.write(body[:target].rsplit(b"\n", 1)[0] + b"\n")


def add_bulk(root: Path, total_bytes: int, file_mb: int = 4) -> int:
    """Adds files of filler without a single match under bulk/, so a search takes longer but finds the
    same matches. Returns the bytes added."""
    block = _filler_block()
    folder = root / "bulk"
    folder.mkdir(exist_ok=True)
    existing = len(list(folder.iterdir()))
    size = file_mb * 1024 * 1024
    chunk = block * (size // len(block) + 1)
    chunk = chunk[:size].rsplit(b"\n", 1)[0] + b"\n"
    added = 0
    index = existing
    while added < total_bytes:
        (folder / f"bulk{index:05d}.txt").write_bytes(chunk)
        added += len(chunk)
        index += 1
    return added


def expected_locations(case_sensitive: bool = False) -> set:
    """The `file:line` of every match of NEEDLE, as the dashboard shows them."""
    found = set()
    for index in range(CORPUS_FILES):
        name = f"area{index % 10}/file{index:04d}.txt"
        found.add(f"{name}:2")
        if not case_sensitive:
            found.add(f"{name}:3")
    return found
