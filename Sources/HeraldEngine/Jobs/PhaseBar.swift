/// One progress bar across a job's phases. Each phase owns a slice of the total (`start` and
/// `span`, in units of `unit`), and `completed` never goes back, even when a phase is redone (a
/// corrupted file found after loading it): the bar then holds still until the work passes it.
///
/// Thread: the one worker thread that owns the job; a value type, not shared.
struct PhaseBar {
    private let context: JobContext
    private let total: Int64
    private let unit: Int64
    private let hook: (@Sendable (JobContext, String) -> Void)?
    private var start: Int64 = 0
    private var span: Int64 = 0
    private(set) var completed: Int64 = 0

    init(_ context: JobContext, unit: Int, slices: Int, hook: (@Sendable (JobContext, String) -> Void)?) {
        self.context = context
        self.unit = Int64(unit)
        self.total = Int64(unit) * Int64(slices)
        self.hook = hook
    }

    /// Starts a phase: its name becomes the progress message.
    mutating func begin(_ phase: String, start: Int, span: Int = 1) {
        self.start = Int64(start) * unit
        self.span = Int64(span) * unit
        completed = max(completed, self.start)
        context.progress.report(completed: completed, total: total, message: phase)
        hook?(context, phase)
    }

    /// `done` of `of` of the current phase's work is finished; then throws `JobCancelled` if asked to stop.
    mutating func advance(_ done: Int, of whole: Int) throws(JobCancelled) {
        let value = start + Self.share(of: span, done, of: whole)
        if value > completed {
            completed = value
            context.progress.report(completed: value, total: total)
        }
        try context.checkCancelled()
    }

    /// `span × done / whole`, rounded down, with `done` held to 0...whole. The product is taken at
    /// double width: for a count above about 1.3 billion it would not fit an Int64.
    static func share(of span: Int64, _ done: Int, of whole: Int) -> Int64 {
        let whole = Int64(max(1, whole))
        let done = min(max(0, Int64(done)), whole)
        return whole.dividingFullWidth(span.multipliedFullWidth(by: done)).quotient
    }
}
