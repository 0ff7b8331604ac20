/// The news feed: items newest first and a revision that grows by one with every change.
/// A plain value owned by the dispatcher queue.
public struct NewsFeed: Sendable, Hashable {
    public private(set) var revision: Int64 = 0
    public private(set) var items: [NewsItem] = []
    /// The most items kept; older ones fall off the end.
    public let capacity: Int

    public init(capacity: Int = 200) { self.capacity = capacity }

    /// Adds headlines as one revision and returns the new items, newest first.
    public mutating func append(_ headlines: [String], at time: Int64) -> [NewsItem] {
        guard !headlines.isEmpty else { return [] }
        revision += 1
        let added = headlines.enumerated().map { index, headline in
            NewsItem(id: "n\(revision)-\(index + 1)", time: time, headline: headline)
        }.reversed()
        items.insert(contentsOf: added, at: 0)
        if items.count > capacity { items.removeLast(items.count - capacity) }
        return Array(added)
    }

    /// Takes a revision another node made (a cluster's shared stream): its items go first, as
    /// `append` would have put them. Revisions are the fetching node's; the newest one wins.
    public mutating func adopt(revision: Int64, items added: [NewsItem]) {
        self.revision = max(self.revision, revision)
        items.insert(contentsOf: added, at: 0)
        if items.count > capacity { items.removeLast(items.count - capacity) }
    }

    public var json: JSONValue {
        ["revision": .int(revision), "items": .array(items.map(\.json))]
    }
}
