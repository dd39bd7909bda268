import Foundation
import Testing
@testable import ImagePrep

/// Names in a manifest are the files': a name that is not UTF-8, and names that differ only in Unicode
/// normalisation, each get their own entry whose paths and URLs lead to the files written; every URL in
/// markup, `--base-url` included, parses as one URL in a `srcset` candidate.
@Suite struct ManifestNamesTests {
    /// `src/\xFF.png`, `src/café.png` in NFC and in NFD: three inputs, three entries, and every output the
    /// JSON report lists is a variant of the manifest, whose path (read by Python's json, as a script
    /// would) opens that file and whose URL is its bytes percent-encoded.
    @Test func everyInputHasItsEntryAndEveryPathNamesTheFileWritten() throws {
        let names: [[UInt8]] = [[0xFF, 0x2E, 0x70, 0x6E, 0x67], Array("caf\u{E9}.png".utf8), Array("cafe\u{301}.png".utf8)]
        let scratch = try OutputContainmentTests.Scratch(names.map { Array("src/".utf8) + $0 })
        let run = try scratch.run(["convert", "-r", "src", "--to", "webp,jpeg", "--widths", "40", "-o", "out",
                                   "--manifest", "out/m.json", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let manifest = try Manifest.decode(scratch.bytes("out/m.json"))
        #expect(Set(manifest.images.keys.map { RawPath.bytes($0.path) }) == Set(names))
        // The report's outputs, by bytes.
        let reported = try BatchTests.jsonLines(run.stdout).filter { $0["summary"] == nil }.map { line -> [UInt8] in
            if let encoded = line["output_bytes"] as? String { return [UInt8](Data(base64Encoded: encoded) ?? Data()) }
            return Array((line["output"] as? String ?? "").utf8)
        }
        let listed = manifest.images.values.flatMap(\.variants).map { Array("out/".utf8) + RawPath.bytes($0.path) }
        #expect(reported.count == 6 && Set(reported) == Set(listed), "\(run.stdout)")
        for path in listed { #expect((try? InputFile.read(RawPath.decode(scratch.directory.path.utf8 + [0x2F] + path))) != nil) }
        let odd = try #require(manifest.images[ManifestSource(RawPath.decode(names[0]))])
        #expect(odd.html.contains("src=\"%FF-40.jpg\""), "\(odd.html)")
        #expect(!(try scratch.bytes("out/m.json")).indices.dropLast().contains { i in
            (try? scratch.bytes("out/m.json"))?[i] == 0xF4 })

        // Python opens every path as json.load gives it (surrogateescape is the file system's encoding).
        let check = """
        import json, os, sys
        d = json.load(open(sys.argv[1], encoding="utf-8"))
        assert len(d["images"]) == 3, d["images"].keys()
        for key, entry in d["images"].items():
            assert os.path.isfile(os.path.join("src", key)), ascii(key)
            for v in entry["variants"]:
                assert os.path.isfile(os.path.join("out", v["path"])), ascii(v["path"])
        print("ok")
        """
        let python = try TestSupport.run("python3", ["-c", check, "out/m.json"], cwd: scratch.directory)
        #expect(python.stdout == "ok\n", "\(python.stderr)")
    }

    /// The candidates of a `srcset` as the HTML standard splits them: a URL runs to the next white space
    /// (trailing commas belong to the list), then descriptors up to a comma.
    static func candidates(_ srcset: String) -> [(url: String, descriptor: String)] {
        var out: [(String, String)] = []
        var rest = Substring(srcset)
        while true {
            rest = rest.drop { $0 == "," || $0.isWhitespace }
            guard !rest.isEmpty else { return out }
            var url = rest.prefix { !$0.isWhitespace }
            rest = rest.dropFirst(url.count)
            var descriptor = ""
            if url.hasSuffix(",") {
                while url.hasSuffix(",") { url = url.dropLast() }
            } else {
                descriptor = String(rest.prefix { $0 != "," }).trimmingCharacters(in: .whitespaces)
                rest = rest.dropFirst(rest.prefix { $0 != "," }.count)
            }
            out.append((String(url), descriptor))
        }
    }

    @Test(arguments: ["https://cdn.example/my dir", "https://cdn.example/a,b/", "https://cdn.example/x\"y<z>/%zz/50%/é",
                      "https://cdn.example/tab\there", "https://cdn.example/ok%20already"])
    func everyURLInMarkupParsesAsOneURLAndAWidth(base: String) throws {
        let variants = [ManifestVariant(format: "webp", width: 480, height: 360, bytes: 1, path: "my pics/a, b-480.webp"),
                        ManifestVariant(format: "jpeg", width: 480, height: 360, bytes: 1, path: "my pics/a, b-480.jpg"),
                        ManifestVariant(format: "jpeg", width: 960, height: 720, bytes: 1, path: "my pics/a, b-960.jpg")]
        let html = PictureMarkup.html(variants: variants, alt: "", sizes: "100vw", baseURL: base)
        let srcsets = html.components(separatedBy: "srcset=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(srcsets.count == 2)
        for srcset in srcsets {
            let parsed = Self.candidates(srcset.replacingOccurrences(of: "&amp;", with: "&"))
            #expect(parsed.count == srcset.components(separatedBy: "w, ").count, "\(srcset)")
            for (url, descriptor) in parsed {
                #expect(descriptor == "480w" || descriptor == "960w", "\(srcset)")
                let parsedURL = try #require(URL(string: url), "\(url)")
                #expect(parsedURL.host == "cdn.example", "\(url)")
                #expect(url.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && !"\"<>{}|\\^`".unicodeScalars.contains($0) }, "\(url)")
            }
        }
        let src = try #require(html.components(separatedBy: " src=\"").dropFirst().first.map { String($0.prefix { $0 != "\"" }) })
        #expect(URL(string: src)?.host == "cdn.example" && !src.contains(" ") && src.hasSuffix("/my%20pics/a%2C%20b-960.jpg"), "\(src)")
        #expect(PictureMarkup.url("a.jpg", baseURL: "https://cdn.example/ok%20already") == "https://cdn.example/ok%20already/a.jpg")
        #expect(PictureMarkup.url("a.jpg", baseURL: "https://cdn.example/50%") == "https://cdn.example/50%25/a.jpg")
    }
}
