/// Whether a worker's `hello` fits the server (docs/workers.md): every kind it names is one of the
/// server's jobs file, with params declared as the server declares them. Pure: no state, no I/O.
enum WorkerHelloCheck {
    /// Why a `hello` is refused, if it is: a kind the server does not declare in its jobs file, a
    /// built-in kind, or params declared differently from the server's.
    static func refusal(of hello: WorkerHello, runners: [JobKind: any JobRunner]) -> EngineError? {
        for name in hello.kinds {
            let kind = JobKind(name)
            guard let runner = runners[kind] as? CommandRunner else {
                if runners[kind] != nil {
                    return EngineError(.kindMismatch, "kind \(name) is built into the server; workers run only kinds of its jobs file")
                }
                return EngineError(.unknownKind, "kind \(name) is not declared in the server's jobs file")
            }
            guard let declared = hello.params?[name] else { continue }
            let ours = runner.definition.json["params"] ?? .object([:])
            if !sameJSON(declared, ours) {
                let theirs = String(decoding: JSONWriter.encode(declared), as: UTF8.self)
                let mine = String(decoding: JSONWriter.encode(ours), as: UTF8.self)
                return EngineError(
                    .kindMismatch, "kind \(name): the worker declares params \(theirs.prefix(300)), the server \(mine.prefix(300))")
            }
        }
        return nil
    }

    /// Equal as JSON: objects compared by key, whatever their keys' order; numbers by value.
    static func sameJSON(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        if let left = lhs.objectValue, let right = rhs.objectValue {
            guard Set(left.keys) == Set(right.keys) else { return false }
            return left.keys.allSatisfy { sameJSON(left[$0]!, right[$0]!) }
        }
        if let left = lhs.arrayValue, let right = rhs.arrayValue {
            return left.count == right.count && zip(left, right).allSatisfy { sameJSON($0, $1) }
        }
        // Numbers as numbers: 1 and 1.0 are one value once written and read again.
        if let left = lhs.doubleValue, let right = rhs.doubleValue { return left == right }
        return lhs == rhs
    }
}
