/// Which pages may open a WebSocket or import `/client.js`: the server's own origin (the `Origin`'s
/// host equals the `Host` header) and the origins `--allow-origin` lists. A browser sends the page's
/// origin; other clients send none and are not asked.
enum OriginPolicy {
    static func isAllowed(origin: String, host: String, allowList: [String]) -> Bool {
        if allowList.contains(origin) || allowList.contains("*") { return true }
        for scheme in ["http://", "https://"] where origin.hasPrefix(scheme) {
            return String(origin.dropFirst(scheme.count)).lowercased() == host.lowercased()
        }
        return false
    }
}
