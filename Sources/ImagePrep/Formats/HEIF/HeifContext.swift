import CHeif

/// Owns one decoded libheif image.
final class HeifImage {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { heif_image_release(pointer) }
}

/// Owns a libheif context for one file, and the bytes it reads from.
final class HeifContext {
    let pointer: OpaquePointer
    /// libheif reads from this copy without copying it again, so it lives exactly as long as the context.
    private let storage: UnsafeMutableRawBufferPointer

    init(_ file: [UInt8], threads: Int) throws {
        try HeifReferenceLoops.check(file)  // libheif 1.15 would recurse until it aborts
        try LibHeif.load()
        var (context, storage, error) = try Self.open(file, threads: threads)
        // libheif 1.15 rejects iPhone gain-map files over a reference shape it did not expect;
        // retry once with the references tidied (see HeifReferenceRepair).
        if error.code != heif_error_Ok, HeifReferenceRepair.isWorkaroundCandidate(message: message(of: error)),
           let repaired = repairedForLibheif115(file) {
            heif_context_free(context)
            storage.deallocate()
            (context, storage, error) = try Self.open(repaired.bytes, threads: threads)
        }
        self.pointer = context
        self.storage = storage
        if error.code != heif_error_Ok, message(of: error).contains("does not include any supported brands"),
           let ftyp = FileTypeBox(file) {
            // A sequence brand without a still-image brand: libheif's own wording does not say what is wrong.
            let brands = ([ftyp.major] + ftyp.compatible).filter { $0 != "    " }.map { "'\($0)'" }.joined(separator: ", ")
            throw ImagePrepError(.unsupported, "an image sequence with no still image (brands \(brands)); libheif 1.15 reads only still images")
        }
        try check(error, "cannot read the HEIF file")  // deinit frees both
    }

    deinit {
        heif_context_free(pointer)
        storage.deallocate()
    }

    private static func open(_ bytes: [UInt8], threads: Int) throws
        -> (OpaquePointer, UnsafeMutableRawBufferPointer, heif_error)
    {
        guard let context = heif_context_alloc() else { throw ImagePrepError.library("libheif", "out of memory") }
        heif_context_set_max_decoding_threads(context, Int32(threads))
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        let error = heif_context_read_from_memory_without_copy(context, storage.baseAddress, bytes.count, nil)
        return (context, storage, error)
    }

    func primaryImage() throws -> OpaquePointer {
        var handle: OpaquePointer?
        try check(heif_context_get_primary_image_handle(pointer, &handle), "cannot find the primary image")
        guard let handle else { throw ImagePrepError.library("libheif", "no primary image") }
        return handle
    }
}

private func message(of error: heif_error) -> String {
    error.message.map { String(cString: $0) } ?? "unknown error"
}

/// The one place libheif errors become Swift errors. `otherwise` is the kind of an error that is not
/// about memory or support: bad input when decoding, a refused picture or setting when encoding.
func check(_ error: heif_error, _ what: String, otherwise: ImagePrepError.Kind = .corrupt) throws {
    guard error.code != heif_error_Ok else { return }
    let kind: ImagePrepError.Kind = switch error.code {
    case heif_error_Unsupported_feature, heif_error_Unsupported_filetype: .unsupported
    // libheif's own limits (image size, item and box counts) refuse hostile or too-large files; it files
    // them under memory allocation, but nothing failed to allocate.
    case heif_error_Memory_allocation_error where error.subcode == heif_suberror_Security_limit_exceeded: .tooLarge
    case heif_error_Memory_allocation_error: .io
    default: otherwise
    }
    throw ImagePrepError.library("libheif", "\(what): \(message(of: error))", kind: kind)
}
