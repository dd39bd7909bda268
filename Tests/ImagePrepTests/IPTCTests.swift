import Foundation
import Testing
@testable import ImagePrep

/// IPTC inside Photoshop resources: read, location removed dataset by dataset, the digest kept true,
/// every other byte kept, and hostile bytes never trap.
@Suite struct IPTCTests {
    static func dataset(_ record: UInt8, _ number: UInt8, _ text: String) -> [UInt8] {
        let value = Array(text.utf8)
        return [0x1C, record, number, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
    }

    /// Keywords, by-line, caption, copyright, then every location dataset, plus one with an extended length.
    static let iim: [UInt8] = dataset(2, 0, "\u{0}\u{4}") + dataset(2, 25, "alpha") + dataset(2, 25, "beta")
        + dataset(2, 80, "Ann Author") + dataset(2, 90, "Tallinn") + dataset(2, 92, "Old Town")
        + dataset(2, 95, "Harju") + dataset(2, 100, "EST") + dataset(2, 101, "Estonia")
        + dataset(2, 116, "(c) 2026 Ann") + [0x1C, 2, 120, 0x80, 0x02, 0x00, 0x03] + Array("cap".utf8)

    /// An odd-length resource with a name before the IPTC one, the digest after it, then padding.
    static func resources(iim: [UInt8] = iim, digest: [UInt8]? = nil) -> [UInt8] {
        let resolution = PhotoshopResource(signature: Array("8BIM".utf8), id: 0x03ED, name: Array("res".utf8), data: [1, 2, 3])
        var all = resolution.bytes + IPTC.resources(wrappingIIM: iim)
        if let digest {
            all += PhotoshopResource(signature: Array("8BIM".utf8), id: 0x0425, name: [], data: digest).bytes
        }
        return all + [0, 0]
    }

    @Test func md5MatchesTheRFCVectors() {
        func hex(_ text: String) -> String { MD5.digest(Array(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        #expect(hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0")
        #expect(hex(String(repeating: "1234567890", count: 8)) == "57edf4a22be3c955ac49da2e2107b67a")
    }

    @Test func readsResourcesAndDatasets() throws {
        let parsed = try PhotoshopResource.parse(Self.resources())
        #expect(parsed.map(\.id) == [0x03ED, 0x0404])
        #expect(parsed[0].name == Array("res".utf8) && parsed[0].data == [1, 2, 3])
        #expect(IPTC.iim(in: Self.resources()) == Self.iim)
        let datasets = try IIMDataset.parse(Self.iim)
        #expect(datasets.map(\.number) == [0, 25, 25, 80, 90, 92, 95, 100, 101, 116, 120])
        #expect(datasets.last.map { Array(Self.iim[$0.range].suffix(3)) } == Array("cap".utf8))
    }

    @Test func stripsEveryLocationDatasetAndNothingElse() throws {
        let digest = MD5.digest(Self.iim)
        let original = Self.resources(digest: digest)
        #expect(IPTC.hasLocation(original))
        let stripped = try IPTC.strippingLocation(original)
        #expect(!IPTC.hasLocation(stripped))
        let iim = try #require(IPTC.iim(in: stripped))
        #expect(try IIMDataset.parse(iim).map(\.number) == [0, 25, 25, 80, 116, 120])
        let expected = Self.dataset(2, 0, "\u{0}\u{4}") + Self.dataset(2, 25, "alpha") + Self.dataset(2, 25, "beta")
            + Self.dataset(2, 80, "Ann Author") + Self.dataset(2, 116, "(c) 2026 Ann") + [0x1C, 2, 120, 0x80, 0x02, 0x00, 0x03] + Array("cap".utf8)
        #expect(iim == expected)
        // The digest now describes the new record, so readers still see IPTC and XMP as in step.
        let parsed = try PhotoshopResource.parse(stripped)
        #expect(parsed.first { $0.id == 0x0425 }?.data == MD5.digest(expected))
        // The other resource keeps its bytes.
        #expect(parsed.first { $0.id == 0x03ED } == PhotoshopResource(signature: Array("8BIM".utf8), id: 0x03ED, name: Array("res".utf8), data: [1, 2, 3]))
    }

    @Test func aStaleDigestStaysStale() throws {
        let stale = [UInt8](repeating: 7, count: 16)
        let stripped = try IPTC.strippingLocation(Self.resources(digest: stale))
        #expect(try PhotoshopResource.parse(stripped).first { $0.id == 0x0425 }?.data == stale)
    }

    @Test func withoutLocationNotAByteChanges() throws {
        let iim = Self.dataset(2, 25, "alpha") + Self.dataset(2, 116, "(c)")
        let original = Self.resources(iim: iim, digest: [UInt8](repeating: 7, count: 16))
        #expect(!IPTC.hasLocation(original))
        #expect(try IPTC.strippingLocation(original) == original)
    }

    @Test(arguments: [
        [UInt8]("8BIX".utf8) + [4, 4, 0, 0, 0, 0, 0, 0],          // unknown signature
        [UInt8]("8BIM".utf8) + [4, 4, 0, 0, 0, 0, 0, 9, 1, 2],    // data runs past the end
        [UInt8]("8BIM".utf8) + [4, 4, 7, 65],                      // name runs past the end
    ])
    func malformedResourcesAreRefusedAndCountAsLocation(_ bytes: [UInt8]) {
        #expect(IPTC.hasLocation(bytes))
        #expect(throws: ImagePrepError.self) { try IPTC.strippingLocation(bytes) }
    }

    @Test func malformedDatasetsAreRefused() {
        for iim in [[0x1C, 2, 90, 0, 9] + Array("short".utf8), [0x1C, 2, 90, 0x80, 0x07, 0, 0], [0x41, 2, 90, 0, 0]] as [[UInt8]] {
            let bytes = IPTC.resources(wrappingIIM: iim)
            #expect(IPTC.hasLocation(bytes), "\(iim)")
            #expect(throws: ImagePrepError.self) { try IPTC.strippingLocation(bytes) }
        }
    }

    @Test func randomMutationsNeverTrap() {
        var random = SplitMix64(seed: 0x1F7C)
        let base = Self.resources(digest: MD5.digest(Self.iim))
        for _ in 0..<3000 {
            var bytes = base
            for _ in 0..<(1 + random.next(below: 4)) {
                bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
            }
            if random.next(below: 4) == 0 { bytes = Array(bytes.prefix(random.next(below: bytes.count))) }
            _ = IPTC.hasLocation(bytes)
            _ = IPTC.iim(in: bytes)
            if let stripped = try? IPTC.strippingLocation(bytes) { #expect(!IPTC.hasLocation(stripped)) }
        }
    }
}
