import Foundation
import Testing
@testable import ImagePrep

/// Gain maps that lie: values out of range or unreadable, claims without a map, structure a reader
/// would refuse. Whatever the path (byte for byte, lossless turn, re-encode), every JPEG imgprep writes
/// is either read as Ultra HDR by libultrahdr 1.4 (scripts/gainmap_claims.py, through the imagecodecs
/// wheel) or claims no gain map at all; a map that is left out is named in a warning; nothing crashes.
@Suite(.enabled(if: IndependentUltraHDRReader.available, "no .venv-test (make testenv): gain-map trust tests skipped"))
struct GainMapTrustTests {
    enum Outcome { case keptAsUltraHDR, droppedWithWarning }

    struct Case {
        var name: String
        var bytes: [UInt8]
        var outcome: Outcome
    }

    typealias Files = HostileGainMapFiles

    static func cases() throws -> [Case] {
        func map(_ changes: [String: String?] = [:], version: String? = "1.0", iso: [UInt8]? = nil, extra: String = "") -> [JPEGSegment] {
            [Files.xmpSegment(Files.mapXMP(version: version, replacing: changes, extra: extra))] + (iso.map { [Files.isoSegment($0)] } ?? [])
        }
        func xmpOnly(_ changes: [String: String?], version: String? = "1.0") throws -> [UInt8] {
            try Files.ultraHDR(mapSegments: map(changes, version: version))
        }
        var fractions = Files.validISOFractions
        func iso(_ index: Int, _ value: (Int64, UInt32)) -> [UInt8] {
            var changed = fractions
            changed[index] = value
            return Files.isoPayload(changed)
        }
        let validISO = Files.isoPayload(fractions)
        func perChannel(_ name: String = "GainMapMax", _ items: [String] = ["2", "2.5", "3"]) -> String {
            let attributes = ["GainMapMin=\"0\"", "GainMapMax=\"2\"", "Gamma=\"1\"", "HDRCapacityMin=\"0\"", "HDRCapacityMax=\"3\""]
                .filter { !$0.hasPrefix(name + "=") }.map { "hdrgm:" + $0 }.joined(separator: " ")
            let sequence = items.map { "<rdf:li>\($0)</rdf:li>" }.joined()
            return """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" \(attributes)>
                  <hdrgm:\(name)><rdf:Seq>\(sequence)</rdf:Seq></hdrgm:\(name)>
                </rdf:Description></rdf:RDF></x:xmpmeta>
                """
        }
        // Three sets of channel values (red, green, blue) behind the multichannel flag.
        let threeChannels = Files.isoPayload([(0, 1), (3, 1)] + [(2, 1), (5, 2), (3, 1)].flatMap { [(0, 1), $0, (1, 1), (1, 64), (1, 64)] },
                                             flags: 0xC0)
        let entities = """
            <?xml version="1.0"?><!DOCTYPE x [<!ENTITY max "2">]>
            """ + Files.mapXMP(replacing: ["GainMapMax": "&max;"])
        let claimingPrimary = Files.primaryXMP.replacingOccurrences(of: "LENGTH", with: "1000")
        fractions[1] = (1030, 1)
        let headroom1030 = Files.isoPayload(fractions)
        fractions = Files.validISOFractions
        return [
            Case(name: "valid", bytes: try Files.ultraHDR(), outcome: .keptAsUltraHDR),
            Case(name: "valid-xmp-only", bytes: try xmpOnly([:]), outcome: .keptAsUltraHDR),
            Case(name: "spaces-around-values", bytes: try xmpOnly(["GainMapMax": " 2 ", "HDRCapacityMax": "\n2\t"]), outcome: .keptAsUltraHDR),
            Case(name: "junk-mpf-first", bytes: Files.inserting(Array("MPF".utf8) + [0, 1, 2, 3], after: try Files.ultraHDR()), outcome: .keptAsUltraHDR),
            Case(name: "apple-makernote", bytes: try Files.appleMPF(), outcome: .keptAsUltraHDR),
            // Numbers out of range, in the XMP, the ISO block and Apple's MakerNote and XMP.
            Case(name: "capacity-1030", bytes: try xmpOnly(["HDRCapacityMax": "1030"]), outcome: .droppedWithWarning),
            Case(name: "capacity-1e308", bytes: try xmpOnly(["HDRCapacityMax": "1e308"]), outcome: .droppedWithWarning),
            Case(name: "max-1e308", bytes: try xmpOnly(["GainMapMax": "1e308"]), outcome: .droppedWithWarning),
            Case(name: "max-1e309", bytes: try xmpOnly(["GainMapMax": "1e309"]), outcome: .droppedWithWarning),
            Case(name: "max-int32", bytes: try xmpOnly(["GainMapMax": "2147483647"]), outcome: .droppedWithWarning),
            Case(name: "min-boost-zero", bytes: try xmpOnly(["GainMapMin": "-1e308"]), outcome: .droppedWithWarning),
            Case(name: "gamma-1e-300", bytes: try xmpOnly(["Gamma": "1e-300"]), outcome: .droppedWithWarning),
            Case(name: "gamma-zero", bytes: try xmpOnly(["Gamma": "0"]), outcome: .droppedWithWarning),
            Case(name: "offset-negative", bytes: try xmpOnly(["OffsetSDR": "-0.5"]), outcome: .droppedWithWarning),
            Case(name: "iso-headroom-1030", bytes: try Files.ultraHDR(mapSegments: map(iso: headroom1030)), outcome: .droppedWithWarning),
            Case(name: "iso-headroom-uint32max", bytes: try Files.ultraHDR(mapSegments: map(iso: iso(1, (0xFFFF_FFFF, 1)))), outcome: .droppedWithWarning),
            Case(name: "iso-gamma-tiny", bytes: try Files.ultraHDR(mapSegments: map(iso: iso(4, (1, 0xFFFF_FFFF)))), outcome: .droppedWithWarning),
            Case(name: "iso-zero-denominator", bytes: try Files.ultraHDR(mapSegments: map(iso: iso(3, (2, 0)))), outcome: .droppedWithWarning),
            Case(name: "apple-tag48-int32min", bytes: try Files.appleMPF(tag48: (Int32.min, 1)), outcome: .droppedWithWarning),
            Case(name: "apple-tag48-minus3000", bytes: try Files.appleMPF(tag48: (-3000, 1)), outcome: .droppedWithWarning),
            Case(name: "apple-xmp-headroom-1e308",
                 bytes: try Files.appleMPF(mapXMP: Files.appleMapXMP(version: 131072, headroom: "1e308")), outcome: .droppedWithWarning),
            // What libultrahdr refuses must not leave as HDR.
            Case(name: "version-2", bytes: try xmpOnly([:], version: "2"), outcome: .droppedWithWarning),
            Case(name: "version-empty", bytes: try xmpOnly([:], version: ""), outcome: .droppedWithWarning),
            Case(name: "hex-float", bytes: try xmpOnly(["GainMapMax": "0x1p1"]), outcome: .droppedWithWarning),
            Case(name: "comma-decimal", bytes: try xmpOnly(["GainMapMax": "2,5"]), outcome: .droppedWithWarning),
            Case(name: "missing-max", bytes: try xmpOnly(["GainMapMax": String?.none]), outcome: .droppedWithWarning),
            // Per-channel values: three are valid; any other count, or a per-channel form where one value is allowed, is not.
            Case(name: "per-channel-seq", bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(perChannel())], mapChannels: 3),
                 outcome: .keptAsUltraHDR),
            Case(name: "per-channel-seq-grey-map", bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(perChannel())]), outcome: .droppedWithWarning),
            Case(name: "per-channel-seq-of-2", bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(perChannel("GainMapMax", ["2", "3"]))], mapChannels: 3),
                 outcome: .droppedWithWarning),
            Case(name: "per-channel-seq-of-4",
                 bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(perChannel("Gamma", ["1", "1", "1", "1"]))], mapChannels: 3),
                 outcome: .droppedWithWarning),
            Case(name: "capacity-as-seq", bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(perChannel("HDRCapacityMax", ["3", "3", "3"]))], mapChannels: 3),
                 outcome: .droppedWithWarning),
            Case(name: "iso-three-channels", bytes: try Files.ultraHDR(mapSegments: [Files.isoSegment(threeChannels)], mapChannels: 3),
                 outcome: .keptAsUltraHDR),
            Case(name: "iso-three-channels-xmp-one",
                 bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(Files.mapXMP(replacing: ["HDRCapacityMax": "3"])), Files.isoSegment(threeChannels)],
                                           mapChannels: 3),
                 outcome: .keptAsUltraHDR),
            Case(name: "iso-three-channels-xmp-three-agreeing",
                 bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(perChannel("GainMapMax", ["2", "2.5", "3"])), Files.isoSegment(threeChannels)],
                                           mapChannels: 3),
                 outcome: .keptAsUltraHDR),
            Case(name: "entities", bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(entities)]), outcome: .droppedWithWarning),
            Case(name: "iso-garbage-first",
                 bytes: try Files.ultraHDR(mapSegments: map(iso: ISOGainMapBlock.header + [9, 9, 9] + validISO.dropFirst(ISOGainMapBlock.header.count))),
                 outcome: .droppedWithWarning),
            Case(name: "iso-multichannel-flag-one-set", bytes: try Files.ultraHDR(mapSegments: map(iso: Files.isoPayload(fractions, flags: 0xC0))),
                 outcome: .droppedWithWarning),
            // Where both are present, a valid ISO block takes precedence over the XMP (ISO 21496-1, libultrahdr).
            Case(name: "iso-xmp-disagree", bytes: try Files.ultraHDR(mapSegments: map(iso: iso(3, (3, 1)))), outcome: .keptAsUltraHDR),
            Case(name: "iso-valid-xmp-nan", bytes: try Files.ultraHDR(mapSegments: map(["GainMapMax": "NaN"], iso: validISO)), outcome: .keptAsUltraHDR),
            Case(name: "iso-valid-xmp-unclosed",
                 bytes: try Files.ultraHDR(mapSegments: [Files.xmpSegment(Files.mapXMP().replacingOccurrences(of: "</rdf:RDF>", with: "")),
                                                         Files.isoSegment(validISO)]),
                 outcome: .keptAsUltraHDR),
            Case(name: "iso-valid-xmp-version-2", bytes: try Files.ultraHDR(mapSegments: map(version: "2", iso: validISO)), outcome: .keptAsUltraHDR),
            Case(name: "iso-valid-after-unparseable",
                 bytes: try Files.ultraHDR(mapSegments: map(["GainMapMax": "NaN"]) + [Files.isoSegment(Array(validISO.prefix(40))), Files.isoSegment(validISO)]),
                 outcome: .keptAsUltraHDR),
            Case(name: "iso-valid-after-out-of-range",
                 bytes: try Files.ultraHDR(mapSegments: map(iso: headroom1030) + [Files.isoSegment(validISO)]), outcome: .keptAsUltraHDR),
            Case(name: "iso-valid-trailing-bytes",
                 bytes: try Files.ultraHDR(mapSegments: map(["GainMapMax": "NaN"], iso: validISO + [1, 2, 3, 4, 5, 6, 7, 8, 9])),
                 outcome: .keptAsUltraHDR),
            Case(name: "iso-two-valid-disagreeing",
                 bytes: try Files.ultraHDR(mapSegments: map(iso: validISO) + [Files.isoSegment(iso(3, (3, 1)))]), outcome: .droppedWithWarning),
            Case(name: "iso-unparseable-alone-xmp-valid",
                 bytes: try Files.ultraHDR(mapSegments: map(iso: Array(validISO.prefix(40)))), outcome: .droppedWithWarning),
            Case(name: "colour-map", bytes: try Files.ultraHDR(mapChannels: 3), outcome: .keptAsUltraHDR),
            Case(name: "cmyk-map", bytes: try Files.ultraHDR(mapChannels: 4), outcome: .droppedWithWarning),
            // Claims with no map behind them, in a packet that parses or not.
            Case(name: "claim-unclosed-element",
                 bytes: try Files.plain(segments: [Files.xmpSegment(claimingPrimary.replacingOccurrences(of: "</rdf:RDF>", with: ""))]),
                 outcome: .droppedWithWarning),
            Case(name: "claim-mismatched-tag",
                 bytes: try Files.plain(segments: [Files.xmpSegment(claimingPrimary.replacingOccurrences(of: "</rdf:Seq>", with: "</rdf:Bag>"))]),
                 outcome: .droppedWithWarning),
            Case(name: "claim-deep-nesting",
                 bytes: try Files.plain(segments: [Files.xmpSegment(String(repeating: "<a>", count: 300)
                                                                    + claimingPrimary + String(repeating: "</a>", count: 300))]),
                 outcome: .droppedWithWarning),
            Case(name: "claim-in-extended-xmp",
                 bytes: try Files.plain(segments: Files.extendedXMP(claimingPrimary)), outcome: .droppedWithWarning),
            Case(name: "claim-iso-version-alone",
                 bytes: try Files.plain(segments: [Files.isoSegment(ISOGainMapBlock.versionPayload)]), outcome: .droppedWithWarning),
            Case(name: "claim-apple-namespace",
                 bytes: try Files.plain(segments: [Files.xmpSegment(Files.appleMapXMP(version: 131072, headroom: "4"))]),
                 outcome: .droppedWithWarning),
            Case(name: "claim-iso-full-block-mpf-to-a-picture",
                 bytes: UltraHDRContainer.assemble(primary: try Files.plain(segments: [Files.isoSegment(validISO)]),
                                                   map: try Files.plain(segments: [])),
                 outcome: .droppedWithWarning),
        ]
    }

    /// The paths a JPEG takes: byte for byte (compress, within budget), header edited in place (convert),
    /// re-encoded (a resize), and a budget search (compress, shrinking).
    static let modes: [(name: String, arguments: [String])] = [
        ("unchanged", ["compress", "--max-bytes", "10MB"]),
        ("convert", ["convert", "--to", "jpeg"]),
        ("resized", ["convert", "--max-dimension", "40"]),
        ("budget", ["compress", "--max-bytes", "6KB"]),
    ]

    struct Check: Decodable {
        var file: String
        var ultrahdr: Bool
        var error: String?
        var claims: [String]
    }

    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func everyOutputIsUltraHDROrClaimsNothing() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases = try Self.cases()
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for item in cases { try Data(item.bytes).write(to: inputs.appendingPathComponent("\(item.name).jpg")) }
        let paths = cases.map { inputs.appendingPathComponent("\($0.name).jpg").path }

        for mode in Self.modes {
            let out = dir.appendingPathComponent(mode.name)
            let run = try TestSupport.imgprep(mode.arguments + paths + ["-o", out.path, "--json"])
            #expect(run.status == 0, "\(mode.name): exit \(run.status): \(run.stderr)")
            let lines = Self.jsonLines(run.stdout).filter { $0["input"] != nil }
            #expect(lines.count == cases.count, "\(mode.name): \(lines.count) report lines for \(cases.count) files")
            let outputs = cases.map { out.appendingPathComponent("\($0.name).jpg").path }
            let check = try TestSupport.run(IndependentUltraHDRReader.python,
                                            [TestSupport.packageRoot.appendingPathComponent("scripts/gainmap_claims.py").path] + outputs)
            #expect(check.status == 0, "\(check.stderr)")
            let checks = try check.stdout.split(separator: "\n").map { try JSONDecoder().decode(Check.self, from: Data($0.utf8)) }
            #expect(checks.count == cases.count, "\(check.stdout) \(check.stderr)")
            for (item, result) in zip(cases, checks) {
                let line = lines.first { ($0["input"] as? String)?.hasSuffix("/\(item.name).jpg") == true } ?? [:]
                let where_ = "\(mode.name)/\(item.name)"
                #expect(line["status"] as? String == "ok", "\(where_): \(line)")
                // The rule: read as Ultra HDR, or no claim at all.
                #expect(result.ultrahdr || result.claims.isEmpty, "\(where_) claims \(result.claims) but libultrahdr says: \(result.error ?? "")")
                let warnings = (line["warnings"] as? [String] ?? []).joined(separator: " | ")
                switch item.outcome {
                case .keptAsUltraHDR:
                    #expect(result.ultrahdr, "\(where_): map not kept: \(result.error ?? "") \(warnings)")
                    #expect(line["gain_map"] is [String: Any], "\(where_): no gain_map in \(line)")
                case .droppedWithWarning:
                    #expect(!result.ultrahdr && result.claims.isEmpty, "\(where_): \(result.claims)")
                    #expect(line["gain_map"] == nil, "\(where_): \(line)")
                    #expect(warnings.contains("gain map"), "\(where_): no warning names the gain map: \(warnings)")
                }
            }
        }
    }

    @Test func infoReadsEveryCaseAndNamesWhatIsWrong() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases = try Self.cases()
        for item in cases { try Data(item.bytes).write(to: dir.appendingPathComponent("\(item.name).jpg")) }
        for item in cases {
            let path = dir.appendingPathComponent("\(item.name).jpg").path
            let run = try TestSupport.imgprep(["info", path, "--json"])
            #expect(run.status == 0, "\(item.name): exit \(run.status): \(run.stderr)")
            let object = try #require(Self.jsonLines(run.stdout).first, "\(item.name): \(run.stdout)")
            let text = try TestSupport.imgprep(["info", path])
            #expect(text.status == 0, "\(item.name): exit \(text.status): \(text.stderr)")
            if item.outcome == .droppedWithWarning {
                #expect(text.stdout.contains("gain map"), "\(item.name): info does not say what is wrong with the gain map:\n\(text.stdout)")
                if let map = object["gain_map"] as? [String: Any] {
                    #expect(map["headroom"] == nil || map["headroom"] is NSNull, "\(item.name): a headroom for a map that fails the checks: \(map)")
                }
            }
        }
    }

    /// A HEIC gain map that is a grid of 1600 references to one 96x64 tile (libheif would decode a
    /// 3840x2560 map for a 96x64 picture, 1600 decodes from a file of a few kilobytes) is refused before
    /// it is decoded, counted tile by tile, whatever its `ispe` says.
    @Test(.enabled(if: TestSupport.toolExists("heif-enc"), "heif-enc (libheif-examples) is not installed"))
    func heicGridGainMapIsCountedTileByTile() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tileJPEG = dir.appendingPathComponent("tile.jpg")
        try Data(try JPEGEncoder().encode(Files.picture(), quality: 80, settings: JPEGSettings())).write(to: tileJPEG)
        let tileHEIC = dir.appendingPathComponent("tile.heic")
        let encode = try TestSupport.run("heif-enc", ["-q", "50", tileJPEG.path, "-o", tileHEIC.path])
        try #require(encode.status == 0, "\(encode.stderr)")
        let bomb = try Files.heicWithGridGainMap(tileFile: try TestSupport.bytes(tileHEIC.path),
                                                 tileWidth: UInt32(Files.width), tileHeight: UInt32(Files.height))
        let path = dir.appendingPathComponent("grid-map.heic").path
        try Data(bomb).write(to: URL(fileURLWithPath: path))
        // libheif reads the file: the picture is the tile.
        let heifInfo = try TestSupport.run("heif-info", [path])
        #expect(heifInfo.stdout.contains("image: 96x64"), "\(heifInfo.stdout) \(heifInfo.stderr)")

        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", path, "-o", output, "--max-pixels", "1000000", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(Self.jsonLines(run.stdout).first)
        #expect(line["status"] as? String == "ok" && line["gain_map"] == nil, "\(line)")
        let warnings = (line["warnings"] as? [String] ?? []).joined(separator: " | ")
        #expect(warnings.contains("gain map") && warnings.contains("pixels"), "\(warnings)")
        #expect(line["width"] as? Int == Files.width && line["height"] as? Int == Files.height, "\(line)")
        let check = try TestSupport.run(IndependentUltraHDRReader.python,
                                        [TestSupport.packageRoot.appendingPathComponent("scripts/gainmap_claims.py").path, output])
        #expect(check.stdout.contains("\"claims\": []"), "\(check.stdout)")

        let info = try TestSupport.imgprep(["info", path])
        #expect(info.status == 0 && info.stdout.contains("decoding the gain map takes"), "\(info.stdout) \(info.stderr)")
    }

    /// Formats that carry no gain map keep no claim to one either: a WebP whose XMP claims Ultra HDR is
    /// re-encoded rather than passed through, and the claim goes with a warning.
    @Test(.enabled(if: TestSupport.toolExists("webpmux"), "webpmux (webp) is not installed"))
    func aWebPThatClaimsAGainMapLosesTheClaim() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let xmp = dir.appendingPathComponent("claim.xmp")
        try Data(Files.primaryXMP.replacingOccurrences(of: "LENGTH", with: "1000").utf8).write(to: xmp)
        let input = dir.appendingPathComponent("claims.webp").path
        let source = TestSupport.packageRoot.appendingPathComponent("Tests/Fixtures/webp/exif-icc.webp").path
        let mux = try TestSupport.run("webpmux", ["-set", "xmp", xmp.path, source, "-o", input])
        try #require(mux.status == 0, "\(mux.stderr)")
        for (name, arguments) in [("kept", ["compress", "--max-bytes", "10MB", "--to", "webp"]), ("jpeg", ["convert"])] {
            let out = dir.appendingPathComponent(name)
            let run = try TestSupport.imgprep(arguments + [input, "-o", out.path, "--json"])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let line = try #require(Self.jsonLines(run.stdout).first)
            #expect(line["unchanged"] as? Bool != true, "\(name): passed through with its claim: \(line)")
            let warnings = (line["warnings"] as? [String] ?? []).joined(separator: " | ")
            #expect(warnings.contains("gain map"), "\(name): \(warnings)")
            let output = try #require(line["output"] as? String)
            let bytes = try TestSupport.bytes(output)
            for namespace in GainMapClaims.namespaces {
                #expect(bytes.firstRange(of: namespace) == nil, "\(name): \(String(decoding: namespace, as: UTF8.self)) is still in the output")
            }
        }
    }
}
