import HeraldEngine

/// The REST API, `/healthz`, `/metrics` and the dashboard's files (docs/rest.md). Every route goes
/// through the same dispatcher as WebSocket commands: there is one truth.
/// Thread: the service thread (it reads the server's metrics, which live there).
struct HTTPAPI {
    let engine: JobDispatcher
    let files: StaticFiles
    let version: String
    let authorizer: Authorizer

    /// What the router needs from the server at the moment of a request.
    struct Status {
        var metrics: ServerMetrics
        var uptimeSeconds: Double
    }

    func respond(to request: HTTPRequest, status: Status) -> HTTPResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (request.method, segments.first) {
        case ("GET", "healthz"?) where segments.count == 1:
            let statistics = engine.currentStatistics()
            return .json([
                "status": "ok", "version": .string(version), "uptime": .double(status.uptimeSeconds),
                "connections": .int(Int64(status.metrics.connectionsOpen)), "jobsRunning": .int(Int64(statistics.jobsRunning)),
                "epoch": .string(engine.epoch), "seq": .int(statistics.seq),
            ])
        case ("GET", "metrics"?) where segments.count == 1:
            let text = status.metrics.render(engine: engine.currentStatistics(), uptimeSeconds: status.uptimeSeconds)
            return .text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        case (_, "api"?):
            return api(request, Array(segments.dropFirst()))
        case ("GET", _):
            return files.response(for: request.path)
        default:
            return methodNotAllowed(request.method)
        }
    }

    private func api(_ request: HTTPRequest, _ path: [String]) -> HTTPResponse {
        switch (request.method, path.count, path.first) {
        case ("GET", 1, "news"?):
            return .json(engine.newsFeed().json)
        case ("GET", 1, "jobs"?):
            let snapshot = engine.snapshot()
            return .json(["seq": .int(snapshot.seq), "epoch": .string(snapshot.epoch), "jobs": .array(snapshot.jobs.map(\.json))])
        case ("POST", 1, "jobs"?):
            return startJob(request)
        case ("GET", 2, "jobs"?):
            guard let job = engine.job(path[1]) else { return .error(EngineError(.notFound, "no job \(path[1])")) }
            return .json(job.json)
        case ("POST", 3, "jobs"?) where path[2] == "cancel":
            if let refusal = authorizer.refusal(forBearer: request.authorization) { return .error(refusal) }
            switch engine.cancel(path[1]) {
            case .success(let job): return .json(job.json, status: 202)
            case .failure(let error): return .error(error)
            }
        case ("GET", 3, "jobs"?) where path[2] == "results":
            return results(request, job: path[1])
        case (_, _, "news"?), (_, _, "jobs"?):
            return methodNotAllowed(request.method)
        default:
            return .error(EngineError(.notFound, "no such endpoint: \(request.method) \(request.path)"))
        }
    }

    private func startJob(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = authorizer.refusal(forBearer: request.authorization) { return .error(refusal) }
        // The body is a WebSocket `start` command; its `type` may be left out.
        var value: JSONValue
        do { value = try JSONParser.parse(request.body, maxDepth: CommandDecoder.maxDepth) } catch {
            return .error(EngineError(.badJSON, "not valid JSON: \(error)"))
        }
        if var object = value.objectValue, object["type"] == nil {
            object["type"] = "start"
            value = .object(object)
        }
        switch CommandDecoder.decode(json: value) {
        case .failure(let refusal):
            return .error(refusal.error)
        case .success(.start(let start)):
            switch engine.start(start) {
            case .success(let job): return .json(job.json, status: 202)
            case .failure(let error): return .error(error)
            }
        case .success(let other):
            return .error(.badRequest(field: "type", "must be \"start\" here, not \"\(other.typeName)\""))
        }
    }

    private func results(_ request: HTTPRequest, job: String) -> HTTPResponse {
        func integer(_ name: String, default value: Int) -> Int? {
            guard let text = request.query[name] else { return value }
            return Int(text)
        }
        guard let offset = integer("offset", default: 0), offset >= 0 else {
            return .error(.badRequest(field: "offset", "must be an integer of 0 or more"))
        }
        guard let limit = integer("limit", default: CommandDecoder.defaultPageLimit), (1...10_000).contains(limit) else {
            return .error(.badRequest(field: "limit", "must be an integer from 1 to 10000"))
        }
        switch engine.page(job: job, offset: offset, limit: limit) {
        case .success(let page):
            return .json([
                "job": .string(job), "offset": .int(Int64(page.offset)), "total": .int(Int64(page.total)), "values": .array(page.values),
            ])
        case .failure(let error):
            return .error(error)
        }
    }

    private func methodNotAllowed(_ method: String) -> HTTPResponse {
        var response = HTTPResponse.json(["code": "method_not_allowed", "message": .string("\(method) is not allowed here")], status: 405)
        response.headers.append(("allow:", "GET, POST"))
        return response
    }
}
