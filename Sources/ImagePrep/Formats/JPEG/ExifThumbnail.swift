/// The EXIF thumbnail turned the way the picture was. Viewers and file browsers show IFD1's thumbnail
/// with IFD0's Orientation, which the output resets to 1, so a thumbnail left as the camera stored it
/// would show on its side. exiftran and jhead turn it too; ImageMagick's -auto-orient leaves it stale.
enum ExifThumbnail {
    /// EXIF thumbnails are about 160x120; anything larger than this is not decoded.
    static let maxPixels = 1024 * 1024
    /// As cameras write them: small, and the EXIF block must stay within one JPEG segment.
    static let quality = 90

    /// What to do with `tiff`'s thumbnail: keep it when the picture is not turned, else an upright copy,
    /// else drop it with a warning.
    static func change(for tiff: [UInt8], warnings: inout [String]) -> ExifPatchOptions.ThumbnailChange {
        let orientation = ExifOrientation(exifValue: Exif.orientation(in: tiff) ?? 1)
        guard orientation != .up, Exif.hasThumbnail(tiff) else { return .keep }
        do {
            guard let jpeg = Exif.thumbnailJPEG(in: tiff) else {
                throw ImagePrepError(.unsupported, "it is not a JPEG inside the EXIF block")
            }
            return .replace(try turned(jpeg, orientation))
        } catch let error as ImagePrepError {
            warnings.append("dropped the EXIF thumbnail: it could not be turned upright (\(error.description))")
        } catch {
            warnings.append("dropped the EXIF thumbnail: it could not be turned upright")
        }
        return .drop
    }

    static func turned(_ jpeg: [UInt8], _ orientation: ExifOrientation) throws -> [UInt8] {
        let size = try JPEGDecoder.dimensions(of: jpeg)
        guard size.width > 0, size.height > 0, size.width <= maxPixels / size.height else {
            throw ImagePrepError(.tooLarge, "\(size.width)x\(size.height) is not a thumbnail")
        }
        let upright = oriented(try JPEGDecoder.decode(jpeg), orientation)
        // Baseline without JFIF, as cameras write them.
        return try JPEGEncoder().encode(upright, quality: quality, settings: JPEGSettings(writeJFIF: false))
    }
}

extension Exif {
    /// The JPEG thumbnail's bytes (IFD1's JPEGInterchangeFormat and its length), or nil when there is
    /// none, it is stored otherwise (strips) or its offsets do not lie inside the block.
    public static func thumbnailJPEG(in tiff: [UInt8]) -> [UInt8]? {
        guard let block = try? TIFFBlock(tiff), let ifd0 = try? block.directory(at: block.ifd0Offset, "IFD0"),
              let ifd1Offset = try? block.u32(at: ifd0.nextPointerPosition), ifd1Offset != 0,
              let ifd1 = try? block.directory(at: ifd1Offset, "IFD1"),
              let startEntry = ifd1.entry(0x0201), let lengthEntry = ifd1.entry(0x0202),
              let start = (try? block.integers(startEntry))??.first, let length = (try? block.integers(lengthEntry))??.first,
              start >= 8, length > 0, length <= tiff.count - start else { return nil }
        return Array(tiff[start..<(start + length)])
    }
}
