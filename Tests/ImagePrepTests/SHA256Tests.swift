import Foundation
import Testing
@testable import ImagePrep

@Suite struct SHA256Tests {
    /// FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA256ShortMsg"/"LongMsg" conventions).
    static let vectors: [(message: [UInt8], digest: String)] = [
        ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8),
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ([UInt8](repeating: 0x61, count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ]

    /// The engines this machine can run; the accelerated one only where the CPU has SHA extensions.
    static var engines: [SHA256.Engine] {
        SHA256.acceleratedAvailable ? [.portable, .accelerated] : [.portable]
    }

    @Test(arguments: [SHA256.Engine.automatic, .portable])
    func nistVectors(engine: SHA256.Engine) throws {
        for (message, digest) in Self.vectors {
            var hasher = try #require(SHA256(engine: engine))
            hasher.update(message)
            #expect(SHA256.hex(hasher.finalize()) == digest, "\(message.count) bytes")
        }
    }

    @Test(.enabled(if: SHA256.acceleratedAvailable, "this CPU has no SHA extensions"))
    func nistVectorsOnTheSHAExtensions() throws {
        for (message, digest) in Self.vectors {
            var hasher = try #require(SHA256(engine: .accelerated))
            hasher.update(message)
            #expect(SHA256.hex(hasher.finalize()) == digest, "\(message.count) bytes")
        }
    }

    @Test func automaticPicksTheFastPathWhenThereIsOne() {
        // Without the extensions, asking for them must say so rather than quietly run the portable code.
        #expect((SHA256(engine: .accelerated) != nil) == SHA256.acceleratedAvailable)
    }

    /// Every split of a message into two updates, and one-byte feeding, give the one-shot digest:
    /// this crosses every position of the 64-byte block buffer and the 55/56-byte padding edge.
    @Test func incrementalUpdatesMatchOneShot() throws {
        var random = SplitMix64(seed: 256)
        for engine in Self.engines {
            for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
                let message = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                let expected = SHA256.hash(message)
                for split in 0...length {
                    var hasher = try #require(SHA256(engine: engine))
                    hasher.update(message[..<split])
                    hasher.update(message[split...])
                    #expect(hasher.finalize() == expected, "\(engine) length \(length) split \(split)")
                }
                var bytewise = try #require(SHA256(engine: engine))
                for byte in message { bytewise.update([byte]) }
                #expect(bytewise.finalize() == expected, "\(engine) length \(length) byte by byte")
            }
        }
    }

    @Test func enginesAgreeOnRandomData() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<50 {
            let message = (0..<random.next(below: 5000)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let digests = try Self.engines.map { engine -> [UInt8] in
                var hasher = try #require(SHA256(engine: engine))
                hasher.update(message)
                return hasher.finalize()
            }
            #expect(Set(digests).count == 1, "\(message.count) bytes")
        }
    }

    /// Real files against coreutils, through the streaming reader (1 MB chunks) and in memory.
    @Test(.enabled(if: TestSupport.corpus != nil, "needs the shared corpus (../shared/corpus or IMGPREP_CORPUS)"))
    func corpusFilesMatchSha256sum() throws {
        let corpus = try #require(TestSupport.corpus)
        let files = try FileManager.default.subpathsOfDirectory(atPath: corpus.path)
            .filter { !$0.hasSuffix(".tsv") && !$0.hasSuffix(".md") }
            .map { corpus.appendingPathComponent($0).path }
            .filter { !RawPath.isDirectory($0) }
            .sorted()
            .prefix(24)
        #expect(files.count >= 10)
        for path in files {
            let run = try TestSupport.run("sha256sum", [path])
            let expected = String(run.stdout.prefix(64))
            #expect(SHA256.hex(try SHA256.hash(contentsOf: path)) == expected, "\(path)")
            let bytes = try TestSupport.bytes(path)
            for engine in Self.engines {
                var hasher = try #require(SHA256(engine: engine))
                hasher.update(bytes)
                #expect(SHA256.hex(hasher.finalize()) == expected, "\(engine) \(path)")
            }
        }
    }

    @Test func unreadableFileIsAnIOError() {
        #expect(throws: ImagePrepError.self) { try SHA256.hash(contentsOf: "/nonexistent/imgprep-test") }
    }

    @Test func hexIsLowercaseTwoDigitsPerByte() {
        #expect(SHA256.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
    }
}
