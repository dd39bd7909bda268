internal import CLCMS
import Foundation

/// One LittleCMS 2 transform from an ICC profile to sRGB, for a given sample layout. lcms reports
/// errors through a logger instead of return values alone, so each transform has its own lcms context
/// whose logger keeps the last message, which becomes the error.
final class ColorTransform: @unchecked Sendable {  // made with cmsFLAGS_NOCACHE, one transform runs on many threads at once
    /// How samples sit in memory: 8 or 16 bits, gray (the R of R=G=B pixels) or RGB, `stride`
    /// samples per pixel (the colour channels come first).
    struct Layout: Equatable {
        var gray: Bool
        var bytesPerSample: Int
        var stride: Int

        /// lcms's pixel format word (lcms2.h's COLORSPACE_SH, CHANNELS_SH, EXTRA_SH and BYTES_SH, which
        /// Swift cannot import): samples past the colour channels are extra and left alone.
        var lcmsFormat: UInt32 {
            let channels = gray ? 1 : 3
            let space = Int(gray ? PT_GRAY : PT_RGB) << 16
            let counts = channels << 3 | (stride - channels) << 7
            return UInt32(space | counts | bytesPerSample)
        }
    }

    enum Intent: Sendable {
        case perceptual, relativeColorimetricWithBlackPoint
    }

    let intent: Intent
    private let context: cmsContext
    private let transform: cmsHTRANSFORM
    private let log: LCMSLog

    /// - Parameters:
    ///   - profile: the source's ICC bytes; a profile that is neither RGB nor gray is refused.
    ///   - output: 8-bit RGB with `stride` samples per pixel.
    init(from profile: [UInt8], input: Layout, outputStride: Int) throws {
        let log = LCMSLog()
        guard let context = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else {
            throw ImagePrepError.library("lcms2", "out of memory", kind: .io)
        }
        cmsSetLogErrorHandlerTHR(context) { context, _, text in
            guard let context, let userData = cmsGetContextUserData(context), let text else { return }
            Unmanaged<LCMSLog>.fromOpaque(userData).takeUnretainedValue().record(String(cString: text))
        }
        func fail(_ what: String) -> ImagePrepError {
            ImagePrepError.library("lcms2", "\(what): \(log.last ?? "unknown error")", kind: .unsupported)
        }
        guard let source = profile.withUnsafeBytes({ cmsOpenProfileFromMemTHR(context, $0.baseAddress, UInt32($0.count)) }) else {
            cmsDeleteContext(context)
            throw fail("cannot read the colour profile")
        }
        defer { cmsCloseProfile(source) }
        let space = cmsGetColorSpace(source)
        guard space == (input.gray ? cmsSigGrayData : cmsSigRgbData) else {
            cmsDeleteContext(context)
            throw ImagePrepError(.unsupported, "the colour profile describes \(Self.name(of: space)) data, not the picture's \(input.gray ? "gray" : "RGB")")
        }
        guard let sRGB = cmsCreate_sRGBProfileTHR(context) else {
            cmsDeleteContext(context)
            throw fail("cannot make the sRGB profile")
        }
        defer { cmsCloseProfile(sRGB) }
        // A profile with its own perceptual table (A2B0) was made to map its gamut for display: use it.
        // Matrix/TRC profiles (Display P3, Adobe RGB, nclx) have none; relative colorimetric keeps the
        // colours sRGB can show exactly and clips the rest, and black-point compensation maps black to black.
        let perceptual = cmsIsTag(source, cmsSigAToB0Tag) != 0
        intent = perceptual ? .perceptual : .relativeColorimetricWithBlackPoint
        let flags = UInt32(cmsFLAGS_NOCACHE) | (perceptual ? 0 : UInt32(cmsFLAGS_BLACKPOINTCOMPENSATION))
        let outputFormat = ColorTransform.Layout(gray: false, bytesPerSample: 1, stride: outputStride).lcmsFormat
        guard let transform = cmsCreateTransformTHR(context, source, input.lcmsFormat, sRGB, outputFormat,
                                                    UInt32(perceptual ? INTENT_PERCEPTUAL : INTENT_RELATIVE_COLORIMETRIC), flags) else {
            cmsDeleteContext(context)
            throw fail("cannot convert from this colour profile")
        }
        self.context = context
        self.transform = transform
        self.log = log
    }

    deinit {
        cmsDeleteTransform(transform)
        cmsDeleteContext(context)
    }

    /// Converts `count` pixels. Without lcms's one-pixel cache (NOCACHE) one transform serves many threads.
    func apply(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) {
        withExtendedLifetime(log) { cmsDoTransform(transform, input, output, UInt32(count)) }
    }

    private static func name(of space: cmsColorSpaceSignature) -> String {
        let value = space.rawValue
        let characters = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        return String(decoding: characters, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}

/// The last message lcms logged for one context (lcms may log from the thread that runs a transform).
final class LCMSLog: @unchecked Sendable {  // `last` is guarded by `lock`
    private let lock = NSLock()
    private var message: String?

    func record(_ text: String) { lock.withLock { message = text } }
    var last: String? { lock.withLock { message } }
}
