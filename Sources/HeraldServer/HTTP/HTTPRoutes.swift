import HeraldAccess
import HeraldEngine

/// Every REST route, `/healthz` and `/metrics` (docs/rest.md), one declaration each: a new endpoint
/// is one more entry here. Every route goes through the same engine as WebSocket commands: there
/// is one truth.
enum HTTPRoutes {
    static let all: [HTTPEndpoint] = routes + sharing + session

    private static let routes: [HTTPEndpoint] = [
        HTTPEndpoint("GET /healthz", isOpen: true, handle: { _ in .ask(.statistics) }, render: health),
        // The REST API's own description (docs/api.md). It lives in the dashboard's folder, so the server
        // finds it wherever it finds the dashboard: the checkout's Public/ or the installed share/herald/Public.
        HTTPEndpoint("GET /api/openapi.json", isOpen: true, handle: { _ in .file("/openapi.json") }),
        // Who the request proved to be: the dashboard's header, and a program checking its key.
        HTTPEndpoint("GET /api/session", handle: { call in .respond(.json(call.principal.json)) }),
        HTTPEndpoint(
            "GET /metrics", handle: { _ in .ask(.metrics) },
            render: { answer in
                guard case .statistics(let statistics) = answer.reply else { return unexpected(answer) }
                let text = answer.status.metrics.render(
                    engine: statistics, heap: statistics.heap, uptimeSeconds: answer.status.uptimeSeconds)
                return .text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
            }),
        HTTPEndpoint(
            "GET /api/news", handle: { call in call.refusalOutsideScope(of: "read the news").map { .respond($0) } ?? .ask(.news) },
            render: { answer in
                guard case .news(let feed) = answer.reply else { return unexpected(answer) }
                return .json(feed.json)
            }),
        HTTPEndpoint(
            "GET /api/workers",
            handle: { call in call.refusalOutsideScope(of: "see the workers").map { .respond($0) } ?? .ask(.workers) },
            render: { answer in
                guard case .workers(let workers) = answer.reply else { return unexpected(answer) }
                return .json(["workers": .array(workers.map(\.json))])
            }),
        HTTPEndpoint(
            "GET /api/jobs",
            handle: { call in
                // With any of `state`, `kind`, `before`, `limit`: a history page; without, the snapshot's list.
                switch HistoryQuery.parse(call.request.query) {
                case nil: return .ask(.snapshot)
                case .success(var query)?:
                    // A scoped principal's page holds only its jobs, whatever the filters asked.
                    let scope = call.principal.scope
                    if let kinds = scope.kinds {
                        let allowed = Set(kinds.map { JobKind($0) })
                        query.kinds = query.kinds.map { $0.intersection(allowed) } ?? allowed
                    }
                    if let jobs = scope.jobs { query.jobs = jobs }
                    return .ask(.history(query))
                case .failure(let error)?: return .respond(.error(error))
                }
            },
            render: { answer in
                switch answer.reply {
                case .snapshot(let snapshot):
                    let jobs = snapshot.jobs.filter { answer.sees($0) }
                    return .json(["seq": .int(snapshot.seq), "epoch": .string(snapshot.epoch), "jobs": .array(jobs.map(\.json))])
                case .history(let result):
                    return result.map { .json($0.json) }.orError
                default:
                    return unexpected(answer)
                }
            }),
        HTTPEndpoint(
            "GET /api/schedules",
            handle: { call in call.refusalOutsideScope(of: "see schedules").map { .respond($0) } ?? .ask(.schedules) },
            render: { answer in
                guard case .schedules(let schedules) = answer.reply else { return unexpected(answer) }
                return .json(["schedules": .array(schedules.map(\.json))])
            }),
        HTTPEndpoint(
            "POST /api/schedules/{name}/{action}", handle: controlSchedule,
            render: { answer in
                guard case .schedule(let result) = answer.reply else { return unexpected(answer) }
                return result.map { .json($0.json) }.orError
            }),
        HTTPEndpoint(
            "GET /api/webhooks",
            handle: { call in call.refusalOutsideScope(of: "see webhooks").map { .respond($0) } ?? .ask(.webhooks) },
            render: { answer in
                guard case .webhooks(let webhooks) = answer.reply else { return unexpected(answer) }
                return .json(["webhooks": .array(webhooks.map(\.json))])
            }),
        HTTPEndpoint("POST /api/jobs", handle: startJob, render: { job($0, status: 202) }),
        HTTPEndpoint("GET /api/jobs/{id}", handle: { .ask(.job($0.parameters[0])) }, render: { job($0, status: 200) }),
        HTTPEndpoint(
            "POST /api/jobs/{id}/cancel",
            handle: { call in
                if let refusal = call.refusal(of: .cancelOwn) { return .respond(refusal) }
                if let error = call.reach(call.parameters[0]) { return .respond(.error(error)) }
                return .ask(.cancel(call.parameters[0], by: call.principal))
            }, render: { job($0, status: 202) }),
        HTTPEndpoint(
            "GET /api/jobs/{id}/results", handle: page,
            render: { answer in
                guard case .page(let result) = answer.reply else { return unexpected(answer) }
                return result.map { page in
                    .json([
                        "job": .string(answer.parameters[0]), "offset": .int(Int64(page.offset)), "total": .int(Int64(page.total)),
                        "values": .array(page.values),
                    ])
                }.orError
            }),
        HTTPEndpoint(
            "GET /api/jobs/{id}/log", handle: page,
            render: { answer in
                guard case .page(let result) = answer.reply else { return unexpected(answer) }
                let job = answer.parameters[0]
                return result.map { page in
                    guard page.isLog else {
                        return .error(EngineError(.notFound, "job \(job) keeps no log (only jobs of kinds from a jobs file do)"))
                    }
                    return .json([
                        "job": .string(job), "offset": .int(Int64(page.offset)), "total": .int(Int64(page.total)),
                        "first": .int(Int64(page.first)), "lines": .array(page.values),
                    ])
                }.orError
            }),
    ]

    /// `POST /api/schedules/{name}/{action}`: pause, resume or run, with the token a start needs.
    private static func controlSchedule(_ call: HTTPEndpoint.Call) -> HTTPEndpoint.Handling {
        if let refusal = call.refusal(of: .controlSchedule) ?? call.refusalOutsideScope(of: "control schedules") {
            return .respond(refusal)
        }
        guard let action = ScheduleAction(rawValue: call.parameters[1]) else {
            let actions = ScheduleAction.allCases.map(\.rawValue).joined(separator: ", ")
            return .respond(.error(EngineError(.notFound, "no action \"\(call.parameters[1])\" on a schedule; actions: \(actions)")))
        }
        return .ask(.controlSchedule(name: call.parameters[0], action))
    }

    private static func health(_ answer: HTTPEndpoint.Answer) -> HTTPResponse {
        guard case .statistics(let statistics) = answer.reply else { return unexpected(answer) }
        var health: JSONObject = [
            "status": statistics.degraded == nil ? "ok" : "degraded", "version": .string(answer.version),
            "uptime": .double(answer.status.uptimeSeconds), "connections": .int(Int64(answer.status.metrics.connectionsOpen)),
            "jobsRunning": .int(Int64(statistics.jobsRunning)), "epoch": .string(statistics.epoch ?? answer.status.epoch),
            "seq": .int(statistics.seq),
        ]
        if let reason = statistics.degraded { health["reason"] = .string(reason) }
        if let cluster = statistics.cluster { health["node"] = .string(cluster.node) }
        return .json(.object(health), status: statistics.degraded == nil ? 200 : 503)
    }

    private static func job(_ answer: HTTPEndpoint.Answer, status: Int) -> HTTPResponse {
        guard case .job(let result) = answer.reply else { return unexpected(answer) }
        if case .success(let record) = result, !answer.sees(record) {
            return .error(EngineError(.notFound, "no job \(record.id)"))
        }
        return result.map { .json($0.json, status: status) }.orError
    }

    private static func startJob(_ call: HTTPEndpoint.Call) -> HTTPEndpoint.Handling {
        // The body is a WebSocket `start` command; its `type` may be left out.
        var value: JSONValue
        do { value = try JSONParser.parse(call.request.body, maxDepth: CommandDecoder.maxDepth) } catch {
            return .respond(.error(EngineError(.badJSON, "not valid JSON: \(error)")))
        }
        if var object = value.objectValue, object["type"] == nil {
            object["type"] = "start"
            value = .object(object)
        }
        switch CommandDecoder.decode(json: value) {
        case .failure(let refusal):
            return .respond(.error(refusal.error))
        case .success(.start(var start)):
            if let refusal = call.refusal(of: .start(kind: start.kind)) { return .respond(refusal) }
            start.startedBy = call.principal.name
            return .ask(.start(start))
        case .success(let other):
            return .respond(.error(.badRequest(field: "type", "must be \"start\" here, not \"\(other.typeName)\"")))
        }
    }

    /// A page of a job's results or (for a command job) its kept log: the same engine request.
    private static func page(_ call: HTTPEndpoint.Call) -> HTTPEndpoint.Handling {
        if let error = call.reach(call.parameters[0]) { return .respond(.error(error)) }
        func integer(_ name: String, default value: Int) -> Int? {
            guard let text = call.request.query[name] else { return value }
            return Int(text)
        }
        guard let offset = integer("offset", default: 0), offset >= 0 else {
            return .respond(.error(.badRequest(field: "offset", "must be an integer of 0 or more")))
        }
        guard let limit = integer("limit", default: CommandDecoder.defaultPageLimit), (1...10_000).contains(limit) else {
            return .respond(.error(.badRequest(field: "limit", "must be an integer from 1 to 10000")))
        }
        return .ask(.page(job: call.parameters[0], offset: offset, limit: limit))
    }

    private static func unexpected(_ answer: HTTPEndpoint.Answer) -> HTTPResponse {
        .error(EngineError(.internalError, "the engine answered with something else: \(answer.reply)"))
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
