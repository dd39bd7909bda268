import Foundation
@testable import ImagePrep

extension FuzzTarget {
    static let jxl = FuzzTarget("jxl", run: fuzzJXL)
    /// The container's metadata boxes as imgprep reads them, and Brotli under the cap.
    static let jxlBoxes = FuzzTarget("jxl-boxes", maxLength: 131_072, run: fuzzJXLBoxes)

    private static func fuzzJXLBoxes(_ bytes: [UInt8]) {
        let limit = 1 << 20
        let boxes = JXLMetadataBoxes(bytes, limit: limit)
        precondition((boxes.exifBox?.count ?? 0) <= limit && (boxes.xmp?.count ?? 0) <= limit, "a metadata box over the cap was kept")
        var warnings: [String] = []
        if let exif = boxes.exifBox { _ = JXLFile.tiff(fromExifBox: exif, warnings: &warnings) }
        // The bytes as a Brotli stream themselves (libFuzzer finds its way into valid ones).
        if case .success(let output) = BrotliStream.decompress(bytes[...], limit: limit) {
            precondition(output.count <= limit, "Brotli output over the cap")
        }
    }

    /// The JPEG XL header probe (our Swift) against libjxl's basic info, the decode under a small pixel cap,
    /// and the box rewrite: what the probe reads is what libjxl decodes.
    private static func fuzzJXL(_ bytes: [UInt8]) {
        _ = JXLStructure.boxes(bytes)
        let probed = JXLStructure.header(bytes)
        let options = DecodeOptions(maxPixels: 1 << 18)
        if let header = try? JXLDecoder().header(of: bytes), let probed {
            precondition((header.width, header.height) == (probed.width, probed.height), "the probe and libjxl disagree on the size")
        }
        _ = try? JXLBoxes.uncompressed(bytes)
        guard let decoded = try? JXLDecoder().decode(bytes, options: options) else { return }
        precondition(decoded.content.width * decoded.content.height <= options.maxPixels, "decoded a JPEG XL over the pixel cap")
        if let probed {
            precondition((decoded.content.width, decoded.content.height) == (probed.width, probed.height), "decoded size differs from the probe")
        }
    }
}
