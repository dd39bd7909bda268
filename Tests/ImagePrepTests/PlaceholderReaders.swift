import Foundation
@testable import ImagePrep

/// PyPI's `thumbhash` 0.1.2 and `blurhash` 1.1.5 in .venv-test (make testenv): encoders and decoders
/// that are not ours, run on a picture the test writes as raw bytes.
enum PlaceholderReaders {
    /// The venv's Python, when it can import both.
    static let python: String? = {
        let path = TestSupport.packageRoot.appendingPathComponent(".venv-test/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: path),
              let run = try? TestSupport.run(path, ["-c", "import thumbhash, blurhash"]), run.status == 0 else { return nil }
        return path
    }()

    /// One JSON object from the script below: `mode` is thumbhash-decode, blurhash-decode,
    /// thumbhash-encode or blurhash-encode; `pixels` (RGBA for ThumbHash, RGB for BlurHash) are written
    /// to a file for the encoders.
    static func run(_ mode: String, _ argument: String, pixels: PixelBuffer? = nil) throws -> [String: Any] {
        guard let python else { throw ImagePrepError(.io, "no .venv-test python with thumbhash and blurhash") }
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = ["-c", script, mode, argument]
        if let pixels {
            let file = directory.appendingPathComponent("pixels.raw")
            try Data(pixels.pixels).write(to: file)
            arguments += [file.path, String(pixels.width), String(pixels.height)]
        }
        let result = try TestSupport.run(python, arguments)
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last,
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw ImagePrepError(.io, "python \(mode) failed: \(result.stderr)")
        }
        return object
    }

    // thumb_hash_to_rgba in 0.1.2 paints every pixel alike (its cosine tables are never reset), so only
    // its average colour and aspect ratio are read; blurhash's decoder is whole.
    static let script = #"""
import sys, json, base64, io, contextlib
import thumbhash, blurhash
mode, arg = sys.argv[1], sys.argv[2]
if mode == "thumbhash-decode":
    h = list(base64.b64decode(arg))
    r, g, b, a = thumbhash.thumb_hash_to_average_rgba(h)
    print(json.dumps({"average": [r, g, b, a], "aspect": thumbhash.thumb_hash_to_approximate_aspect_ratio(h)}))
elif mode == "blurhash-decode":
    w, h = 32, 24
    px = blurhash.decode(arg, w, h)
    print(json.dumps({"components": blurhash.components(arg), "width": w, "height": h,
                      "pixels": [c for row in px for p in row for c in p]}))
else:
    raw = open(sys.argv[3], "rb").read()
    w, h = int(sys.argv[4]), int(sys.argv[5])
    if mode == "thumbhash-encode":
        print(json.dumps({"hash": base64.b64encode(bytes(thumbhash.rgba_to_thumb_hash(w, h, list(raw)))).decode()}))
    else:
        image = [[list(raw[3 * (y * w + x):3 * (y * w + x) + 3]) for x in range(w)] for y in range(h)]
        print(json.dumps({"hash": blurhash.encode(image, 4, 3)}))
"""#
}

/// Synthetic pictures for the placeholder, colour and crop tests.
enum Pictures {
    /// `width` x `height`, each pixel from `colour(x, y)` (RGB or RGBA by the tuple's alpha).
    static func make(_ width: Int, _ height: Int, alpha: Bool = false,
                     _ colour: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> PixelBuffer {
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = colour(x, y)
                let at = (y * width + x) * channels
                pixels[at] = r
                pixels[at + 1] = g
                pixels[at + 2] = b
                if alpha { pixels[at + 3] = a }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// The mean of each of R, G, B in 0...1 (alpha ignored).
    static func mean(_ picture: PixelBuffer) -> [Double] {
        var sums = [0.0, 0.0, 0.0]
        for i in 0..<(picture.width * picture.height) {
            for k in 0..<3 { sums[k] += Double(picture.pixels[i * picture.channels + k]) }
        }
        return sums.map { $0 / Double(picture.width * picture.height) / 255 }
    }

    /// A smooth landscape picture: a horizontal hue ramp over a vertical brightness ramp.
    static let ramp = make(300, 200) { x, y in
        (UInt8(40 + x * 180 / 300), UInt8(60 + y * 150 / 200), UInt8(200 - x * 150 / 300), 255)
    }
    static let portrait = make(60, 180) { x, y in (UInt8(200 - y), UInt8(30 + x), 90, 255) }
    static let halves = make(120, 80) { x, _ in x < 60 ? (220, 30, 30, 255) : (30, 30, 220, 255) }
    static let noise = make(97, 61) { x, y in (UInt8((x * 37 + y * 91) % 256), UInt8((x * x + y) % 256), UInt8((y * y * 7) % 256), 255) }
    static let orangeDot = make(1, 1) { _, _ in (250, 120, 10, 255) }
    static let square = make(64, 64) { x, y in (UInt8(x * 4), UInt8(y * 4), 128, 255) }

    /// Test arguments by name, so a failing case prints a word, not every pixel.
    static let named: [String: PixelBuffer] = [
        "ramp 300x200": ramp, "portrait 60x180": portrait, "halves 120x80": halves, "noise 97x61": noise,
        "1x1": orangeDot, "square 64x64": square,
        "10x5": make(10, 5) { _, _ in (200, 100, 50, 255) },
        "20x2000": make(20, 2000) { _, _ in (10, 200, 90, 255) },
        "blue 1x1": make(1, 1) { _, _ in (0, 0, 255, 255) },
        "5000x2": make(5000, 2) { _, _ in (90, 90, 90, 255) },
    ]

    static func named(_ name: String) throws -> PixelBuffer {
        guard let picture = named[name] else { throw ImagePrepError(.io, "no test picture \(name)") }
        return picture
    }
}
