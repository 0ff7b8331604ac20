import Foundation

/// Serves the dashboard's files from one folder. Paths with `..`, hidden names, or that resolve
/// outside the folder (a symlink) are not found. Thread: the service thread (reads small files).
public struct StaticFiles: Sendable {
    public let root: URL?

    public init(root: URL?) {
        self.root = root.map { $0.standardizedFileURL.resolvingSymlinksInPath() }
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "ico": "image/x-icon", "json": "application/json", "txt": "text/plain; charset=utf-8",
        "webmanifest": "application/manifest+json",
    ]

    public func response(for path: String) -> HTTPResponse {
        guard let root else {
            return .text("Herald is running, but no dashboard folder was found. Start it with --public DIR.\n", status: 404)
        }
        let relative = path == "/" ? "index.html" : String(path.drop(while: { $0 == "/" }))
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.isEmpty,
            components.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") && !$0.contains("\\") && !$0.contains("\0") })
        else { return notFound }
        let file = root.appendingPathComponent(relative).standardizedFileURL.resolvingSymlinksInPath()
        guard file.path.hasPrefix(root.path + "/") else { return notFound }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: file.path)
        else { return notFound }
        let type = Self.contentTypes[file.pathExtension.lowercased()] ?? "application/octet-stream"
        return HTTPResponse(status: 200, contentType: type, body: Array(data))
    }

    private var notFound: HTTPResponse { .text("Not found\n", status: 404) }
}
