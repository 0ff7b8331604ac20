import HeraldRedis

/// One call of one of the cluster's Lua scripts (docs/scaling.md, "The scripts"). Redis runs a script
/// alone, so each is one step no other node can interleave with: that is how `seq` stays gapless and
/// identical everywhere, how the busy rule holds across nodes, and how a node that lost a job cannot
/// write over it.
///
/// A script's KEYS and ARGV are positional in Lua (`KEYS[3]`, `ARGV[7]`); on the Swift side each
/// script's type names and types them (its `Keys` and `Args`), and `keyList`/`argList` are the one
/// place that puts them in the order the Lua reads them. `ClusterScriptTests` checks that every index
/// a script reads is one its type sends, and runs `luacheck` on every script.
/// Every key a script touches by name is in KEYS (`ClusterKeys`); the few it builds from the prefix
/// (`active:<kind>`, a job's `results:`/`log:`/`logfirst:`, as `append` does for each event of a
/// batch) are why a cluster needs one Redis server, not a
/// Redis Cluster.
protocol ClusterScript: Sendable {
    /// The Lua source, and a name for messages. Defined once (a `static let`): connections cache its SHA1.
    static var script: RedisScript { get }
    /// KEYS, in the order the Lua reads them.
    var keyList: [String] { get }
    /// ARGV, in the order the Lua reads them; a variadic tail (items, lines, fields) last.
    var argList: [[UInt8]] { get }
}

extension ClusterScript {
    /// ARGV as text (UTF-8).
    static func text(_ value: String) -> [UInt8] { Array(value.utf8) }
    /// ARGV as a number in decimal (Lua's `tonumber`).
    static func number(_ value: some BinaryInteger) -> [UInt8] { Array(String(value).utf8) }
    /// ARGV as a flag: '1' or '' (the scripts test `== '1'`).
    static func flag(_ value: Bool) -> [UInt8] { value ? Array("1".utf8) : [] }
}
