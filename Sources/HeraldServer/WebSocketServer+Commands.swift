import CLibWebSockets
import HeraldEngine

/// Inbound messages and the commands they carry. Thread: the service thread.
extension WebSocketServer {
    func receive(_ bytes: UnsafeRawBufferPointer, on wsi: OpaquePointer) -> CallbackAction {
        guard let connection = connections[wsi] else { return .proceed }
        // Closing (1009 below): what is still arriving is read and dropped, so lws stays in step
        // with the frames and the close frame goes out at the next writable callback.
        if connection.pendingClose != nil { return .proceed }
        if connection.inbound.isEmpty { connection.inboundIsBinary = lws_frame_is_binary(wsi) != 0 }
        let limit = connection.isEcho ? configuration.echoMaxMessageBytes : configuration.maxMessageBytes
        guard connection.inbound.count + bytes.count <= limit else {
            connection.inbound = []
            connection.outbox.removeAll()
            connection.pendingClose = (1009, "message over \(limit) bytes")
            lws_callback_on_writable(wsi)
            return .proceed
        }
        connection.inbound.append(contentsOf: bytes)
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return .proceed }
        let message = connection.inbound
        connection.inbound.removeAll(keepingCapacity: connection.inbound.capacity <= 4096)
        if connection.isEcho {
            let opcode = connection.inboundIsBinary ? WebSocketFrame.binaryOpcode : WebSocketFrame.textOpcode
            connection.outbox.append(OutboundFrame(kind: .reply, bytes: WebSocketFrame.frame(opcode: opcode, message)))
            lws_callback_on_writable(wsi)
            return .proceed
        }
        if connection.inboundIsBinary {
            reply(connection, WireEncoder.error(EngineError(.badRequest, "commands are JSON text frames, not binary"), requestId: nil), on: wsi)
            return .proceed
        }
        handleMessage(message, from: connection, on: wsi)
        return .proceed
    }

    func handleMessage(_ message: [UInt8], from connection: Connection, on wsi: OpaquePointer) {
        guard connection.commandBucket.take(now: uptime()) else {
            metrics.countCommand("any", outcome: ErrorCode.rateLimited.rawValue)
            // Each refusal is answered while this client's backlog is small; once its replies pile up
            // (half the outbox cap) further refusals are dropped, so a flood cannot grow memory.
            if connection.outbox.pendingBytes < configuration.outboxCapBytes / 2 {
                reply(connection, WireEncoder.error(EngineError(.rateLimited, "too many commands; at most \(Int(configuration.commandsPerSecond)) per second"), requestId: nil), on: wsi)
            }
            return
        }
        let command: Command
        switch CommandDecoder.decode(message) {
        case .failure(let refusal):
            metrics.countCommand("invalid", outcome: refusal.error.code.rawValue)
            reply(connection, WireEncoder.error(refusal.error, requestId: refusal.requestId), on: wsi)
            return
        case .success(let decoded):
            command = decoded
        }
        let outcome = execute(command, from: connection, on: wsi)
        metrics.countCommand(command.typeName, outcome: outcome?.code.rawValue ?? "ok")
    }

    /// Runs one command and queues its reply; returns the error it answered with, if any.
    private func execute(_ command: Command, from connection: Connection, on wsi: OpaquePointer) -> EngineError? {
        func answer(_ result: Result<JobRecord, EngineError>, requestId: String?) -> EngineError? {
            switch result {
            case .success(let job):
                reply(connection, WireEncoder.accepted(requestId: requestId, job: job), on: wsi)
                return nil
            case .failure(let error):
                reply(connection, WireEncoder.error(error, requestId: requestId), on: wsi)
                return error
            }
        }
        func unauthorized(_ requestId: String?) -> EngineError? {
            let error = EngineError(.unauthorized, "this server needs a token to start or cancel jobs")
            reply(connection, WireEncoder.error(error, requestId: requestId), on: wsi)
            return error
        }
        switch command {
        case .start(let request):
            guard connection.isAuthorized else { return unauthorized(request.requestId) }
            return answer(engine.start(request), requestId: request.requestId)
        case .cancel(let job, let requestId):
            guard connection.isAuthorized else { return unauthorized(requestId) }
            return answer(engine.cancel(job), requestId: requestId)
        case .resume(let epoch, let since):
            resume(connection, epoch: epoch, since: since)
            lws_callback_on_writable(wsi)
            return nil
        case .page(let job, let offset, let limit, let requestId):
            switch engine.page(job: job, offset: offset, limit: limit) {
            case .success(let page):
                reply(connection, WireEncoder.page(page, job: JobID(job), requestId: requestId), on: wsi)
                return nil
            case .failure(let error):
                reply(connection, WireEncoder.error(error, requestId: requestId), on: wsi)
                return error
            }
        case .ping:
            reply(connection, WireEncoder.pong, on: wsi)
            return nil
        case .auth(let token, let requestId):
            guard authorizer.accepts(token) else { return unauthorized(requestId) }
            connection.isAuthorized = true
            var object: JSONObject = ["type": "accepted"]
            if let requestId { object["requestId"] = .string(requestId) }
            reply(connection, JSONWriter.encode(.object(object)), on: wsi)
            return nil
        }
    }
}
