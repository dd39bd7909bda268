import Foundation
import Testing
@testable import ImagePrep

/// The pieces of Ultra HDR and Apple gain maps, checked against the values their specifications and
/// the libraries that read them (libultrahdr, libavif) give.
struct GainMapFormatTests {
    @Test func appleHeadroomFollowsLibavifsFormula() {
        // libavif/Skia: tag33 < 1 and tag48 ≤ 0.01 -> stops = -20·t48 + 1.8; tag33 ≥ 1 and tag48 > 0.01 -> -0.303·t48 + 2.303.
        #expect(abs(AppleGainMap.headroom(tag33: 0.5, tag48: 0.005) - exp2(1.7)) < 1e-12)
        #expect(abs(AppleGainMap.headroom(tag33: 1.01, tag48: 0.003041189164) - exp2(-70 * 0.003041189164 + 3)) < 1e-12)
        #expect(abs(AppleGainMap.headroom(tag33: 1.2, tag48: 0.5) - exp2(-0.303 * 0.5 + 2.303)) < 1e-12)
        #expect(AppleGainMap.headroom(tag33: 0.5, tag48: 100) == 1)   // negative stops clamp to a factor of 1
    }

    @Test func appleConversionTableIsExact() {
        let h = 6.902454
        let table = AppleGainMap.conversionTable(headroom: h)
        #expect(table[0] == 0 && table[255] == 255)
        for v in [16, 64, 128, 200] {
            let g = AppleGainMap.inverseRec709(Double(v) / 255)
            let expected = (255 * log2(1 + (h - 1) * g) / log2(h)).rounded()
            #expect(Double(table[v]) == expected)
            // Ultra HDR's rendition of the converted sample equals Apple's within one code value.
            let boost = exp2(Double(table[v]) / 255 * log2(h))
            #expect(abs(log2(boost) - log2(1 + (h - 1) * g)) <= log2(h) / 255)
        }
        #expect(AppleGainMap.gainMap(plane: GainMapPlane(width: 1, height: 1, pixels: [200]), headroom: 1, origin: .appleMPF) == nil)
    }

    @Test func isoBlockRoundTripsInTheExplicitForm() throws {
        let metadata = GainMapMetadata(gainMapMin: -0.5, gainMapMax: 2.790122, gamma: 1.2, offsetSDR: 0.015625,
                                       offsetHDR: 0, hdrCapacityMin: 0, hdrCapacityMax: 2.790122)
        let payload = ISOGainMapBlock.payload(metadata)
        #expect(payload.count == ISOGainMapBlock.header.count + 5 + 8 * 7)   // 4 version bytes, flags, 7 fractions
        #expect(payload[ISOGainMapBlock.header.count + 4] == 0x40, "use base colour space, one channel, no common denominator")
        let read = try #require(ISOGainMapBlock.metadata(in: payload)).get()
        #expect(read.channels.count == 1)
        for (a, b) in zip(read.channels[0].named.map(\.1) + [read.hdrCapacityMin, read.hdrCapacityMax],
                          metadata.channels[0].named.map(\.1) + [metadata.hdrCapacityMin, metadata.hdrCapacityMax]) {
            #expect(abs(a - b) < 1e-6)
        }
        #expect(ISOGainMapBlock.metadata(in: ISOGainMapBlock.versionPayload) == nil)   // the primary's version-only block
        let truncated = try #require(ISOGainMapBlock.metadata(in: Array(payload.prefix(40))), "a cut block is a problem, not a miss")
        #expect(throws: GainMapProblem.self) { try truncated.get() }
    }

    @Test func perChannelValuesRoundTripThroughXMPAndISO() throws {
        let channels = [2.0, 2.5, 3.0].map { GainMapChannelValues(gainMapMin: -0.25, gainMapMax: $0, gamma: 1.1, offsetSDR: 0.015625, offsetHDR: 0) }
        let metadata = GainMapMetadata(channels: channels, hdrCapacityMin: 0, hdrCapacityMax: 3)
        let payload = ISOGainMapBlock.payload(metadata)
        #expect(payload[ISOGainMapBlock.header.count + 4] == 0xC0, "use base colour space, multichannel")
        #expect(payload.count == ISOGainMapBlock.header.count + 5 + 8 * (2 + 3 * 5))
        #expect(try #require(ISOGainMapBlock.metadata(in: payload)).get() == metadata)
        let fromXMP = try #require(GainMapXMP.metadata(in: GainMapXMP.mapPacket(metadata))).get()
        #expect(fromXMP == metadata && fromXMP.agrees(with: metadata))
        // Three equal sets are said once, and one set does not agree with three different ones.
        let same = GainMapMetadata(channels: Array(repeating: channels[0], count: 3), hdrCapacityMin: 0, hdrCapacityMax: 3)
        #expect(try same.validated().get().channels.count == 1)
        #expect(!GainMapMetadata(channels: [channels[0]], hdrCapacityMin: 0, hdrCapacityMax: 3).agrees(with: metadata))
        var broken = metadata
        broken.channels[2].gamma = 0
        #expect(throws: GainMapProblem("Gamma of the blue channel 0 is outside 0.01...100")) { try broken.validated().get() }
    }

    @Test func isoBlockWithACommonDenominatorReads() throws {
        // As libultrahdr writes it when every denominator is the same (flag 0x08).
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let body: [UInt8] = [0, 0, 0, 0, 0x48] + u32(1000) + u32(0) + u32(3000) + u32(0) + u32(3000) + u32(1000) + u32(15) + u32(15)
        let read = try #require(ISOGainMapBlock.metadata(in: ISOGainMapBlock.header + body)).get()
        #expect(read.hdrCapacityMax == 3 && read.channels == [GainMapChannelValues(gainMapMin: 0, gainMapMax: 3, gamma: 1, offsetSDR: 0.015, offsetHDR: 0.015)])
    }

    @Test func mpfPayloadIsReadBackAtItsOffsets() throws {
        let map = try UltraHDRContainer.encodeMap(GainMap(plane: GainMapPlane(width: 8, height: 8, pixels: [UInt8](repeating: 90, count: 64)),
                                                          metadata: AppleGainMap.metadata(headroom: 4), origin: .appleMPF))
        let primary = try JPEGEncoder().encode(PixelBuffer(width: 16, height: 16, channels: 3, pixels: [UInt8](repeating: 128, count: 768)),
                                               quality: 80, settings: JPEGSettings())
        let file = UltraHDRContainer.assemble(primary: primary, map: map)
        let images = MultiPictureFormat.secondaryImages(in: file)
        #expect(images.count == 1 && images.first.map { Array(file[$0]) } == map)
        #expect(UltraHDRContainer.primaryOnly(file).count == primary.count, "the map and the index come off again")
        let reading = JPEGGainMapReader.read(file, primaryEXIF: nil, decodes: true)
        #expect(reading.origin == .iso21496 && reading.gainMap?.plane.pixels.first.map { abs(Int($0) - 90) <= 2 } == true)
        #expect(abs((reading.headroom ?? 0) - 4) < 1e-6)
    }

    @Test func removingClaimsLeavesTheRestOfThePacket() throws {
        let packet = Array(GainMapXMP.primaryPacket(Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/jpeg"/>
            </rdf:RDF></x:xmpmeta>
            """.utf8), mapLength: 1234))
        #expect(GainMapClaims.inPacket(packet))
        #expect(XMPValues.text("Length", namespace: GainMapXMP.itemNamespace, in: packet) == "1234")
        let cleaned = try GainMapXMP.removingClaims(packet)
        #expect(!GainMapClaims.inPacket(cleaned))
        #expect(!String(decoding: cleaned, as: UTF8.self).contains("hdr-gain-map"))
        #expect(XMPValues.text("format", namespace: "http://purl.org/dc/elements/1.1/", in: cleaned) == "image/jpeg")
    }

    @Test func byteSearchFindsANeedleAnywhereAndNothingElse() {
        let needle = Array("hdr-gain-map".utf8)
        let hay = [UInt8](repeating: UInt8(ascii: "h"), count: 300)
        #expect(!containsBytes(hay, needle))
        #expect(containsBytes(needle + hay, needle) && containsBytes(hay + needle, needle) && containsBytes(hay + needle + hay, needle))
        #expect(!containsBytes(hay + needle.dropLast(), needle), "a needle cut off at the end")
        #expect(containsBytes((hay + needle)[290...], needle) && !containsBytes((hay + needle)[..<305], needle), "slices search their own bytes")
        #expect(!containsBytes([UInt8](), needle) && containsBytes(hay, []))
    }

    @Test func theCacheKeyChangesWithTheHDRSetting() throws {
        var keep = ConversionSettings()
        keep.hdr = .keep
        var drop = keep
        drop.hdr = .drop
        #expect(try CacheKey.fingerprint(of: keep) != CacheKey.fingerprint(of: drop))
    }
}
