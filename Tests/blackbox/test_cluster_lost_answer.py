"""A cluster node whose link to Redis fails just after Redis appended a batch of its events, so that
the answer never comes back (docs/scaling.md): the node sends the batch again under the same ticket,
and the shared stream holds each event once, numbered without a gap."""

import json

from testkit import Herald, wait_for
from testkit.losing_relay import LosingRelay
from test_jobs_file import script, write_jobs

STEPS = 30


def shared_stream(redis):
    """The stream's events as (seq, node, the seq its node's dispatcher gave it), oldest first."""
    events = []
    for entry_id, fields in redis.command("XRANGE", "herald:events", "-", "+"):
        values = dict(zip(fields[::2], fields[1::2]))
        first = int(entry_id.split(b"-")[0])
        for offset, encoding in enumerate(values[b"e"].split(b"\n")):
            events.append((first + offset, values[b"n"].decode(), json.loads(encoding)["seq"]))
    return events


def test_a_batch_whose_answer_was_lost_is_appended_once(tmp_path, redis_server):
    steps = script(tmp_path, "steps.sh", f'i=0\nwhile [ $i -lt {STEPS} ]; do i=$((i+1)); '
                   f'echo "{{\\"completed\\": $i, \\"total\\": {STEPS}}}"; sleep 0.02; done\n')
    jobs = write_jobs(tmp_path, {"steps": {"command": [steps]}})
    relay = LosingRelay(redis_server.port)
    # n1 reaches Redis through the relay and alone runs `steps`; n2, on Redis directly, watches.
    first = Herald("--redis", f"redis://127.0.0.1:{relay.port}", "--node", "n1", "--jobs", str(jobs), root=tmp_path / "n1")
    second = Herald("--redis", redis_server.url, "--node", "n2", root=tmp_path / "n2")
    try:
        relay.lose_reply_to(b"herald:appended")
        status, job = first.json("POST", "/api/jobs", {"kind": "steps"})
        assert status == 202, job

        def ended():
            status, record = second.json("GET", f"/api/jobs/{job['id']}")
            return record if status == 200 and record["state"] in ("succeeded", "failed", "cancelled", "interrupted") else None

        record = wait_for(ended, timeout=30, what="the job's end, seen on the other node")
        assert record["state"] == "succeeded" and record["progress"]["completed"] == STEPS, record
        assert len(relay.lost) == 1 and not relay.lost[0].startswith(b"-"), f"Redis appended; its answer was lost: {relay.lost}"

        events = shared_stream(redis_server)
        assert [seq for seq, _, _ in events] == list(range(1, len(events) + 1)), "numbered without a gap"
        made = [(node, local) for _, node, local in events]
        twice = sorted({event for event in made if made.count(event) > 1})
        assert not twice, f"events appended twice (node, its seq): {twice}"
    finally:
        first.stop()
        second.stop()
        relay.close()
