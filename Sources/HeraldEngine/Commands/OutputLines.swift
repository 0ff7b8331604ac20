import Foundation

/// Splits a program's output into lines as bytes arrive: a line ends at `\n` or `\r` (progress bars
/// redraw with `\r`), `\r\n` counts once. A line longer than `maxBytes` is cut there and marked with
/// `…`; the rest of it, up to its end, is dropped. Invalid UTF-8 is replaced, never trusted.
/// A plain value; one reader.
struct OutputLines {
    let maxBytes: Int
    private var pending: [UInt8] = []
    private var overlong = false
    private var lastWasCarriageReturn = false

    init(maxBytes: Int = 4096) {
        self.maxBytes = maxBytes
    }

    /// Feeds bytes; returns the lines they completed. Scans for the next line end and copies runs
    /// of bytes at once: a program that floods its output is read at memory speed.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [String] {
        var lines: [String] = []
        var index = 0
        // The next \n and \r at or after `index` (`bytes.count`: none), each found with memchr and
        // looked for again only once passed: most output holds no \r, so that is one scan a feed.
        var nextNewline = -1
        var nextReturn = -1
        while index < bytes.count {
            if nextNewline < index { nextNewline = Self.offset(of: UInt8(ascii: "\n"), in: bytes, from: index) }
            if nextReturn < index { nextReturn = Self.offset(of: UInt8(ascii: "\r"), in: bytes, from: index) }
            let end = min(nextNewline, nextReturn)
            if end > index {
                lastWasCarriageReturn = false
                let room = maxBytes - pending.count
                if room > 0 { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<min(end, index + room)])) }
                if end - index > room { overlong = true }
            }
            guard end < bytes.count else { break }
            let byte = bytes[end]
            if byte == UInt8(ascii: "\n"), lastWasCarriageReturn, pending.isEmpty, !overlong {
                lastWasCarriageReturn = false  // the \n of a \r\n
            } else {
                lastWasCarriageReturn = byte == UInt8(ascii: "\r")
                lines.append(take())
            }
            index = end + 1
        }
        return lines
    }

    /// Where `byte` first is in `bytes` at or after `start`; `bytes.count` when it is not there.
    private static func offset(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard let base = bytes.baseAddress, start < bytes.count,
            let found = memchr(base + start, Int32(byte), bytes.count - start)
        else { return bytes.count }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// The unterminated last line, when the stream ended (nil when there is none).
    mutating func finish() -> String? {
        pending.isEmpty && !overlong ? nil : take()
    }

    private mutating func take() -> String {
        // Cut at a character boundary: drop a partial UTF-8 sequence at the end of a cut line.
        if overlong {
            while let last = pending.last, last & 0xC0 == 0x80 { pending.removeLast() }
            if let last = pending.last, last & 0xC0 == 0xC0 { pending.removeLast() }
        }
        let text = String(decoding: pending, as: UTF8.self) + (overlong ? "…" : "")
        pending.removeAll(keepingCapacity: true)
        overlong = false
        return text
    }
}
