/// The kinds a dispatcher runs: each kind's runner, which kinds clients may start, and what a start
/// of each must pass. Immutable. Thread: any.
struct RunnerSet: Sendable {
    let byKind: [JobKind: any JobRunner]
    /// Whether the benchmark-only `ticker` kind is offered.
    let enableTicker: Bool

    init(_ runners: [any JobRunner], enableTicker: Bool) {
        self.byKind = Dictionary(runners.map { ($0.kind, $0) }, uniquingKeysWith: { _, last in last })
        self.enableTicker = enableTicker
    }

    subscript(kind: JobKind) -> (any JobRunner)? { byKind[kind] }

    /// The kinds clients may start: the built-in ones first, in their usual order, then the rest by name.
    var offered: [JobKind] {
        let offered = byKind.keys.filter { $0 != .ticker || enableTicker }
        return JobKind.builtIn.filter(offered.contains) + offered.filter { !JobKind.builtIn.contains($0) }.sorted()
    }

    /// A start's params checked and normalised by its kind's runner, or why the start is refused
    /// (a kind not offered, params the kind refuses).
    func checkedParams(_ request: StartRequest, environment: JobEnvironment) -> Result<JSONObject, EngineError> {
        let kind = JobKind(request.kind)
        guard kind != .ticker || enableTicker, let runner = byKind[kind] else {
            return .failure(
                EngineError(
                    .unknownKind,
                    "unknown job kind \"\(request.kind)\"; known kinds: \(offered.map(\.rawValue).sorted().joined(separator: ", "))"))
        }
        do throws(EngineError) {
            return .success(try runner.validate(request.params, environment: environment))
        } catch {
            return .failure(error)
        }
    }

    /// The `timeout` of a kind's jobs file entry, which holds for remote attempts too.
    func timeout(of kind: JobKind) -> Double? { (byKind[kind] as? CommandRunner)?.definition.timeout }

    /// Where pages of `kind`'s jobs come from.
    func pageSource(for kind: JobKind) -> PageSource {
        guard let runner = byKind[kind] else { return .runningNode }
        if runner is CommandRunner { return .log }
        if runner is SortRunner { return .runningNode }
        return .streamedResults
    }

    /// What the snapshot's `limits.kinds` says of each offered kind: its catalog entry and its limit.
    func catalog(_ configuration: EngineConfiguration) -> JSONObject {
        var kinds: JSONObject = [:]
        for kind in offered {
            let limit = configuration.limit(for: kind)
            var entry = byKind[kind]?.catalogEntry ?? [:]
            entry["maxConcurrent"] = .int(Int64(limit.maxConcurrent))
            entry["refuseWhenBusy"] = .bool(limit.refuseWhenBusy)
            kinds[kind.rawValue] = .object(entry)
        }
        return kinds
    }
}
