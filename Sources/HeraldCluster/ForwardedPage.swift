import HeraldEngine

/// A page answer as it travels from the node that holds a job to the node that asked for it (a
/// Redis list): `{"page": {…}}` or `{"error": {"code", "message"}}`. Pure encoding, no state.
enum ForwardedPage {
    static func encode(_ result: Result<ResultPage, EngineError>) -> [UInt8] {
        switch result {
        case .success(let page):
            let object: JSONObject = [
                "offset": .int(Int64(page.offset)), "total": .int(Int64(page.total)), "values": .array(page.values),
                "isLog": .bool(page.isLog), "first": .int(Int64(page.first)),
            ]
            return JSONWriter.encode(.object(["page": .object(object)]))
        case .failure(let error):
            return JSONWriter.encode(
                .object(["error": .object(["code": .string(error.code.rawValue), "message": .string(error.message)])]))
        }
    }

    static func decode(_ bytes: [UInt8]) -> Result<ResultPage, EngineError> {
        guard case .object(let outer)? = try? JSONParser.parse(bytes) else { return .failure(garbled) }
        if case .object(let error)? = outer["error"] {
            guard case .string(let code)? = error["code"], let known = ErrorCode(rawValue: code),
                case .string(let message)? = error["message"]
            else { return .failure(garbled) }
            return .failure(EngineError(known, message))
        }
        guard case .object(let page)? = outer["page"], case .int(let offset)? = page["offset"], case .int(let total)? = page["total"],
            case .array(let values)? = page["values"], case .bool(let isLog)? = page["isLog"], case .int(let first)? = page["first"]
        else { return .failure(garbled) }
        return .success(ResultPage(offset: Int(offset), total: Int(total), values: values, isLog: isLog, first: Int(first)))
    }

    private static var garbled: EngineError { EngineError(.internalError, "the node that holds the job sent a page that does not parse") }
}
