import Foundation

/// Writes a file so that a reader sees the old content or the new, never half of it, even across a
/// crash: a temporary file in the same folder, fsync, rename over the target, fsync the folder.
public enum AtomicFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `permissions`: the new file's mode (before the umask); 0o600 for a file holding secrets, which
    /// then is never readable by others, not even as the temporary file.
    public static func write(_ data: Data, to url: URL, permissions: mode_t = 0o644) throws {
        try write(to: url, permissions: permissions) { descriptor in
            try data.withUnsafeBytes { buffer in
                try writeAll(descriptor, buffer)
            }
        }
    }

    /// Creates the temporary file, lets `fill` write it through its descriptor, then commits it.
    /// When `fill` throws (a cancel, say) the temporary file is removed and the target is untouched.
    public static func write(to url: URL, permissions: mode_t = 0o644, fill: (Int32) throws -> Void) throws {
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw Failure(description: "cannot create \(temporary.path): \(String(cString: strerror(errno)))") }
        do {
            try fill(descriptor)
            guard fsync(descriptor) == 0 else { throw Failure(description: "fsync failed: \(String(cString: strerror(errno)))") }
            close(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw Failure(description: "cannot rename into \(url.path): \(reason)")
        }
        let folderDescriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// Removes the temporary files that `write` leaves in `folder` when the process dies before
    /// the rename (`.<name>.tmp-<UUID>`), and returns how many. Call it only while nothing in this
    /// process writes there (at start-up). Thread: any.
    @discardableResult
    public static func removeLeftovers(in folder: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var removed = 0
        for name in names where name.hasPrefix(".") {
            guard let marker = name.range(of: ".tmp-", options: .backwards), UUID(uuidString: String(name[marker.upperBound...])) != nil
            else { continue }
            if unlink(folder.appendingPathComponent(name).path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Writes every byte, retrying short writes and interrupted calls.
    public static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "write failed: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}
