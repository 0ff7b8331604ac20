"""The websocketd peer's ticker: appends Herald-shaped progress events to the shared events file,
numbered after the lines already there. usage: wsd-ticker.py START_COMMAND_JSON EVENTS_FILE"""

import json
import sys
import time

command = json.loads(sys.argv[1])
params = command.get("params") or {}
rate = float(params.get("rate", 20))
duration = min(3600.0, float(params.get("duration", 10)))
with open(sys.argv[2], "rb") as f:
    seq = sum(1 for _ in f)
total = int(rate * duration) if rate > 0 else 0
start = time.monotonic()
limit = duration + (0.1 if rate > 0 else 0)
with open(sys.argv[2], "a", buffering=1 if rate > 0 else 65536) as out:
    i = 1
    while rate == 0 or i <= total:
        now = time.monotonic()
        if now - start > limit:
            break
        if rate > 0 and start + i / rate > now:
            time.sleep(start + i / rate - now)
        seq += 1
        fraction = i / total if total > 0 else 0
        out.write(
            '{"type":"progress","seq":%d,"ts":%d,"job":"j-peerticker0","completed":%d,"total":%d,'
            '"fraction":%.6g,"message":null,"rate":null,"eta":null}\n'
            % (seq, time.time_ns() // 1000, i, total, fraction)
        )
        i += 1
