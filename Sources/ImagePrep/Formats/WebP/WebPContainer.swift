internal import CWebP

/// One WebP file as libwebpdemux parses it: the canvas, whether it is lossy, lossless or animated, and
/// its EXIF, XMP and ICC chunks. libwebp checks every chunk size and offset against the file itself, so
/// no RIFF parsing of ours touches the bytes. The demuxer points into `storage`, which lives as long.
final class WebPContainer {
    enum Kind: String { case lossy, lossless, mixed = "lossy and lossless", animated }

    let width: Int
    let height: Int
    let hasAlpha: Bool
    let kind: Kind
    let frameCount: Int
    /// Times an animation plays (0 forever) and the sum of its frames' durations in milliseconds.
    let loopCount: Int
    let totalDuration: Int
    let metadata: ImageMetadata
    /// Oddities that do not stop decoding, as sentences.
    let warnings: [String]

    private let demuxer: OpaquePointer
    private let storage: UnsafeMutableBufferPointer<UInt8>

    init(_ file: [UInt8]) throws {
        var features = WebPBitstreamFeatures()
        let status = file.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else { throw webpError(status, "cannot read the WebP header") }

        storage = .allocate(capacity: max(file.count, 1))
        _ = storage.initialize(from: file)
        var data = WebPData(bytes: storage.baseAddress, size: file.count)
        guard let demuxer = WebPDemux(&data) else {
            storage.deallocate()
            throw ImagePrepError.library("libwebp", "the RIFF chunks are damaged or the file is truncated")
        }
        self.demuxer = demuxer

        width = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH))
        height = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
        hasAlpha = features.has_alpha != 0
        frameCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        loopCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT))
        totalDuration = Self.totalDuration(demuxer, frames: frameCount)
        kind = features.has_animation != 0 ? .animated : features.format == 2 ? .lossless : features.format == 1 ? .lossy : .mixed

        var warnings: [String] = []
        var exif = Self.chunk("EXIF", in: demuxer)
        // WebP's EXIF chunk holds a bare TIFF block; some writers keep JPEG's "Exif\0\0" in front.
        if let tiff = exif, tiff.starts(with: JPEGSegment.exifHeader) { exif = Array(tiff.dropFirst(JPEGSegment.exifHeader.count)) }
        for fourCC in ["EXIF", "XMP ", "ICCP"] where Self.chunkCount(fourCC, in: demuxer) > 1 {
            warnings.append("the WebP file has several \(fourCC.trimmingCharacters(in: .whitespaces)) chunks; the first is kept")
        }
        var metadata = ImageMetadata(exif: exif, xmp: Self.chunk("XMP ", in: demuxer))
        metadata.setICC(Self.chunk("ICCP", in: demuxer), for: [.rgb], warnings: &warnings)   // WebP has no gray or CMYK
        self.metadata = metadata
        self.warnings = warnings
    }

    deinit {
        WebPDemuxDelete(demuxer)
        storage.deallocate()
    }

    /// The bytes libwebp decodes from (the demuxer's own copy).
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(storage))
    }

    private static func totalDuration(_ demuxer: OpaquePointer, frames: Int) -> Int {
        var total = 0
        var iterator = WebPIterator()
        guard frames > 1, WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { return 0 }
        defer { WebPDemuxReleaseIterator(&iterator) }
        repeat { total += Int(iterator.duration) } while WebPDemuxNextFrame(&iterator) != 0
        return total
    }

    /// The first chunk of that type, copied out; nil when absent or empty.
    private static func chunk(_ fourCC: String, in demuxer: OpaquePointer) -> [UInt8]? {
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, fourCC, 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let bytes = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: bytes, count: iterator.chunk.size))
    }

    private static func chunkCount(_ fourCC: String, in demuxer: OpaquePointer) -> Int {
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, fourCC, 1, &iterator) != 0 else { return 0 }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        return Int(iterator.num_chunks)
    }
}

/// The one place a libwebp decoder status becomes a Swift error.
func webpError(_ status: VP8StatusCode, _ what: String) -> ImagePrepError {
    let (reason, kind): (String, ImagePrepError.Kind) = switch status {
    case VP8_STATUS_OUT_OF_MEMORY: ("out of memory", .io)
    case VP8_STATUS_INVALID_PARAM: ("invalid parameter", .corrupt)
    case VP8_STATUS_BITSTREAM_ERROR: ("the bitstream is damaged", .corrupt)
    case VP8_STATUS_UNSUPPORTED_FEATURE: ("a feature libwebp does not support", .unsupported)
    case VP8_STATUS_SUSPENDED: ("decoding was suspended", .corrupt)
    case VP8_STATUS_USER_ABORT: ("decoding was aborted", .corrupt)
    case VP8_STATUS_NOT_ENOUGH_DATA: ("the file is truncated", .corrupt)
    default: ("status \(status.rawValue)", .corrupt)
    }
    return ImagePrepError.library("libwebp", "\(what): \(reason)", kind: kind)
}
