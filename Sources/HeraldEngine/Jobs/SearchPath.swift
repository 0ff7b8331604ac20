import Foundation

/// Where a search looks: the real (symlink-free) search root and the real folder the `path` param
/// names inside it. Paths are compared as bytes, never as Swift strings, whose equality is Unicode
/// canonical equivalence and would let two different file names compare equal.
///
/// Thread: any (pure apart from reading the file system).
struct SearchPath {
    let root: String
    let folder: String

    /// `folder` relative to `root`: "" for the root itself.
    var relativeFolder: String {
        folder.utf8.count == root.utf8.count ? "" : String(decoding: folder.utf8.dropFirst(Self.prefixLength(root)), as: UTF8.self)
    }

    /// Resolves the `path` param. Refuses, naming the field, anything that leaves the root, by `..`
    /// or through a symlink, and the data directory (the search never reads its own data).
    static func resolve(_ relative: String?, environment: JobEnvironment) throws(EngineError) -> SearchPath {
        guard let root = real(environment.searchRoot.path) else {
            throw EngineError(.internalError, "the search root \(environment.searchRoot.path) does not exist")
        }
        guard let relative, !relative.isEmpty else { return SearchPath(root: root, folder: root) }
        guard !relative.hasPrefix("/") else { throw .badRequest(field: "path", "must be relative to the search root") }
        guard !relative.utf8.contains(0) else { throw .badRequest(field: "path", "must not contain NUL") }
        // Lexically first, for a clear message; `realpath` below is what decides.
        var depth = 0
        for component in relative.split(separator: "/") where component != "." {
            depth += component == ".." ? -1 : 1
            guard depth >= 0 else { throw .badRequest(field: "path", "must stay inside the search root") }
        }
        guard let folder = real(join(root, relative)) else { throw .badRequest(field: "path", "no such folder: \(relative)") }
        guard isInside(folder, root) else { throw .badRequest(field: "path", "leads outside the search root (through a symlink)") }
        guard isDirectory(folder) else { throw .badRequest(field: "path", "is not a folder: \(relative)") }
        if let data = real(environment.dataDirectory.path), isInside(folder, data) {
            throw .badRequest(field: "path", "is the server's data directory")
        }
        return SearchPath(root: root, folder: folder)
    }

    /// The path with every symlink, `.` and `..` resolved; nil when it does not exist.
    static func real(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// True when `path` is `folder` or below it, comparing bytes.
    static func isInside(_ path: String, _ folder: String) -> Bool {
        if path.utf8.elementsEqual(folder.utf8) { return true }
        let prefix = folder.utf8.last == UInt8(ascii: "/") ? Array(folder.utf8) : Array(folder.utf8) + [UInt8(ascii: "/")]
        return path.utf8.starts(with: prefix)
    }

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// How many bytes of a path below `root` to drop to make it relative.
    static func prefixLength(_ root: String) -> Int {
        root.hasSuffix("/") ? root.utf8.count : root.utf8.count + 1
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
