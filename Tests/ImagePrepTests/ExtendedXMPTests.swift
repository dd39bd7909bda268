import Foundation
import Testing
@testable import ImagePrep

/// Extended XMP (APP1 "http://ns.adobe.com/xmp/extension/", what Lightroom and Google Camera write past
/// 64 KB) is carried into JPEG outputs, after the main packet, with the GUID still matching; JPEG segments
/// that no output carries are named in a warning instead of vanishing without a word.
@Suite struct ExtendedXMPTests {
    /// A 100 KB extended packet with one property exiftool can read back, and its GUID (its MD5, as
    /// writers compute it).
    static func extendedPacket() throws -> (packet: [UInt8], guid: [UInt8]) {
        let filler = String(repeating: "0123456789abcdef", count: 6_400)
        let packet = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:GImage="http://ns.google.com/photos/1.0/image/" GImage:Mime="image/jpeg" GImage:Data="\(filler)"/>
        </rdf:RDF></x:xmpmeta>
        """.utf8)
        let md5 = try TestSupport.run("md5sum", [], input: Data(packet))
        let guid = Array(md5.stdout.prefix(32).uppercased().utf8)
        try #require(guid.count == 32)
        return (packet, guid)
    }

    static func mainPacket(guid: [UInt8]) -> [UInt8] {
        Array("""
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:xmpNote="http://ns.adobe.com/xmp/note/" xmp:Rating="4" xmpNote:HasExtendedXMP="\(String(decoding: guid, as: UTF8.self))"/>
        </rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """.utf8)
    }

    /// A JPEG with main and extended XMP, plus an APP11 and an APP12 segment imgprep does not read.
    static func jpeg(orientation: UInt8 = 1) throws -> (file: [UInt8], extended: ExtendedXMP) {
        let (packet, guid) = try extendedPacket()
        let extended = ExtendedXMP(guid: guid, packet: packet)
        let metadata = ImageMetadata(exif: CodecTestSupport.exifWithOrientation(orientation), xmp: mainPacket(guid: guid), extendedXMP: extended)
        let others = [JPEGSegment(marker: 0xEB, payload: Array("JP".utf8) + [0, 0, 1, 2, 3]),
                      JPEGSegment(marker: 0xEC, payload: Array("Ducky".utf8) + [0, 1, 0, 4, 0, 0, 0, 50])]
        let file = try JPEGEncoder().encode(CodecTestSupport.gradient(width: 64, height: 48), quality: 90, settings: JPEGSettings(),
                                            segments: JPEGSegment.segments(for: metadata) + others)
        #expect(JPEGSegment.segments(for: metadata).filter { $0.payload.starts(with: ExtendedXMP.header) }.count == 2)
        return (file, extended)
    }

    @Test func readBackWhole() throws {
        let (file, extended) = try Self.jpeg()
        let (metadata, warnings) = JPEGMarkers.metadata(in: file)
        #expect(metadata.extendedXMP == extended && warnings.isEmpty, "\(warnings)")
        #expect(metadata.uncarriedSegments == [#"APP11 "JP""#, #"APP12 "Ducky""#])
    }

    @Test(arguments: [["-q", "70"], ["--max-dimension", "32"], ["--strip-location"], []])
    func jpegOutputsCarryItAndNameWhatIsDropped(options: [String]) throws {
        let (file, extended) = try Self.jpeg()
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(file).write(to: dir.appendingPathComponent("in.jpg"))
        let run = try TestSupport.imgprep(["convert"] + options + ["-o", "out", "in.jpg"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let output = try TestSupport.bytes(dir.appendingPathComponent("out/in.jpg").path)
        let (metadata, warnings) = JPEGMarkers.metadata(in: output)
        #expect(metadata.extendedXMP == extended && warnings.isEmpty, "\(options): \(warnings)")
        #expect(metadata.xmp.flatMap(ExtendedXMP.guid(inMainXMP:)) == extended.guid)
        // Exactly one copy of each piece, right after the main packet.
        var app1: [String] = []
        _ = JPEGMarkers.forEachSegment(in: output) { marker, payload in
            if marker == JPEGSegment.app1 { app1.append(payload.starts(with: ExtendedXMP.header) ? "ext" : payload.starts(with: JPEGSegment.xmpHeader) ? "xmp" : "exif") }
        }
        #expect(app1 == ["exif", "xmp", "ext", "ext"], "\(options): \(app1)")
        // exiftool joins the pieces (it checks the GUID) and reads the property inside.
        if TestSupport.toolExists("exiftool") {
            let tags = try TestSupport.exiftool(dir.appendingPathComponent("out/in.jpg").path, ["-XMP:all"])
            #expect(tags["XMP-GImage:ImageMimeType"] as? String == "image/jpeg" && tags["XMP-xmp:Rating"] as? Int == 4, "\(tags.keys.sorted())")
        }
        // What no output carries is named: unless the header was edited in place and they stayed.
        let kept = metadata.uncarriedSegments == [#"APP11 "JP""#, #"APP12 "Ducky""#]
        let named = run.stderr.contains(#"warning: dropped JPEG segments imgprep does not carry: APP11 "JP", APP12 "Ducky""#)
        #expect(kept != named, "\(options): kept \(kept)\n\(run.stderr)")
    }

    @Test func otherFormatsSayTheyDropIt() throws {
        let (file, _) = try Self.jpeg()
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(file).write(to: dir.appendingPathComponent("in.jpg"))
        // Routine for a format with no place for it: counted at the end, named per file with -v.
        let run = try TestSupport.imgprep(["convert", "--to", "webp", "-o", "out", "in.jpg"], cwd: dir)
        #expect(run.status == 0 && run.stderr.contains("warning: extended XMP (the part of the XMP packet past 64 KB) dropped from 1 WEBP output"), "\(run.stderr)")
        #expect(run.stderr.contains("dropped JPEG segments imgprep does not carry"), "\(run.stderr)")
        let verbose = try TestSupport.imgprep(["convert", "-v", "--to", "webp", "-o", "verbose", "in.jpg"], cwd: dir)
        #expect(verbose.status == 0 && verbose.stderr.contains("in.jpg: warning: dropped the extended XMP"), "\(verbose.stderr)")
    }

    @Test func piecesTheMainPacketDoesNotNameAreDroppedWithAWarning() throws {
        let (packet, guid) = try Self.extendedPacket()
        let other = Array(guid.reversed())
        let metadata = ImageMetadata(xmp: Self.mainPacket(guid: other), extendedXMP: ExtendedXMP(guid: guid, packet: packet))
        let file = try JPEGEncoder().encode(CodecTestSupport.gradient(width: 16, height: 16), quality: 90, settings: JPEGSettings(),
                                            segments: JPEGSegment.segments(for: metadata))
        let (read, warnings) = JPEGMarkers.metadata(in: file)
        #expect(read.extendedXMP == nil)
        #expect(warnings.contains { $0.hasPrefix("extended XMP dropped") }, "\(warnings)")
        // Pieces cut short are refused too.
        let cut = ExtendedXMP.Chunk(payload: ExtendedXMP.header + guid + [0, 0, 0, 100, 0, 0, 0, 0] + [1, 2, 3])
        #expect(ExtendedXMP.reassemble([try #require(cut)], mainXMP: Self.mainPacket(guid: guid)).isSuccess == false)
    }
}

private extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}
