internal import CGif

/// One GIF open in giflib, read record by record from our own copy of the bytes: giflib only decodes
/// the LZW data of the images asked for, a row at a time, into a buffer of ours. Records and limits were
/// read and checked in Swift first (`GIFStructure`); this follows the same records and stops where asked.
final class GIFReader {
    /// One image's colour table as giflib read it (local, else global), as packed RGB triples.
    struct ImageRecord {
        var left: Int, top: Int, width: Int, height: Int
        var palette: [UInt8]
    }

    private let gif: UnsafeMutablePointer<GifFileType>
    private let source: GIFSource

    init(_ file: [UInt8]) throws {
        source = GIFSource(file)
        var error: Int32 = 0
        let opened = DGifOpen(Unmanaged.passUnretained(source).toOpaque(), { gif, buffer, count in
            guard let gif, let buffer, count > 0, let user = gif.pointee.UserData else { return 0 }
            return Unmanaged<GIFSource>.fromOpaque(user).takeUnretainedValue().read(into: buffer, count: Int(count))
        }, &error)
        guard let opened else { throw Self.error(error, "cannot read the screen descriptor") }
        gif = opened
    }

    deinit {
        var error: Int32 = 0
        DGifCloseFile(gif, &error)
    }

    /// Skips extensions up to the next image descriptor and reads it. The caller reads exactly its rows next.
    func nextImage() throws -> ImageRecord {
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &type) != GIF_ERROR else { throw failure("cannot read the next record") }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(gif) != GIF_ERROR else { throw failure("cannot read an image descriptor") }
                let image = gif.pointee.Image
                guard let map = image.ColorMap ?? gif.pointee.SColorMap, let colors = map.pointee.Colors,
                      map.pointee.ColorCount > 0 else {
                    throw ImagePrepError(.corrupt, "a GIF frame has no colour table (neither its own nor a global one)")
                }
                var palette = [UInt8](); palette.reserveCapacity(Int(map.pointee.ColorCount) * 3)
                for entry in UnsafeBufferPointer(start: colors, count: Int(map.pointee.ColorCount)) {
                    palette += [entry.Red, entry.Green, entry.Blue]
                }
                return ImageRecord(left: Int(image.Left), top: Int(image.Top), width: Int(image.Width),
                                   height: Int(image.Height), palette: palette)
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) != GIF_ERROR else { throw failure("cannot read an extension") }
                while block != nil {
                    guard DGifGetExtensionNext(gif, &block) != GIF_ERROR else { throw failure("cannot read an extension") }
                }
            default:
                throw ImagePrepError(.corrupt, "giflib: the GIF ends before the frame its records announced")
            }
        }
    }

    /// The image's next row (in stored order: interlaced images come pass by pass) into `row`, which is
    /// exactly the image's width.
    func readRow(into row: inout [UInt8]) throws {
        let status = row.withUnsafeMutableBufferPointer { DGifGetLine(gif, $0.baseAddress, Int32($0.count)) }
        guard status != GIF_ERROR else { throw failure("the LZW data of a frame is damaged or ends early") }
    }

    /// Skips the LZW data of an image with no pixels (giflib has no row to hand back).
    func skipImageData() throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(gif, &codeSize, &block) != GIF_ERROR else { throw failure("cannot skip a frame's data") }
        while block != nil {
            guard DGifGetCodeNext(gif, &block) != GIF_ERROR else { throw failure("cannot skip a frame's data") }
        }
    }

    private func failure(_ what: String) -> ImagePrepError { Self.error(gif.pointee.Error, what) }

    /// The one place a giflib error code becomes a Swift error.
    private static func error(_ code: Int32, _ what: String) -> ImagePrepError {
        let reason = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        let kind: ImagePrepError.Kind = code == D_GIF_ERR_NOT_ENOUGH_MEM ? .io : .corrupt
        return ImagePrepError.library("giflib", "\(what): \(reason.trimmingCharacters(in: .punctuationCharacters))", kind: kind)
    }
}

/// The bytes giflib reads through its input callback, and how far it has read.
private final class GIFSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Copies up to `count` bytes; fewer at the end (giflib then reports a read error).
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        let available = min(count, bytes.count - offset)
        guard available > 0 else { return 0 }
        for i in 0..<available { buffer[i] = bytes[offset + i] }
        offset += available
        return Int32(available)
    }
}
