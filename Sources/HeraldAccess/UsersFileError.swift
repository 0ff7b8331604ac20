/// Why a users file cannot be read or written: the file, where in it (a JSON line and column, or a
/// field such as `users[1] "bob" .role`), and the problem. Never quotes a password or a hash.
public struct UsersFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String?
    public var location: String?
    public var problem: String

    public init(path: String? = nil, location: String? = nil, _ problem: String) {
        self.path = path
        self.location = location
        self.problem = problem
    }

    public var description: String {
        [path, location].compactMap { $0 }.map { "\($0): " }.joined() + problem
    }
}
