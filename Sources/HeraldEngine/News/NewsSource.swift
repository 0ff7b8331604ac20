import Synchronization

/// A simulated news server: each fetch finds new content with probability `probability`, and then
/// 1 to 3 headlines. Seedable, so tests know what a fetch returns.
///
/// Thread: any (a fetch job's worker thread); the generator sits behind a mutex.
public final class NewsSource: Sendable {
    public let probability: Double
    private let generator: Protected<SeededGenerator>

    public init(probability: Double = 0.5, seed: UInt64? = nil) {
        self.probability = min(1, max(0, probability))
        self.generator = Protected(SeededGenerator(seed: seed ?? UInt64.random(in: 1...UInt64.max)))
    }

    private static let subjects = [
        "Search index", "Release train", "Build farm", "Night shift", "Storage pool", "Edge cache",
        "Sort benchmark", "Worker pool", "Dispatcher", "Dashboard",
    ]
    private static let verbs = ["reports", "finishes", "starts", "doubles", "trims", "rebalances", "ships", "measures"]
    private static let objects = [
        "a quiet night", "record throughput", "new shards", "its backlog", "a faster path", "fewer retries",
        "the weekly report", "cleaner logs",
    ]

    /// Asks the "server" for new content; an empty array means nothing new.
    public func fetch() -> [String] {
        generator.withLock { rng in
            guard rng.nextDouble() < probability else { return [] }
            let count = Int(rng.next() % 3) + 1
            return (0..<count).map { _ in
                let subject = Self.subjects[Int(rng.next() % UInt64(Self.subjects.count))]
                let verb = Self.verbs[Int(rng.next() % UInt64(Self.verbs.count))]
                let object = Self.objects[Int(rng.next() % UInt64(Self.objects.count))]
                return "\(subject) \(verb) \(object)"
            }
        }
    }
}

/// SplitMix64: small, fast, and the same sequence for the same seed on every platform.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<1.
    public mutating func nextDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
