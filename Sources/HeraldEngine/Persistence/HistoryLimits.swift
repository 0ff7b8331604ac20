/// How much job history is kept on disk (docs/operations.md, "Job history and rotation").
///
/// Jobs that leave memory go to the archive (`history/archive-<n>.jsonl` in the data folder): a
/// current segment, appended to, and closed segments. A segment is closed at `segmentJobs` jobs or
/// `segmentBytes` bytes, whichever comes first; then a new one starts and the oldest closed ones
/// beyond `closedSegmentsKept` are deleted. So the archive keeps at least the newest `archivedJobs`
/// jobs (fewer only when they are unusually large) and never more than
/// `(closedSegmentsKept + 1) × segmentBytes` bytes, plus one job larger than a segment.
public struct HistoryLimits: Sendable, Equatable {
    /// Archived jobs kept (`herald serve --history-jobs`); 0 keeps no archive.
    public var archivedJobs: Int
    /// The most jobs one segment holds. Small enough that a page deep in history reads little.
    public var maxSegmentJobs: Int
    /// The most bytes one segment holds (a single larger job still gets a segment of its own).
    public var segmentBytes: Int
    /// `jobs.jsonl` is rewritten with only the live jobs once it is this many times their size…
    public var journalGrowthFactor: Int
    /// …and at least this big, so that a short history is not rewritten every few jobs.
    public var journalFloorBytes: Int

    public init(
        archivedJobs: Int = 100_000, maxSegmentJobs: Int = 2_000, segmentBytes: Int = 4 << 20, journalGrowthFactor: Int = 4,
        journalFloorBytes: Int = 256 << 10
    ) {
        self.archivedJobs = max(0, archivedJobs)
        self.maxSegmentJobs = max(1, maxSegmentJobs)
        self.segmentBytes = max(1, segmentBytes)
        self.journalGrowthFactor = max(2, journalGrowthFactor)
        self.journalFloorBytes = max(0, journalFloorBytes)
    }

    /// Jobs per segment: `maxSegmentJobs`, or fewer for a small archive (so it is not one segment
    /// many times the size asked for).
    public var segmentJobs: Int { max(1, min(maxSegmentJobs, archivedJobs)) }

    /// Closed segments kept beside the current one: enough to hold `archivedJobs`.
    public var closedSegmentsKept: Int { archivedJobs == 0 ? 0 : (archivedJobs + segmentJobs - 1) / segmentJobs }

    /// The most bytes the archive's files hold (beyond it only by a job larger than a segment).
    public var archiveByteBound: Int { archivedJobs == 0 ? 0 : (closedSegmentsKept + 1) * segmentBytes }

    /// Whether a segment holding `jobs` jobs in `bytes` bytes must be closed before a line of
    /// `adding` bytes is appended. An empty segment always takes the line, however large.
    public func mustRotate(jobs: Int, bytes: Int, adding: Int) -> Bool {
        jobs > 0 && (jobs >= segmentJobs || bytes + adding > segmentBytes)
    }

    /// Which closed segments to delete: the oldest (lowest numbers) beyond `closedSegmentsKept`.
    public func segmentsToDelete(closed: [Int]) -> [Int] {
        Array(closed.sorted().dropLast(closedSegmentsKept))
    }

    /// Whether `jobs.jsonl`, `fileBytes` long, should be rewritten when its live jobs' lines take `liveBytes`.
    public func mustCompactJournal(fileBytes: Int, liveBytes: Int) -> Bool {
        fileBytes > max(journalFloorBytes, journalGrowthFactor * liveBytes)
    }
}
