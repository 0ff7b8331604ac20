import Foundation

/// Opens a search's files relative to their folder (`openat`), keeping the last folder open: the
/// kernel then walks one name per file instead of the whole path, which was 4 % of a search's
/// samples on 3,000 files in 20 folders (docs/benchmarks.md). Parts come in listing order, so a
/// stripe's consecutive parts are mostly in one folder, opened once per run of them.
///
/// The folder is opened with O_NOFOLLOW like the file: one swapped for a symlink since the listing
/// is not followed (opening the whole path followed a symlink anywhere but at its end).
///
/// Thread: the one stripe that made it; never shared.
final class SearchFolderCache {
    private var folder = -1
    private var descriptor: Int32 = -1

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The file opened read-only, not following a symlink, without blocking on a FIFO; -1 when it
    /// cannot be. Files listed without a folder (tests) are opened by their path.
    func open(_ file: SearchFile) -> Int32 {
        let flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        guard file.folder >= 0, let name = file.name else { return Glibc.open(file.path, flags) }
        if file.folder != folder {
            if descriptor >= 0 { close(descriptor) }
            folder = file.folder
            let parent = String(decoding: file.path.utf8.dropLast(name.utf8.count + 1), as: UTF8.self)
            let path = parent.isEmpty ? "/" : parent  // A file right under "/".
            descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW)
        }
        guard descriptor >= 0 else { return -1 }
        return openat(descriptor, name, flags)
    }
}
