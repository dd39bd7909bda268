import Foundation

/// `--color srgb`: pixels converted from the source's colour profile (an ICC profile, or the one we
/// make from nclx code points) to sRGB with LittleCMS, for sites that strip or ignore profiles.
/// 8-bit pictures convert after resizing (fewer pixels, same result); deeper samples convert in the
/// decoder, before they are reduced to 8 bits.
enum SRGBConversion {
    /// A transform to sRGB for pixels laid out as `stride` samples of `bytesPerSample` bytes, or nil
    /// when there is nothing to do: no profile (viewers assume sRGB) or a profile that is sRGB already.
    /// A profile lcms cannot use leaves the pixels as they are, with a warning.
    static func transform(for profile: [UInt8]?, bytesPerSample: Int, stride: Int,
                          warnings: inout [String]) -> ColorTransform? {
        guard let profile, !profile.isEmpty else { return nil }
        // The profile header's colour space (bytes 16-19): a gray profile reads R of our R=G=B pixels.
        let gray = profile.count >= 20 && profile[16..<20].elementsEqual("GRAY".utf8)
        let layout = ColorTransform.Layout(gray: gray, bytesPerSample: bytesPerSample, stride: stride)
        do {
            let transform = try ColorTransform(from: profile, input: layout, outputStride: stride)
            return try isIdentity(from: profile, gray: gray) ? nil : transform
        } catch {
            warnings.append("cannot convert to sRGB (\(error)); the pixels are left as they are and labelled sRGB")
            return nil
        }
    }

    /// Whether a file with this profile may stay as it is under `--color srgb`: no profile, or an sRGB one
    /// lcms reads (and, when metadata is stripped, no profile at all).
    static func isSRGB(_ profile: [UInt8]?, stripping: Bool) -> Bool {
        guard let profile else { return true }
        if stripping { return false }
        var warnings: [String] = []
        return transform(for: profile, bytesPerSample: 1, stride: 3, warnings: &warnings) == nil && warnings.isEmpty
    }

    /// True when the profile maps a grid of colours onto themselves within one level: it is sRGB, and
    /// converting would only add rounding.
    private static func isIdentity(from profile: [UInt8], gray: Bool) throws -> Bool {
        let levels: [UInt8] = [0, 16, 48, 96, 128, 160, 208, 255]
        var samples: [UInt8] = []
        for r in levels { for g in levels { for b in levels { samples += gray ? [r, r, r] : [r, g, b] } } }
        let probe = try ColorTransform(from: profile, input: .init(gray: gray, bytesPerSample: 1, stride: 3), outputStride: 3)
        var converted = [UInt8](repeating: 0, count: samples.count)
        samples.withUnsafeBytes { input in
            converted.withUnsafeMutableBytes { output in
                // Both arrays are non-empty, so their base addresses exist.
                probe.apply(input.baseAddress!, output.baseAddress!, count: samples.count / 3)
            }
        }
        return zip(samples, converted).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
    }

    /// 8-bit RGB(A) converted in bands on `threads` threads; alpha is copied.
    static func converted(_ image: PixelBuffer, with transform: ColorTransform, threads: Int) -> PixelBuffer {
        let rowBytes = image.rowBytes, width = image.width
        let pixels = [UInt8](unsafeUninitializedCapacity: image.pixels.count) { out, count in
            image.pixels.withUnsafeBufferPointer { input in
                // A picture has at least one pixel, so both buffers have base addresses.
                let source = SharedPointer(UnsafeMutablePointer(mutating: input.baseAddress!)), destination = SharedPointer(out.baseAddress!)
                inBands(of: image.height, threads: threads) { rows in
                    for y in rows {
                        transform.apply(source.pointer + y * rowBytes, destination.pointer + y * rowBytes, count: width)
                    }
                }
                if image.hasAlpha {
                    for i in stride(from: 3, to: image.pixels.count, by: 4) { out[i] = input[i] }
                }
            }
            count = image.pixels.count
        }
        return PixelBuffer(width: image.width, height: image.height, channels: image.channels, pixels: pixels)
    }
}
