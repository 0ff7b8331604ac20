/// Herald's version, printed by `--version` and reported by `/healthz`.
enum Version {
    static let herald = "0.1.0"
}
