"""pyhub: the Python peer. A broadcast server over the `websockets` package (asyncio API).

It speaks the part of Herald's protocol the benchmark uses: a snapshot on connect, and a `start`
command ({"type":"start","kind":"ticker","params":{"rate":R,"duration":D}}) that starts a ticker
task emitting Herald-shaped progress events with a global `seq` and `ts` (wall clock, microseconds
since the epoch), sent to every connection with `websockets.broadcast`. Rate 0 is flat out; the
ticker yields while any connection holds more than 1 MiB unsent, so nothing piles up without bound.

usage: python3 pyhub.py PORT   (0 picks a free one; the first line printed is "port N"). 127.0.0.1 only.
"""

import asyncio
import json
import sys
import time

from websockets.asyncio.server import broadcast, serve

clients = set()
state = {"seq": 0, "jobs": 0}
HIGH_WATER = 1 << 20


def event(job, completed, total):
    state["seq"] += 1
    fraction = completed / total if total > 0 else 0
    return (
        '{"type":"progress","seq":%d,"ts":%d,"job":"j-peerticker%d","completed":%d,"total":%d,'
        '"fraction":%.6g,"message":null,"rate":null,"eta":null}'
        % (state["seq"], time.time_ns() // 1000, job, completed, total, fraction)
    )


def backlog():
    most = 0
    for ws in clients:
        transport = ws.transport
        if transport is not None:
            most = max(most, transport.get_write_buffer_size())
    return most


async def ticker(rate, duration):
    job = state["jobs"]
    state["jobs"] += 1
    total = int(rate * duration) if rate > 0 else 0
    start = time.monotonic()
    limit = duration + (0.1 if rate > 0 else 0)
    i = 1
    while rate == 0 or i <= total:
        now = time.monotonic()
        if now - start > limit:
            break
        if rate > 0:
            due = start + i / rate
            if due > now:
                await asyncio.sleep(due - now)
        broadcast(clients, event(job, i, total))
        if rate == 0:
            # Let the event loop write; wait while a client is far behind.
            await asyncio.sleep(0)
            while backlog() > HIGH_WATER:
                await asyncio.sleep(0.001)
        i += 1


async def handler(ws):
    await ws.send(
        '{"type":"snapshot","protocol":1,"reason":"connect","epoch":"py-peer","seq":%d,"jobs":[]}' % state["seq"]
    )
    clients.add(ws)
    try:
        async for message in ws:
            try:
                command = json.loads(message)
            except ValueError:
                continue
            if not isinstance(command, dict) or command.get("type") != "start":
                continue
            params = command.get("params") or {}
            rate = float(params.get("rate", 20))
            duration = float(params.get("duration", 10))
            if rate >= 0 and 0 < duration <= 3600:
                asyncio.get_running_loop().create_task(ticker(rate, duration))
    finally:
        clients.discard(ws)


async def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    async with serve(handler, "127.0.0.1", port, compression=None, max_queue=64, ping_interval=None) as server:
        bound = server.sockets[0].getsockname()[1]
        print("port %d" % bound, flush=True)
        await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
