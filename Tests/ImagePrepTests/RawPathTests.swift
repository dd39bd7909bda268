import Testing
@testable import ImagePrep

@Suite struct RawPathTests {
    @Test func anyBytesComeBackExactly() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let bytes = (0..<random.next(below: 24)).map { _ in UInt8(truncatingIfNeeded: random.next()) }.filter { $0 != 0 }
            #expect(RawPath.bytes(RawPath.decode(bytes)) == bytes, "\(bytes)")
        }
    }

    @Test func validUTF8StaysReadable() {
        #expect(RawPath.decode(Array("photos/été 2024/IMG_1.heic".utf8)) == "photos/été 2024/IMG_1.heic")
        #expect(RawPath.bytes("photos/été.heic") == Array("photos/été.heic".utf8))
    }

    @Test func invalidBytesAreKeptNotReplaced() {
        let name: [UInt8] = Array("bad".utf8) + [0xFF, 0xC3] + Array("name".utf8)
        let path = RawPath.decode(name)
        #expect(path.hasPrefix("bad") && path.hasSuffix("name") && !path.contains("\u{FFFD}"))
        #expect(RawPath.bytes(path) == name)
    }
}
