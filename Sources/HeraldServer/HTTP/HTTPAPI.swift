import HeraldEngine

/// The REST API, `/healthz`, `/metrics` and the dashboard's files (docs/rest.md), as pure routing:
/// a request becomes an immediate response, a question for the engine (answered later through the
/// inbox and rendered by `render`), or a file to read off the service thread. Every route goes
/// through the same engine as WebSocket commands: there is one truth. Thread: the service thread.
struct HTTPAPI {
    let version: String
    let authorizer: Authorizer

    /// Where a request goes.
    enum Route {
        case respond(HTTPResponse)
        case ask(EngineRequest, HTTPQuery)
        case file(String)
    }

    /// What the hub knows at the moment an answer is rendered.
    struct Status {
        var metrics: ServerMetrics
        var uptimeSeconds: Double
        var epoch: String
    }

    func route(_ request: HTTPRequest) -> Route {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (request.method, segments.first) {
        case ("GET", "healthz"?) where segments.count == 1:
            return .ask(.statistics, .healthz)
        case ("GET", "metrics"?) where segments.count == 1:
            return .ask(.statistics, .metrics)
        case (_, "api"?):
            return api(request, Array(segments.dropFirst()))
        case ("GET", _):
            return .file(request.path)
        default:
            return .respond(methodNotAllowed(request.method))
        }
    }

    private func api(_ request: HTTPRequest, _ path: [String]) -> Route {
        switch (request.method, path.count, path.first) {
        case ("GET", 1, "news"?):
            return .ask(.news, .news)
        case ("GET", 1, "workers"?):
            return .ask(.workers, .workers)
        case ("GET", 1, "jobs"?):
            // With any of `state`, `kind`, `before`, `limit`: a history page; without, the snapshot's list.
            switch HistoryQuery.parse(request.query) {
            case nil: return .ask(.snapshot, .jobs)
            case .success(let query)?: return .ask(.history(query), .history)
            case .failure(let error)?: return .respond(.error(error))
            }
        case ("POST", 1, "jobs"?):
            return startJob(request)
        case ("GET", 2, "jobs"?):
            return .ask(.job(path[1]), .job)
        case ("POST", 3, "jobs"?) where path[2] == "cancel":
            if let refusal = authorizer.refusal(forBearer: request.authorization) { return .respond(.error(refusal)) }
            return .ask(.cancel(path[1]), .cancel)
        case ("GET", 3, "jobs"?) where path[2] == "results":
            return results(request, job: path[1], as: .results(job: path[1]))
        case ("GET", 3, "jobs"?) where path[2] == "log":
            return results(request, job: path[1], as: .log(job: path[1]))
        case (_, _, "news"?), (_, _, "jobs"?), (_, 1, "workers"?):
            return .respond(methodNotAllowed(request.method))
        default:
            return .respond(.error(EngineError(.notFound, "no such endpoint: \(request.method) \(request.path)")))
        }
    }

    private func startJob(_ request: HTTPRequest) -> Route {
        if let refusal = authorizer.refusal(forBearer: request.authorization) { return .respond(.error(refusal)) }
        // The body is a WebSocket `start` command; its `type` may be left out.
        var value: JSONValue
        do { value = try JSONParser.parse(request.body, maxDepth: CommandDecoder.maxDepth) } catch {
            return .respond(.error(EngineError(.badJSON, "not valid JSON: \(error)")))
        }
        if var object = value.objectValue, object["type"] == nil {
            object["type"] = "start"
            value = .object(object)
        }
        switch CommandDecoder.decode(json: value) {
        case .failure(let refusal):
            return .respond(.error(refusal.error))
        case .success(.start(let start)):
            return .ask(.start(start), .start)
        case .success(let other):
            return .respond(.error(.badRequest(field: "type", "must be \"start\" here, not \"\(other.typeName)\"")))
        }
    }

    /// A page of a job's results or (for a command job) its kept log: the same engine request.
    private func results(_ request: HTTPRequest, job: String, as query: HTTPQuery) -> Route {
        func integer(_ name: String, default value: Int) -> Int? {
            guard let text = request.query[name] else { return value }
            return Int(text)
        }
        guard let offset = integer("offset", default: 0), offset >= 0 else {
            return .respond(.error(.badRequest(field: "offset", "must be an integer of 0 or more")))
        }
        guard let limit = integer("limit", default: CommandDecoder.defaultPageLimit), (1...10_000).contains(limit) else {
            return .respond(.error(.badRequest(field: "limit", "must be an integer from 1 to 10000")))
        }
        return .ask(.page(job: job, offset: offset, limit: limit), query)
    }

    /// Turns the engine's answer to a routed request into the response.
    func render(_ query: HTTPQuery, _ reply: EngineReply, status: Status) -> HTTPResponse {
        switch (query, reply) {
        case (.healthz, .statistics(let statistics)):
            var health: JSONObject = [
                "status": statistics.degraded == nil ? "ok" : "degraded", "version": .string(version),
                "uptime": .double(status.uptimeSeconds), "connections": .int(Int64(status.metrics.connectionsOpen)),
                "jobsRunning": .int(Int64(statistics.jobsRunning)), "epoch": .string(statistics.epoch ?? status.epoch),
                "seq": .int(statistics.seq),
            ]
            if let reason = statistics.degraded { health["reason"] = .string(reason) }
            if let cluster = statistics.cluster { health["node"] = .string(cluster.node) }
            return .json(.object(health), status: statistics.degraded == nil ? 200 : 503)
        case (.metrics, .statistics(let statistics)):
            // Read here, per scrape, and not with the engine's statistics, which `/healthz` asks for too.
            let text = status.metrics.render(engine: statistics, heap: HeapFigures.read(), uptimeSeconds: status.uptimeSeconds)
            return .text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        case (.news, .news(let feed)):
            return .json(feed.json)
        case (.workers, .workers(let workers)):
            return .json(["workers": .array(workers.map(\.json))])
        case (.history, .history(let result)):
            return result.map { .json($0.json) }.orError
        case (.jobs, .snapshot(let snapshot)):
            return .json(["seq": .int(snapshot.seq), "epoch": .string(snapshot.epoch), "jobs": .array(snapshot.jobs.map(\.json))])
        case (.job, .job(let result)):
            return result.map { .json($0.json) }.orError
        case (.start, .job(let result)), (.cancel, .job(let result)):
            return result.map { .json($0.json, status: 202) }.orError
        case (.log(let job), .page(let result)):
            return result.map { page in
                guard page.isLog else {
                    return .error(EngineError(.notFound, "job \(job) keeps no log (only jobs of kinds from a jobs file do)"))
                }
                return .json([
                    "job": .string(job), "offset": .int(Int64(page.offset)), "total": .int(Int64(page.total)),
                    "first": .int(Int64(page.first)), "lines": .array(page.values),
                ])
            }.orError
        case (.results(let job), .page(let result)):
            return result.map { page in
                .json([
                    "job": .string(job), "offset": .int(Int64(page.offset)), "total": .int(Int64(page.total)),
                    "values": .array(page.values),
                ])
            }.orError
        default:
            return .error(EngineError(.internalError, "the engine answered \(query) with something else"))
        }
    }

    private func methodNotAllowed(_ method: String) -> HTTPResponse {
        var response = HTTPResponse.json(["code": "method_not_allowed", "message": .string("\(method) is not allowed here")], status: 405)
        response.headers.append(("allow:", "GET, POST"))
        return response
    }
}

extension Result where Success == HTTPResponse, Failure == EngineError {
    fileprivate var orError: HTTPResponse {
        switch self {
        case .success(let response): return response
        case .failure(let error): return .error(error)
        }
    }
}
