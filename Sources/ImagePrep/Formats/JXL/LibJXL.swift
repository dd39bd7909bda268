internal import CJXL

/// libjxl is opened at the first JPEG XL file read or written, not when the process starts
/// (Sources/CJXL/LazyJXL.c says why). Every path into libjxl calls `load()` first.
enum LibJXL {
    /// Opens libjxl and libjxl_threads, once per process.
    static func load() throws {
        var message = [CChar](repeating: 0, count: 512)
        let failed = message.withUnsafeMutableBufferPointer { imgprep_jxl_load($0.baseAddress, $0.count) != 0 }
        guard failed else { return }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw ImagePrepError.library("libjxl", "cannot be loaded: \(reason)", kind: .unsupported)
    }

    /// libjxl packs its version as MAJOR * 1000000 + MINOR * 1000 + PATCH.
    static func versionText(_ code: UInt32) -> String {
        "\(code / 1_000_000).\(code / 1000 % 1000).\(code % 1000)"
    }
}

extension CodecLibrary {
    /// The decoder's and the encoder's versions (one library, asked both ways in case they ever differ).
    static let libjxl = CodecLibrary("libjxl") {
        do { try LibJXL.load() } catch let error as ImagePrepError { return "not loaded (\(error.description))" } catch { return "not loaded" }
        let decoder = LibJXL.versionText(JxlDecoderVersion()), encoder = LibJXL.versionText(JxlEncoderVersion())
        return decoder == encoder ? decoder : "decoder \(decoder), encoder \(encoder)"
    }
}

/// libjxl's thread pool, owned: destroyed after the decoder or encoder that uses it.
final class JXLThreadRunner {
    let runner: UnsafeMutableRawPointer

    /// nil for one thread: libjxl then runs on the caller's thread alone.
    init?(threads: Int) {
        guard threads > 1, let runner = JxlThreadParallelRunnerCreate(nil, threads) else { return nil }
        self.runner = runner
    }

    deinit { JxlThreadParallelRunnerDestroy(runner) }
}

/// One libjxl decoder, owned.
final class JXLDecoderHandle {
    let decoder: OpaquePointer
    /// Kept alive as long as the decoder that runs on it.
    private let runner: JXLThreadRunner?

    init(threads: Int) throws {
        try LibJXL.load()
        guard let decoder = JxlDecoderCreate(nil) else { throw ImagePrepError.library("libjxl", "cannot create a decoder: out of memory", kind: .io) }
        self.decoder = decoder
        runner = JXLThreadRunner(threads: threads)
        if let runner {
            guard JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner.runner) == JXL_DEC_SUCCESS else {
                throw ImagePrepError.library("libjxl", "cannot start the decoder's threads", kind: .io)
            }
        }
    }

    deinit { JxlDecoderDestroy(decoder) }

    /// A decoder call that must succeed.
    func check(_ status: JxlDecoderStatus, _ what: String) throws {
        guard status == JXL_DEC_SUCCESS else { throw ImagePrepError.library("libjxl", "\(what) failed") }
    }
}

/// One libjxl encoder, owned.
final class JXLEncoderHandle {
    let encoder: OpaquePointer
    private let runner: JXLThreadRunner?

    init(threads: Int) throws {
        try LibJXL.load()
        guard let encoder = JxlEncoderCreate(nil) else { throw ImagePrepError.library("libjxl", "cannot create an encoder: out of memory", kind: .io) }
        self.encoder = encoder
        runner = JXLThreadRunner(threads: threads)
        if let runner {
            guard JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner.runner) == JXL_ENC_SUCCESS else {
                throw ImagePrepError.library("libjxl", "cannot start the encoder's threads", kind: .io)
            }
        }
    }

    deinit { JxlEncoderDestroy(encoder) }

    /// An encoder call that must succeed; the error names libjxl's reason.
    func check(_ status: JxlEncoderStatus, _ what: String) throws {
        guard status == JXL_ENC_SUCCESS else { throw error(what) }
    }

    /// The one place a libjxl encoder error becomes a Swift error.
    func error(_ what: String) -> ImagePrepError {
        let code = JxlEncoderGetError(encoder)
        let (reason, kind): (String, ImagePrepError.Kind) = switch code {
        case JXL_ENC_ERR_OOM: ("out of memory", .io)
        case JXL_ENC_ERR_JBRD: ("the JPEG cannot be stored for byte-exact reconstruction", .unsupported)
        case JXL_ENC_ERR_BAD_INPUT: ("the input is invalid", .corrupt)
        case JXL_ENC_ERR_NOT_SUPPORTED: ("not supported by libjxl", .unsupported)
        case JXL_ENC_ERR_API_USAGE: ("invalid settings", .unsupported)
        default: ("error \(code.rawValue)", .unsupported)
        }
        return ImagePrepError.library("libjxl", "\(what): \(reason)", kind: kind)
    }
}
