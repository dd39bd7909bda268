import CImageQuant

/// PNG's lossy mode: a picture brought down to at most 256 colours (alpha included) by libimagequant,
/// the quantizer of pngquant, sharp and libvips, then written as a palette PNG by PNGEncoder.
enum PNGPalette {
    /// libimagequant's speed 1 (slowest) ... 10: 4 is pngquant's default, and libvips' and sharp's.
    static let speed: Int32 = 4

    /// `image` remapped to a palette: as few colours as keep libimagequant's error within `quality`
    /// (0...100, its scale, as libvips' and sharp's `quality`; 100 is the full 256), with `dithering`
    /// from 0 (none) to 1 (full Floyd-Steinberg). The same pixels always give the same palette.
    static func quantized(_ image: PixelBuffer, quality: Int, dithering: Float) throws -> PixelBuffer {
        guard (0...100).contains(quality), (0...1).contains(dithering) else {
            throw failure("quality \(quality), dithering \(dithering) outside 0...100, 0...1", kind: .unsupported)
        }
        guard let width = Int32(exactly: image.width), let height = Int32(exactly: image.height) else {
            throw failure("a \(image.width)x\(image.height) picture is too large to quantize", kind: .tooLarge)
        }
        let rgba = image.channels == 4 ? image.pixels : withAlpha(image)
        omp_set_num_threads(1)
        guard let attributes = liq_attr_create() else { throw failure("out of memory", kind: .tooLarge) }
        defer { liq_attr_destroy(attributes) }
        try check(liq_set_speed(attributes, speed))
        try check(liq_set_quality(attributes, 0, Int32(quality)))
        var indices = [UInt8](repeating: 0, count: image.width * image.height)
        let palette: [liq_color] = try rgba.withUnsafeBufferPointer { pixels in
            // libimagequant reads the pixels in place until its image is destroyed.
            guard let base = pixels.baseAddress, let liqImage = liq_image_create_rgba(attributes, base, width, height, 0) else {
                throw failure("a \(image.width)x\(image.height) picture is too large to quantize", kind: .tooLarge)
            }
            defer { liq_image_destroy(liqImage) }
            var result: OpaquePointer?
            try check(liq_image_quantize(liqImage, attributes, &result))
            guard let result else { throw failure("no palette", kind: .unsupported) }
            defer { liq_result_destroy(result) }
            try check(liq_set_dithering_level(result, dithering))
            try indices.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { throw failure("an empty picture", kind: .unsupported) }
                try check(liq_write_remapped_image(result, liqImage, base, buffer.count))
            }
            guard let entries = liq_get_palette(result)?.pointee else { throw failure("no palette", kind: .unsupported) }
            let count = Int(min(entries.count, 256))
            return withUnsafeBytes(of: entries.entries) { Array($0.bindMemory(to: liq_color.self).prefix(count)) }
        }
        guard !palette.isEmpty else { throw failure("an empty palette", kind: .unsupported) }
        let channels = image.channels
        var pixels = [UInt8](repeating: 0, count: indices.count * channels)
        for (pixel, index) in indices.enumerated() {
            let colour = palette[min(Int(index), palette.count - 1)]   // libimagequant's indices are within its palette
            pixels[pixel * channels] = colour.r
            pixels[pixel * channels + 1] = colour.g
            pixels[pixel * channels + 2] = colour.b
            if channels == 4 { pixels[pixel * channels + 3] = colour.a }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: channels, pixels: pixels)
    }

    private static func withAlpha(_ image: PixelBuffer) -> [UInt8] {
        var rgba = [UInt8](repeating: 255, count: image.width * image.height * 4)
        for pixel in 0..<image.width * image.height {
            rgba[pixel * 4] = image.pixels[pixel * 3]
            rgba[pixel * 4 + 1] = image.pixels[pixel * 3 + 1]
            rgba[pixel * 4 + 2] = image.pixels[pixel * 3 + 2]
        }
        return rgba
    }

    private static func check(_ error: liq_error) throws {
        switch error {
        case LIQ_OK: return
        case LIQ_OUT_OF_MEMORY: throw failure("out of memory", kind: .tooLarge)
        case LIQ_QUALITY_TOO_LOW: throw failure("quality too low", kind: .unsupported)
        case LIQ_VALUE_OUT_OF_RANGE: throw failure("value out of range", kind: .unsupported)
        default: throw failure("error \(error.rawValue)", kind: .unsupported)
        }
    }

    private static func failure(_ message: String, kind: ImagePrepError.Kind) -> ImagePrepError {
        .library("libimagequant", message, kind: kind)
    }
}

extension CodecLibrary {
    /// Debian's 2.17.0 answers liq_version() with its header's 21600: the version string it was built against.
    static let libimagequant = CodecLibrary("libimagequant") { "\(LIQ_VERSION_STRING) (built against)" }
}
