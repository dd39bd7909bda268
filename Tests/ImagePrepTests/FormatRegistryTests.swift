import Foundation
import Testing
@testable import ImagePrep

/// The format registries agree with themselves: every output format has one writer, every extension
/// names its format back, every file imgprep writes or keeps as a fixture sniffs as the right reader.
@Suite struct FormatRegistryTests {
    @Test func everyOutputFormatHasExactlyOneWriter() {
        for format in OutputFormat.allCases {
            #expect(Formats.writers.filter { $0.format == format }.count == 1, "\(format)")
        }
        #expect(Formats.writers.count == OutputFormat.allCases.count)
    }

    @Test func everyExtensionNamesItsFormatBack() {
        var seen: Set<String> = []
        for writer in Formats.writers {
            #expect(!writer.fileExtensions.isEmpty, "\(writer.format)")
            #expect(writer.format.fileExtension == writer.fileExtensions.first)
            for ext in writer.fileExtensions {
                #expect(seen.insert(ext).inserted, ".\(ext) names two formats")
                #expect(ext == ext.lowercased())
                #expect(OutputFormat(fileExtensionOf: "dir/photo.\(ext)") == writer.format, ".\(ext)")
                #expect(OutputFormat(fileExtensionOf: "photo.\(ext.uppercased())") == writer.format, ".\(ext.uppercased())")
            }
        }
        #expect(OutputFormat(fileExtensionOf: "photo.gif") == nil)
    }

    /// `--to NAME`: the raw value and each alias, in any case, name the format; no name names two.
    @Test func everyNameNamesItsFormatBack() {
        var seen: Set<String> = []
        for writer in Formats.writers {
            #expect(writer.names.first == writer.format.rawValue)
            for name in writer.names {
                #expect(seen.insert(name).inserted, "\(name) names two formats")
                #expect(OutputFormat(name: name) == writer.format && OutputFormat(name: name.uppercased()) == writer.format, "\(name)")
            }
        }
        #expect(OutputFormat(name: "jpg") == .jpeg)
        #expect(OutputFormat(name: "gif") == nil)
    }

    /// Each writer's encoders write its format, and its default quality is a quality.
    @Test func writersMakeEncodersOfTheirFormat() {
        for writer in Formats.writers {
            var settings = ConversionSettings()
            settings.format = writer.format
            #expect(EncoderRegistry.encoder(for: settings, searching: false).format == writer.format)
            #expect((0...100).contains(writer.defaultQuality))
        }
    }

    /// A small picture written in every output format sniffs as a file the writer calls its own, and its
    /// reader's header probe and decoder agree on its size.
    @Test(arguments: OutputFormat.allCases)
    func everyOutputSniffsAsItsOwnFormat(_ format: OutputFormat) throws {
        let pixels: [UInt8] = (0..<(24 * 16)).flatMap { (i: Int) -> [UInt8] in [UInt8(i % 256), UInt8(255 - i % 256), 90] }
        var settings = ConversionSettings()
        settings.format = format
        let encoder = EncoderRegistry.encoder(for: settings, searching: false)
        let bytes = try encoder.encode(.rgb(PixelBuffer(width: 24, height: 16, channels: 3, pixels: pixels)),
                                       quality: format.defaultQuality, metadata: ImageMetadata())
        let sniffed = try FormatSniffer.sniff(bytes).get()
        #expect(format.writer.isSameFormat(as: sniffed), "\(format) sniffed as \(sniffed)")
        let others = Formats.writers.filter { $0.format != format && $0.isSameFormat(as: sniffed) }
        #expect(others.isEmpty, "\(format) output also claimed by \(others.map(\.format))")
        let readers = Formats.readers.filter { $0.reads(sniffed) }
        #expect(readers.count == 1, "\(sniffed) is read by \(readers.count) readers")
        let probed = try #require(HeaderProbe.header(of: bytes, format: sniffed), "\(format)")
        #expect(probed.width == 24 && probed.height == 16, "\(format)")
        #expect(try sniffed.reader.decoder.header(of: bytes).width == 24)
    }

    /// The fixtures of the formats no writer produces (GIF) or with brands and features of their own.
    @Test(arguments: [("gif/still.gif", "a GIF image"), ("gif/orbit.gif", "a GIF image"),
                      ("heic/gray.heic", "a HEIF image"), ("heic/alpha.heic", "a HEIF image"),
                      ("webp/animated.webp", "a WebP image"), ("webp/lossless-alpha.webp", "a WebP image")])
    func everyFixtureSniffsAsItsReader(_ path: String, _ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: TestSupport.fixtures.appendingPathComponent(path)))
        let sniffed = try FormatSniffer.sniff(bytes).get()
        #expect(sniffed.name == name, "\(path)")
        #expect(Formats.readers.filter { $0.reads(sniffed) }.count == 1, "\(path)")
        let probed = try #require(HeaderProbe.header(of: bytes, format: sniffed), "\(path)")
        let decoded = try sniffed.reader.decoder.header(of: bytes)
        #expect(probed.width == decoded.width && probed.height == decoded.height, "\(path)")
    }

    /// Every reader's sniff claims only its own files: no file is claimed by two readers.
    @Test func noFileIsClaimedByTwoReaders() throws {
        let directories = ["gif", "heic", "webp"]
        for directory in directories {
            let folder = TestSupport.fixtures.appendingPathComponent(directory)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
                let claims = Formats.readers.filter { $0.sniff(bytes) != nil }
                #expect(claims.count == 1, "\(directory)/\(name) claimed by \(claims.count) readers")
            }
        }
    }

    /// The cache key and `--version` name every library a format depends on.
    @Test func everyFormatsLibrariesAreInTheCacheKeyAndVersion() {
        let key = CodecVersions.all, version = LibraryVersions.loaded.map(\.name)
        let libraries = Formats.readers.flatMap(\.libraries) + Formats.writers.flatMap(\.libraries)
        #expect(!libraries.isEmpty)
        for library in libraries {
            #expect(key.contains { $0.hasPrefix(library.name + " ") }, "\(library.name) missing from the cache key")
            #expect(version.contains(library.name), "\(library.name) missing from --version")
        }
    }
}
