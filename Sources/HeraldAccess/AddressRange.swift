import Glibc

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `::1/128`, or one address), for
/// `--trusted-proxy`. Parsed and matched with the C library's `inet_pton`; IPv4-mapped IPv6 peers
/// (`::ffff:10.0.0.1`) match IPv4 ranges.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    private let network: [UInt8]
    private let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = address.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        network = address
    }

    public var description: String { "\(Self.text(of: network))/\(prefixLength)" }

    public func contains(_ peer: String) -> Bool {
        guard var address = Self.bytes(of: peer) else { return false }
        if address.count == 16, network.count == 4, address.prefix(12) == Self.mappedPrefix[...] { address = Array(address.suffix(4)) }
        guard address.count == network.count else { return false }
        var remaining = prefixLength
        for index in 0..<address.count where remaining > 0 {
            let take = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if address[index] & mask != network[index] & mask { return false }
            remaining -= take
        }
        return true
    }

    private static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]

    private static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func text(of bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
