/// One stripe's read buffer. Thread: the one stripe that made it; never shared.
final class ScanBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private let normal: Int

    /// Where `SearchScan.lineNumber` reads a file again to count its lines: allocated at the first
    /// such count, since most files never need one.
    var spare: UnsafeMutablePointer<UInt8> {
        if let spareBase { return spareBase }
        let made = UnsafeMutablePointer<UInt8>.allocate(capacity: spareCapacity)
        spareBase = made
        return made
    }
    let spareCapacity: Int
    private var spareBase: UnsafeMutablePointer<UInt8>?

    init(capacity: Int) {
        self.normal = capacity
        self.capacity = capacity
        self.base = .allocate(capacity: capacity)
        self.spareCapacity = capacity
    }

    deinit {
        base.deallocate()
        spareBase?.deallocate()
    }

    /// Doubles the buffer, keeping its bytes: a line longer than the buffer must fit whole.
    func grow() {
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
        bigger.update(from: base, count: capacity)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    /// Back to the normal size after a file with a huge line, so memory is not held for the rest.
    func shrink() {
        guard capacity > normal else { return }
        base.deallocate()
        base = .allocate(capacity: normal)
        capacity = normal
    }
}
