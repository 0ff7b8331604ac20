import Foundation

/// Replaces a file readable by its owner only (mode 0600) so that a reader sees the old content or the
/// new, never half of either, even across a crash: a temporary file in the same folder (created 0600,
/// so the content is never readable by others, not even for a moment), fsync, rename over the target,
/// fsync the folder so the rename itself is durable. Thread: any (no shared state).
enum OwnerOnlyFile {
    static func write(_ data: Data, to path: String) throws(UsersFileError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = "\(folder)/.\(url.lastPathComponent).tmp-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(errno, path, "cannot create a file in \(folder)") }
        var failed: UsersFileError?
        // fchmod as well: a umask can only take bits away, but the mode must be exactly 0600.
        if fchmod(descriptor, 0o600) != 0 { failed = failure(errno, path, "cannot set the mode of \(temporary)") }
        if failed == nil {
            failed = data.withUnsafeBytes { buffer -> UsersFileError? in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return failure(errno, path, "cannot write \(temporary)")
                    }
                    offset += written
                }
                return nil
            }
        }
        if failed == nil, fsync(descriptor) != 0 { failed = failure(errno, path, "cannot fsync \(temporary)") }
        close(descriptor)
        if failed == nil, rename(temporary, path) != 0 { failed = failure(errno, path, "cannot rename \(temporary) over it") }
        if let failed {
            unlink(temporary)
            throw failed
        }
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// `code` first: errno is read before building the message can change it.
    private static func failure(_ code: Int32, _ path: String, _ what: String) -> UsersFileError {
        UsersFileError(path: path, "\(what): \(String(cString: strerror(code)))")
    }
}

extension UsersFile {
    /// Writes the file atomically with mode 0600 (`OwnerOnlyFile`).
    public func save(path: String) throws(UsersFileError) {
        try OwnerOnlyFile.write(encoded(), to: path)
    }
}
