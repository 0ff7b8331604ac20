import HeraldAccess
import Testing

@Suite struct AddressRangeTests {
    @Test func ipv4RangesMatchTheirAddressesAndMappedOnes() throws {
        let range = try #require(AddressRange("10.0.0.0/8"))
        #expect(range.contains("10.255.0.1"))
        #expect(!range.contains("11.0.0.1"))
        #expect(range.contains("::ffff:10.0.0.7"), "an IPv4 peer on a dual-stack socket")
        #expect(!range.contains("not an address"))
        #expect(try #require(AddressRange("127.0.0.1")).contains("127.0.0.1"))
        #expect(!(try #require(AddressRange("127.0.0.1")).contains("127.0.0.2")))
        #expect(try #require(AddressRange("192.168.4.0/22")).contains("192.168.7.255"))
        #expect(!(try #require(AddressRange("192.168.4.0/22")).contains("192.168.8.0")))
    }

    @Test func ipv6RangesAndBadText() throws {
        #expect(try #require(AddressRange("fd00::/8")).contains("fd12::1"))
        #expect(!(try #require(AddressRange("::1/128")).contains("::2")))
        for bad in ["10.0.0.0/33", "10.0.0/8", "fd00::/129", "", "10.0.0.0/x", "a/b/c"] { #expect(AddressRange(bad) == nil, "\(bad)") }
        #expect(AddressRange("10.1.2.3/16")?.description == "10.1.2.3/16")
    }
}
