#!/usr/bin/env python3
"""Starts a sort on a Herald server, prints its progress as it comes, then its first sorted numbers.

    python3 sort_and_follow.py [URL] [COUNT]     # URL default http://127.0.0.1:8080, COUNT 1000000
"""

import sys

import herald

url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
count = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000

with herald.Herald(url) as server:
    job = server.start("sort", {"count": count})
    print(f"started {job.id}")
    for event in job.events(timeout=300):
        if event.type == "progress":
            print(f"{event['fraction']:6.1%} {event['message'] or ''}")
        elif event.type == "job":
            print(f"state: {event.job['state']}")
    final = job.wait(raise_on_failure=True)  # already ended: returns at once
    print("summary:", final["summary"])
    smallest = []
    for value in job.results(page_size=10):
        smallest.append(value)
        if len(smallest) == 10:
            break
    print("smallest:", smallest)
