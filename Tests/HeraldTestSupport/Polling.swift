import Foundation
import XCTest

/// Polls `condition` every millisecond until it holds or `timeout` seconds pass; true when it held.
/// On timeout the test fails, naming `what` and describing what was last seen (`seen`), so a slow
/// or stuck test says more than "timed out". For conditions that no event announces (a state of the
/// dispatcher, a file); for events, see `EventRecorder.waitFor`.
@discardableResult
public func waitUntil(
    _ what: String, timeout: Double = 20, seen: () -> String, file: StaticString = #filePath, line: UInt = #line,
    _ condition: () -> Bool
) -> Bool {
    if poll(timeout: timeout, condition) { return true }
    XCTFail("\(what): not within \(timeout) s; seen: \(seen())", file: file, line: line)
    return false
}

/// Polls `condition` every millisecond until it holds or `timeout` seconds pass; true when it held.
/// Reports nothing: for pacing, where running out of time is no failure by itself (the caller
/// checks what it got and reports that).
public func poll(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if condition() { return true }
        if Date() >= deadline { return false }
        usleep(1_000)
    }
}

/// A value behind a lock, shared by reference between threads.
///
/// An `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux, Mutex waits on a futex
/// that ThreadSanitizer cannot see, so contended use reports false races (checked with Swift 6.3.1).
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched while `lock` is held.
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    public var value: Value { withLock { $0 } }
}
