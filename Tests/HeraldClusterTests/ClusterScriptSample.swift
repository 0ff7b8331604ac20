import HeraldTestSupport
import HeraldEngine
import HeraldRedis

@testable import HeraldCluster

/// What the Swift side sends one cluster script, taken from a call built as the engine builds it:
/// how many KEYS, how many named ARGV, and whether a variadic tail follows them (a call with tail
/// items sends more ARGV than one without). One per script (`all`), for `ClusterScriptTests`.
struct ClusterScriptSample {
    let script: RedisScript
    let keys: Int
    let args: Int
    let tail: Bool

    /// `call` with an empty tail, if the script takes one; `withTail` the same call with items in it.
    init<Call: ClusterScript>(_ call: Call, withTail: Call? = nil) {
        script = Call.script
        keys = call.keyList.count
        args = call.argList.count
        tail = withTail.map { $0.argList.count > call.argList.count } ?? false
    }

    static let all: [ClusterScriptSample] = {
        let keys = ClusterKeys()
        let job = JobID("j-1")
        let item = Array("{}".utf8)
        func append(_ events: [AppendScript.Event]) -> AppendScript {
            AppendScript(
                keys: .init(keys),
                args: .init(
                    epoch: "e", node: "n1", maxLength: 10, retainedFinished: 10, prefix: keys.prefix, historyJobs: 10, keptResultBytes: 10,
                    ticket: "i:1", retry: false, events: events))
        }
        let event = AppendScript.Event(
            encoding: item, job: job, record: item, kind: "search", ended: true, workers: item, kept: .results, cap: 10, items: [item])
        func control(_ fields: [String]) -> ControlScript {
            ControlScript(keys: .init(control: keys.control("n2")), args: .init(keptMilliseconds: 60_000, fields: fields))
        }
        func keepLog(_ lines: [[UInt8]]) -> KeepLogScript {
            KeepLogScript(keys: .init(keys, job: job), args: .init(job: job, first: 0, lines: lines))
        }
        return [
            ClusterScriptSample(BootstrapScript(keys: .init(keys), args: .init(freshEpoch: "e"))),
            ClusterScriptSample(append([]), withTail: append([event, event])),
            ClusterScriptSample(
                ReserveScript(
                    keys: .init(keys, kind: "search", requestId: "r"),
                    args: .init(
                        job: job, node: "n1", busyLimit: 1, requestId: "r", kind: "search", gated: true,
                        requestKeyPrefix: keys.request(""), requestIdsKept: 10))),
            ClusterScriptSample(
                ReclaimScript(
                    keys: .init(keys), args: .init(node: "n1", leaseMilliseconds: 2000, mode: .lapsed, cursor: "0-0", prefix: keys.prefix))),
            ClusterScriptSample(
                RenewScript(keys: .init(keys), args: .init(node: "n1", wantsNews: true, leaseMilliseconds: 2000))),
            ClusterScriptSample(
                ForgetNodeScript(
                    keys: .init(keys), args: .init(node: "n2", timeoutMilliseconds: 1, epoch: "e", encoding: item, maxLength: 10))),
            ClusterScriptSample(HoldScript(keys: .init(keys, kind: "search"), args: .init(job: job, node: "n1"))),
            ClusterScriptSample(
                AdmitScript(
                    keys: .init(keys, kind: "search", requestId: nil),
                    args: .init(
                        job: job, busyLimit: 0, requestId: nil, epoch: "e", encoding: item, record: item, maxLength: 10, node: "n1",
                        createdAt: 1, requestKeyPrefix: keys.request(""), requestIdsKept: 10))),
            ClusterScriptSample(control([]), withTail: control(["t", "cancel"])),
            ClusterScriptSample(SlotScript(keys: .init(keys, kind: "search"), args: .init(job: job, limit: 1))),
            ClusterScriptSample(ClaimScript(keys: .init(keys, kind: "search"), args: .init(node: "n1", limit: 1))),
            ClusterScriptSample(
                CancelQueuedScript(
                    keys: .init(keys, kind: "search"),
                    args: .init(job: job, epoch: "e", encoding: item, record: item, node: "n1", maxLength: 10))),
            ClusterScriptSample(ReleaseScript(keys: .init(keys, kind: "search", requestId: nil), args: .init(job: job))),
            ClusterScriptSample(keepLog([]), withTail: keepLog([item, item])),
            ClusterScriptSample(
                MirrorDeliveriesScript(keys: .init(keys), args: .init(node: "n1", milliseconds: 1, deliveries: item))),
            ClusterScriptSample(TakeOverDeliveriesScript(keys: .init(keys), args: .init(node: "n2", staleBefore: 1))),
        ]
    }()
}
