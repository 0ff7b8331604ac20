internal import CLibWebSockets

/// Reading request headers off a connection. Thread: the service thread, inside a callback where
/// lws still holds the headers (HTTP, or the WebSocket filter).
enum LWSHeaders {
    static func value(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0, length < 8192 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return text(buffer)
    }

    /// The query arguments (`?a=1&b=2`), decoded by lws.
    static func query(_ wsi: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        // Room for a JWT or a share link's token in `t` (tokens over 8 KiB are refused anyway).
        var buffer = [CChar](repeating: 0, count: 9 * 1024)
        for index in 0..<32 {
            let length = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, Int32(index))
            if length < 0 { break }
            let fragment = text(buffer)
            let parts = fragment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first, !key.isEmpty else { continue }
            result[String(key)] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }

    /// A header lws has no token for (`--trust-user-header`), by its lowercase name.
    static func custom(_ wsi: OpaquePointer, _ name: String) -> String? {
        let key = Array((name.lowercased() + ":").utf8CString.dropLast())
        let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.count)))
        guard length > 0, length < 8192 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), key, Int32(key.count)) >= 0 else { return nil }
        return text(buffer)
    }

    static func method(_ wsi: OpaquePointer) -> String {
        let methods: [(lws_token_indexes, String)] = [
            (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
            (WSI_TOKEN_PUT_URI, "PUT"), (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"),
            (WSI_TOKEN_HEAD_URI, "HEAD"),
        ]
        return methods.first { lws_hdr_total_length(wsi, $0.0) > 0 }?.1 ?? "UNKNOWN"
    }

    static func peer(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "?" }
        return text(buffer)
    }

    /// A NUL-terminated C buffer as a String (invalid UTF-8 is repaired, not trusted).
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
