import Foundation
import HeraldEngine

/// The terminal view of `herald watch`: one line per job, redrawn in place at most ten times a
/// second. Finished jobs stay as one line with their outcome.
final class TerminalBoard {
    let session: StreamSession
    private var drawnLines = 0
    private var status = "connecting"
    private var dirty = true
    private var lastDraw: ContinuousClock.Instant?  // monotonic: a clock step cannot stop the redraws

    init(session: StreamSession) { self.session = session }

    func run(once: Bool) {
        write("\u{1B}[?25l")  // hide the cursor while bars move
        defer {
            write("\u{1B}[?25h\n")
        }
        _ = session.run(
            status: { [self] in
                status = $0; dirty = true
            },
            tick: { [self] in draw() },
            handle: { [self] _, change in
                if change != .none { dirty = true }
                if once, change == .snapshot {
                    draw(force: true)
                    return .stop
                }
                return .keepGoing
            })
        draw(force: true)
    }

    private func draw(force: Bool = false) {
        guard dirty || force, force || (lastDraw.map { $0.duration(to: .now) >= .milliseconds(100) } ?? true) else { return }
        dirty = false
        lastDraw = ContinuousClock.now
        let mirror = session.mirror
        let width = Self.terminalWidth()
        var lines = ["herald watch  \(session.url)  \(status)  seq \(mirror.seq)"]
        for id in mirror.order.suffix(30) {
            if let job = mirror.jobs[id] { lines.append(Format.jobLine(job, width: width)) }
        }
        var output = ""
        if drawnLines > 0 { output += "\u{1B}[\(drawnLines)A\r" }
        for line in lines { output += "\u{1B}[2K" + line + "\n" }
        // Clear lines left over from a taller previous frame.
        if drawnLines > lines.count {
            for _ in lines.count..<drawnLines { output += "\u{1B}[2K\n" }
            output += "\u{1B}[\(drawnLines - lines.count)A"
        }
        drawnLines = lines.count
        write(output)
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 100
    }
}
