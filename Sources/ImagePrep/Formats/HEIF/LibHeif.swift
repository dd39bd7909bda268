import CHeif

/// libheif is opened at the first HEIF file read or written, not when the process starts
/// (Sources/CHeif/LazyHeif.c says why). Every path into libheif calls `load()` first.
enum LibHeif {
    /// Opens libheif, once per process.
    static func load() throws {
        var message = [CChar](repeating: 0, count: 512)
        let failed = message.withUnsafeMutableBufferPointer { imgprep_heif_load($0.baseAddress, $0.count) != 0 }
        guard failed else { return }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw ImagePrepError.library("libheif", "cannot be loaded: \(reason)", kind: .unsupported)
    }

    /// `version()` of a library that libheif brings in, or why there is none.
    static func versionAfterLoading(_ version: () -> String) -> String {
        do { try load() } catch let error as ImagePrepError { return "not loaded (\(error.description))" } catch { return "not loaded" }
        return version()
    }
}
