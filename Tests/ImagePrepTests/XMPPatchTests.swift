import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import ImagePrep

@Suite struct XMPPatchTests {
    /// Orientation and GPS as attributes and as elements, under `exif:`/`tiff:` and under other prefixes,
    /// plus decoys that must survive: look-alike text, a comment, and `exif:` bound to another namespace.
    static let sample = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Test">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
            xmlns:exif="http://ns.adobe.com/exif/1.0/"
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            tiff:Orientation="6"
            exif:GPSLatitude="47,36.7022N"
            exif:PixelXDimension="4032"
            exif:GPSLongitude='122,19.9876W'
            xmp:CreateDate="2024-05-06T07:08:09">
           <exif:GPSAltitude>1234/10</exif:GPSAltitude>
           <!-- <exif:GPSLatitude>not a property</exif:GPSLatitude> -->
           <exif:UserComment>
            <rdf:Alt>
             <rdf:li xml:lang="x-default">exif:GPSLatitude="1" &amp; <![CDATA[<exif:GPSAltitude>]]></rdf:li>
            </rdf:Alt>
           </exif:UserComment>
          </rdf:Description>
          <rdf:Description rdf:about="" xmlns:e="http://ns.adobe.com/exif/1.0/" xmlns:t="http://ns.adobe.com/tiff/1.0/">
           <t:Orientation>8</t:Orientation>
           <e:GPSDestLatitude>
            <rdf:Seq>
             <rdf:li>12,1N</rdf:li>
            </rdf:Seq>
           </e:GPSDestLatitude>
           <e:GPSVersionID/>
           <e:FNumber>28/10</e:FNumber>
          </rdf:Description>
          <rdf:Description rdf:about="" xmlns:exif="http://example.com/not-exif/" exif:GPSKeep="yes"/>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """

    @Test func stripsGPSInBothFormsAndNothingElse() throws {
        let result = try XMP.patch(Array(Self.sample.utf8), resetOrientation: false, stripLocation: true)
        var expected = Self.sample
        for removed in [
            "\n    exif:GPSLatitude=\"47,36.7022N\"", "\n    exif:GPSLongitude='122,19.9876W'",
            "\n   <exif:GPSAltitude>1234/10</exif:GPSAltitude>",
            "\n   <e:GPSDestLatitude>\n    <rdf:Seq>\n     <rdf:li>12,1N</rdf:li>\n    </rdf:Seq>\n   </e:GPSDestLatitude>",
            "\n   <e:GPSVersionID/>",
        ] {
            #expect(expected.contains(removed))
            expected = expected.replacingOccurrences(of: removed, with: "")
        }
        #expect(String(decoding: result, as: UTF8.self) == expected)
        #expect(isWellFormed(result))
    }

    @Test func detectsGPS() throws {
        let packet = Array(Self.sample.utf8)
        #expect(XMP.hasLocation(packet))
        #expect(!XMP.hasLocation(try XMP.patch(packet, resetOrientation: false, stripLocation: true)))
        let elementOnly = #"<r xmlns:e="http://ns.adobe.com/exif/1.0/"><e:GPSAltitude>1</e:GPSAltitude></r>"#
        #expect(XMP.hasLocation(Array(elementOnly.utf8)))
        #expect(XMP.hasLocation(Array("<r><unclosed></r>".utf8)))   // malformed: cannot rule GPS out
    }

    @Test func resetsOrientationInBothForms() throws {
        let packet = Array(Self.sample.utf8)
        #expect(XMP.orientation(in: packet) == 6)
        let result = try XMP.patch(packet, resetOrientation: true, stripLocation: false)
        let expected = Self.sample
            .replacingOccurrences(of: "tiff:Orientation=\"6\"", with: "tiff:Orientation=\"1\"")
            .replacingOccurrences(of: "<t:Orientation>8</t:Orientation>", with: "<t:Orientation>1</t:Orientation>")
        #expect(String(decoding: result, as: UTF8.self) == expected)
        #expect(XMP.orientation(in: result) == 1)
        #expect(isWellFormed(result))
    }

    @Test func readsOrientationFromElementForm() {
        let packet = #"<r xmlns:tiff="http://ns.adobe.com/tiff/1.0/"><tiff:Orientation> 8 </tiff:Orientation></r>"#
        #expect(XMP.orientation(in: Array(packet.utf8)) == 8)
        #expect(XMP.orientation(in: Array(#"<r xmlns:tiff="http://example.com/"><tiff:Orientation>8</tiff:Orientation></r>"#.utf8)) == nil)
    }

    @Test func changesNothingWhenAskedForNothing() throws {
        let packet = Array(Self.sample.utf8)
        #expect(try XMP.patch(packet, resetOrientation: false, stripLocation: false) == packet)
    }

    @Test(arguments: [
        "<a><b></a>", "<a>", "<a x=\"1></a>", "<a><!-- </a>", "<a x></a>", "</a>", "<a></b>",
    ])
    func malformedPacketsThrow(packet: String) {
        #expect(throws: ImagePrepError.self) { try XMP.patch(Array(packet.utf8), resetOrientation: true, stripLocation: true) }
        #expect(XMP.orientation(in: Array(packet.utf8)) == nil)
        #expect(!isWellFormed(Array(packet.utf8)))   // the checker used above can say no
    }

    /// 20,000 nested elements (60 KB) took seconds, resolving each name through every open element;
    /// past 200 levels a packet is malformed, and 200 levels still work.
    @Test func deepNestingIsRefusedQuickly() throws {
        func nested(_ depth: Int) -> [UInt8] {
            Array((String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)).utf8)
        }
        #expect { try XMP.patch(nested(20_000), resetOrientation: true, stripLocation: true) } throws: {
            "\($0)".contains("nested more than 200 deep")
        }
        #expect(XMP.hasLocation(nested(20_000)))   // unreadable: GPS cannot be ruled out
        #expect(try XMP.patch(nested(XMPScanner.maxDepth), resetOrientation: true, stripLocation: true) == nested(XMPScanner.maxDepth))
    }

    /// Real packets hold no GPS, so only an Orientation other than 1 may change (exactly one byte), and
    /// location properties where there are some (Thompson Springs: photoshop:City, State, Country).
    @Test(.enabled(if: corpus != nil, "no shared corpus: camera XMP not checked"), arguments: [
        "jpeg/immich__thompson-springs.jpg", "jpeg/pillow__xmp_test.jpg", "jpeg/immich__portrait-orientation-6.jpg",
        "heic/libheif__rainbow-451x461.heic", "heic/pillow_heif__L_xmp_latin1.heic", "heic/immich__samsung-one-ui-6.heic",
        "avif/libavif__seine_sdr_gainmap_srgb.avif", "avif/pillow__xmp_tags_orientation.avif",
    ])
    func realPacketsChangeOnlyOrientation(file: String) throws {
        let packet = try run(["exiftool", "-b", "-xmp", try #require(corpus).appendingPathComponent(file).path])
        let result = try XMP.patch(packet, resetOrientation: true, stripLocation: true)
        // The Latin-1 packet is not UTF-8, so XMLParser rejects it before and after alike.
        #expect(isWellFormed(result) == isWellFormed(packet))
        if XMP.hasLocation(packet) {
            #expect(!XMP.hasLocation(result) && XMP.orientation(in: result) ?? 1 == 1)
            let kept = try XMP.patch(packet, resetOrientation: false, stripLocation: false)
            #expect(kept == packet)
        } else if let orientation = XMP.orientation(in: packet), orientation != 1 {
            #expect(XMP.orientation(in: result) == 1)
            #expect(result.count == packet.count)
            let differing = packet.indices.filter { packet[$0] != result[$0] }
            #expect(differing.count == 1)
        } else {
            #expect(result == packet)
        }
    }
}

/// Whether Foundation's XMLParser (libxml2 underneath) accepts the packet. On Linux `parse()` can
/// return true for unbalanced input, so the error and the element balance are checked as well.
private func isWellFormed(_ bytes: [UInt8]) -> Bool {
    final class Balance: NSObject, XMLParserDelegate {
        var depth = 0, closed = 0
        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) { depth += 1 }
        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?) { depth -= 1; closed += 1 }
    }
    let parser = XMLParser(data: Data(bytes))
    parser.shouldProcessNamespaces = true
    let balance = Balance()
    parser.delegate = balance
    return parser.parse() && parser.parserError == nil && balance.depth == 0 && balance.closed > 0
}

private let corpus = TestSupport.corpus

private struct CommandFailed: Error { let command: [String] }

private func run(_ command: [String]) throws -> [UInt8] {
    let result = try TestSupport.capture(command[0], Array(command.dropFirst()))
    guard result.status == 0 else { throw CommandFailed(command: command) }
    return result.output
}
