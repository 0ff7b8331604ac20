#!/usr/bin/env python3
"""Counts to argv[1] (default 5), reporting progress as a fraction; Herald sets PYTHONUNBUFFERED."""
import json, sys, time

total = int(sys.argv[1]) if len(sys.argv) > 1 else 5
for i in range(1, total + 1):
    print(f"working on item {i}")                                       # a log line
    print(json.dumps({"progress": i / total, "message": f"item {i}"}))
    time.sleep(0.1)
print(json.dumps({"result": {"items": total}}))
