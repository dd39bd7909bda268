import CImageCodecs

/// Runs a CImageCodecs call and turns its nonzero result into `ImagePrepError.library`.
func callCodec(_ library: String, kind: ImagePrepError.Kind = .corrupt,
               _ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
    var message = [CChar](repeating: 0, count: 512)
    let status = message.withUnsafeMutableBufferPointer { buffer in
        // A non-empty array always has a base address.
        call(buffer.baseAddress!, buffer.count)
    }
    if status != 0 {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw ImagePrepError.library(library, text, kind: kind)
    }
}

/// Owns a buffer our C code allocated.
final class CodecBuffer {
    private let pointer: UnsafeMutablePointer<UInt8>

    init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
    deinit { cic_free(pointer) }
}
