"""Turns bench/run's results.jsonl into Markdown tables: medians of the runs, ratios to Herald, and
the targets (reported, never asserted). usage: python3 bench/summarize.py results.jsonl

Each fan-out result says which load client measured it ("client": "raw" or "lws" for bench-client,
"go" for bench/goclient; a line without one is from before the Go client: "raw"). The tables give a
row per server and client, and a ratio is always to Herald measured with the same client."""

import json
import statistics
import sys
from collections import defaultdict

SERVERS = ["herald", "lws", "go", "python", "websocketd"]
NAMES = {
    "herald": "Herald",
    "lws": "C libwebsockets (1 frame/write)",
    "go": "Go gorilla/websocket hub",
    "python": "Python websockets",
    "websocketd": "websocketd + tail -F",
}
CLIENTS = ["raw", "lws", "go"]
CLIENT_NAMES = {"raw": "C epoll client", "lws": "C lws client", "go": "Go client"}
# Runs in which the hypervisor took more than this share of the machine's CPU are flagged: at
# 19-21 % steal, s8's p99 rose five- to eightfold (docs/benchmarks.md).
STEAL_WARNING_PCT = 5


def median(values):
    values = [v for v in values if v is not None and v == v and v >= 0]
    return statistics.median(values) if values else None


def fmt(value, digits=0, suffix=""):
    if value is None:
        return "–"
    if digits == 0:
        return "{:,.0f}{}".format(value, suffix)
    return "{:,.{}f}{}".format(value, digits, suffix)


def ratio(value, base):
    if value is None or base in (None, 0):
        return "–"
    return "{:.2f}×".format(value / base)


def main(path):
    machine, machine_end = {}, {}
    runs = defaultdict(list)  # (server, scenario, client) -> [result]
    single = {}  # (server, scenario) -> result, for the scenarios without a load client
    searches = []  # every search corpus's result, in the order run
    steals = []  # the hypervisor's steal time during each load-client run, percent of the machine
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            record = json.loads(line)
            if "machine" in record:
                machine = record["machine"]
                continue
            if "machine_end" in record:
                machine_end = record["machine_end"]
                continue
            runs[(record["server"], record["scenario"], record.get("client", "raw"))].append(record["result"])
            if "steal_pct" in record:
                steals.append(record["steal_pct"])
            if record["scenario"] == "search":
                searches.append(record["result"])
            single[(record["server"], record["scenario"])] = record["result"]

    def m(server, scenario, field, client):
        return median([r.get(field) for r in runs.get((server, scenario, client), [])])

    def count(server, scenario, client):
        return len(runs.get((server, scenario, client), []))

    clients = [c for c in CLIENTS if any(k[2] == c for k in runs if k[1][:2] in ("s1", "s2", "s3", "s6", "s7", "s8"))]

    def rows(scenario_test):
        """(server, client) pairs with results, a server's clients together."""
        return [(s, c) for s in servers for c in clients if any(k[0] == s and k[2] == c and scenario_test(k[1]) for k in runs)]

    def label(server, client):
        return NAMES[server] + (" · " + CLIENT_NAMES[client] if len(clients) > 1 else "")

    out = []
    out.append("Machine: {} cores, {}, {} GiB; {}; Herald at {}{}; load average at start {}, at end {}; {} s of measuring{}.".format(
        machine.get("nproc"), machine.get("cpu"), machine.get("mem_gib"), machine.get("date"),
        machine.get("commit", "?") if "herald_bin" not in machine else "the binary " + machine["herald_bin"],
        (" with uncommitted changes in Sources/" if machine.get("sources_dirty") and "herald_bin" not in machine else "")
        + (" (serve " + machine["herald_args"] + ")" if machine.get("herald_args") else ""),
        machine.get("load_start"), machine_end.get("load_end"), machine_end.get("seconds"),
        " (--quick: one run each)" if machine.get("quick") else ""))
    if steals:
        stolen = [v for v in steals if v > STEAL_WARNING_PCT]
        out.append("")
        out.append("Hypervisor steal time during the runs: median {:.1f} %, at most {:.1f} % of the machine's CPU{}.".format(
            median(steals), max(steals),
            "; **{} of {} runs over {} %: their latency is the host's as much as the server's, compare them with care**".format(
                len(stolen), len(steals), STEAL_WARNING_PCT) if stolen else ""))
    out.append("")
    servers = [s for s in SERVERS if any(k[0] == s for k in runs)]

    # Search
    for search in searches:
        shape = " ({:,} files of {:,} KB)".format(search["files"], search["file_bytes"] // 1000) if "files" in search else ""
        out.append("### Search: {:.0f} MB corpus{}, warm cache, median of {} runs".format(
            search["corpus_bytes"] / 1e6, shape, search["runs"]))
        out.append("")
        if "threads" in search:
            out.append("N threads: {}.".format(search["threads"]))
            out.append("")
        out.append("| tool | median s | job's own s (startedAt→finishedAt) | MB/s | matches | time vs Herald |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for row in search["rows"]:
            out.append("| {} | {:.3f} | {} | {:,.0f} | {} | {:.2f}× |".format(
                row["tool"], row["median_s"], fmt(row.get("job_median_s"), 3), row["mb_per_s"], row["matches"], row["time_vs_herald"]))
        out.append("")

    # Report cost
    s4 = [(name, single.get(("herald", "s4-" + name))) for name in ["plain", "serve0", "serve1000"]]
    if any(r for _, r in s4):
        out.append("### Report cost (s4): nanoseconds per call, median of runs")
        out.append("")
        out.append("| setting | report(completed:total:) wall | thread CPU | add(_:) 1 thread | add(_:) 2 threads, per thread (CPU) |")
        out.append("|---|---:|---:|---:|---:|")
        labels = {"plain": "engine only, no server", "serve0": "server + ticker 1,000 ev/s, 0 clients",
                  "serve1000": "server + ticker 1,000 ev/s, 1,000 clients"}
        for name, r in s4:
            if r:
                out.append("| {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} |".format(
                    labels[name], r["report_ns_wall"], r["report_ns_cpu"], r["add1_ns_wall"], r["add2_ns_per_call_per_thread_cpu"]))
        plain = s4[0][1]
        if plain and "scan_overhead_pct_per_line" in plain:
            out.append("")
            out.append("Scanning loop over {} MiB in memory ({:,} lines), thread CPU: no reports {:.1f} ms; "
                       "a report per line {:.1f} ms ({:+.2f} %); a report per 64 KiB {:.1f} ms ({:+.2f} %).".format(
                           plain["scan_mb"], plain["scan_lines"], plain["scan_ms_no_reports"], plain["scan_ms_report_per_line"],
                           plain["scan_overhead_pct_per_line"], plain["scan_ms_report_per_64k"], plain["scan_overhead_pct_per_64k"]))
        out.append("")

    # s1
    s1 = sorted({k[1] for k in runs if k[1].startswith("s1-")}, key=lambda s: int(s[4:]))
    if s1:
        if len(clients) > 1:
            out.append("Load clients: " + "; ".join("**{}** ({})".format(CLIENT_NAMES[c], {
                "raw": "bench-client: every connection on one thread, one epoll, its own RFC 6455 parser",
                "lws": "bench-client on one libwebsockets 4.1 client context",
                "go": "bench/goclient: a goroutine per connection in a gorilla/websocket ReadMessage loop"}[c])
                for c in clients) + ". A ratio is to Herald with the same client.")
            out.append("")
        out.append("### Fan-out at full speed (s1): one ticker at rate 0, deliveries per second to all clients (median)")
        out.append("")
        out.append("| server | " + " | ".join("N={:,}".format(int(s[4:])) for s in s1) + " | server CPU at N=1000 | client CPU at N=1000 | resyncs per client at N=1000 |")
        out.append("|---|" + "---:|" * len(s1) + "---:|---:|---:|")
        s1_rows = rows(lambda sc: sc.startswith("s1-"))
        for server, client in s1_rows:
            cells = []
            for s in s1:
                v = m(server, s, "msgs_per_s", client)
                base = m("herald", s, "msgs_per_s", client)
                cells.append("–" if v is None else fmt(v) + ("" if server == "herald" else " ({})".format(ratio(v, base))))
            resyncs = median([r["resyncs"] / r["opened"] for r in runs.get((server, "s1-n1000", client), []) if r.get("opened")])
            out.append("| {} | {} | {} | {} | {} |".format(label(server, client), " | ".join(cells),
                                                   fmt(m(server, "s1-n1000", "server_cpu_pct", client), 0, " %"),
                                                   fmt(m(server, "s1-n1000", "client_cpu_pct", client), 0, " %"),
                                                   fmt(resyncs, 1)))
        out.append("")

        def short(server, client):
            return NAMES[server].split(" ")[0] + ("/" + client if len(clients) > 1 else "")

        out.append("(Ratios are to Herald at the same N. Latency at full speed is queueing, not speed: p50 at N=1000 — " +
                   ", ".join("{} {} ms".format(short(s, c), fmt(m(s, "s1-n1000", "lat_ms_p50", c), 0)) for s, c in s1_rows
                             if m(s, "s1-n1000", "lat_ms_p50", c) is not None) + "; gaps at N=1000 — " +
                   ", ".join("{} {}".format(short(s, c), fmt(m(s, "s1-n1000", "gap_events", c))) for s, c in s1_rows
                             if m(s, "s1-n1000", "gap_events", c) is not None) + ".)")
        out.append("")

    # s2, s6
    for scenario, title, expected in [("s1p", "Fan-out paced (s1p): one ticker at 2,000 ev/s for 3 s, N=1,000", 6000),
                                      ("s2", "5 tickers × 20 ev/s, N=1,000 (s2)", 500),
                                      ("s6", "1,000 clients × 1,000 ev/s for 10 s (s6)", 10000),
                                      ("s7", "1,000 clients × 100 ev/s for 10 s (s7)", 1000),
                                      ("s8", "5,000 clients × 10 ev/s for 10 s (s8)", 100)]:
        if not any(k[1] == scenario for k in runs):
            continue
        # `scenario` is bound now: the lambda is called within this iteration.
        scenario_rows = rows(lambda sc: sc == scenario)
        out.append("### " + title + ": latency from the event's ts to receipt, median of runs")
        out.append("")
        out.append("| server | runs | open | events per client (of {:,}) | deliveries/s | p50 ms | p99 ms | max ms | seq gaps (events) | dropped | server CPU | client CPU | server peak RSS (VmHWM) | p99 vs Herald |".format(expected))
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for server, client in scenario_rows:
            def v(field, server=server, client=client):
                return m(server, scenario, field, client)
            per_client = median([r["events_with_ts"] / r["opened"] for r in runs[(server, scenario, client)] if r.get("opened")])
            out.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                label(server, client), count(server, scenario, client), fmt(v("opened")), fmt(per_client),
                fmt(v("msgs_per_s")), fmt(v("lat_ms_p50"), 2), fmt(v("lat_ms_p99"), 2),
                fmt(v("lat_ms_max"), 1), fmt(v("gap_events")), fmt(v("dropped")),
                fmt(v("server_cpu_pct"), 0, " %"), fmt(v("client_cpu_pct"), 0, " %"),
                fmt(None if v("server_hwm_kb") is None else v("server_hwm_kb") / 1024, 0, " MB"),
                ratio(v("lat_ms_p99"), m("herald", scenario, "lat_ms_p99", client))))
        out.append("")

    # s3
    if any(k[1] == "s3" for k in runs):
        out.append("### Idle connections (s3): server RSS per connection")
        out.append("")
        out.append("| server | open | failed | RSS before | RSS with all open | bytes per connection | connect p99 ms | vs Herald |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for server, client in rows(lambda sc: sc == "s3"):
            def v(field, server=server, client=client):
                return m(server, "s3", field, client)
            out.append("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
                label(server, client), fmt(v("opened")), fmt(v("failed")),
                fmt(v("server_rss_kb_before"), 0, " kB"), fmt(v("server_rss_kb_connected"), 0, " kB"),
                fmt(v("server_rss_bytes_per_conn")), fmt(v("connect_ms_p99"), 1),
                ratio(v("server_rss_bytes_per_conn"), m("herald", "s3", "server_rss_bytes_per_conn", client))))
        out.append("")

    # s9
    if any(k[1] == "s9" for k in runs):
        out.append("### Operators under fan-out (s9): /healthz and /metrics while 1,000 clients take a ticker at rate 0")
        out.append("")
        out.append("| run | asked | not 200 | /healthz p50 / p99 / max ms | /metrics p50 / p99 / max ms | the load's deliveries/s |")
        out.append("|---:|---:|---:|---:|---:|---:|")
        # The load's runs, whichever engine bench-client used for them (BENCH_CLIENT_ENGINE).
        loads = next((results for key, results in runs.items() if key[:2] == ("herald", "s9-load")), [])
        for index, r in enumerate(runs[("herald", "s9", "raw")]):
            load = loads[index] if index < len(loads) else {}
            def spread(path, r=r):
                return " / ".join(fmt(r.get("{}_ms_{}".format(path, which)), 1) for which in ("p50", "p99", "max"))
            out.append("| {} | {} | {} | {} | {} | {} |".format(
                index + 1, fmt(r.get("asked")), fmt(r.get("not_200")), spread("healthz"), spread("metrics"),
                fmt(load.get("msgs_per_s"))))
        out.append("")

    # Targets
    target_clients = clients or ["raw"]
    out.append("### Herald against the targets (reported, not asserted)")
    out.append("")
    out.append("| target | " + " | ".join("measured ({}) | met".format(CLIENT_NAMES[c]) for c in target_clients) + " |")
    out.append("|---|" + "---:|:---:|" * len(target_clients))

    def cell(value, ok, unit):
        if value is None:
            return "not measured | –"
        return "{}{} | {}".format(fmt(value, 2 if value < 100 else 0), unit, "yes" if ok(value) else "**no**")

    def target(label, values, ok, unit=""):
        out.append("| {} | {} |".format(label, " | ".join(cell(v, ok, unit) for v in values)))

    def each(scenario, field):
        return [m("herald", scenario, field, c) for c in target_clients]

    plain = single.get(("herald", "s4-plain"))
    target("report < 50 ns (no load client)", [plain and plain["report_ns_wall"]] * len(target_clients), lambda v: v < 50, " ns")
    target("s1 at 1,000 clients ≥ 1.5 M deliveries/s (ticker at rate 0)", each("s1-n1000", "msgs_per_s"), lambda v: v >= 1.5e6, "/s")
    target("… the same, paced at 2,000 ev/s (s1p)", each("s1p", "msgs_per_s"), lambda v: v >= 1.5e6, "/s")
    target("s2 p50 < 5 ms", each("s2", "lat_ms_p50"), lambda v: v < 5, " ms")
    target("s2 p99 < 10 ms", each("s2", "lat_ms_p99"), lambda v: v < 10, " ms")
    target("s3 < 8 KB RSS per idle connection", each("s3", "server_rss_bytes_per_conn"), lambda v: v < 8192, " B")
    target("s6 no gaps", each("s6", "gap_events"), lambda v: v == 0, " events")
    target("s6 p99 < 100 ms", each("s6", "lat_ms_p99"), lambda v: v < 100, " ms")
    target("s7 p99 < 10 ms", each("s7", "lat_ms_p99"), lambda v: v < 10, " ms")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
