internal import CSSIMULACRA2
import Foundation

/// SSIMULACRA 2 (cloudinary/ssimulacra2, version 2.1): how alike two pictures look to a person, 100 for
/// identical, 90 visually lossless, 80 not noticeable side by side at 1:1, 70 noticeable but not annoying.
/// A port of the reference (Sources/CSSIMULACRA2): XYB at six scales, SSIM and two edge maps, 108 weights.
public enum SSIMULACRA2 {
    /// Goes into the cache key: a change to the metric changes the bytes `--quality auto` writes.
    /// The reference's version, then this port's revision.
    public static let version = "ssimulacra2-2.1+imgprep.2"

    /// The smallest width and height scored (the reference refuses smaller pictures).
    public static let minimumSize = Int(SSIM2_MIN_SIZE)

    /// Bytes a `Reference` of a `width` x `height` picture holds, plus one scoring's scratch (for the
    /// worker's memory estimate), assuming the original has alpha (scored on two backgrounds, so two
    /// prepared pyramids): an upper bound. 0 when the size is refused.
    public static func workingBytes(width: Int, height: Int) -> Int {
        workingBytes(width: width, height: height, alpha: true)
    }

    /// As `workingBytes(width:height:)`, for an original with (`alpha`) or without alpha.
    public static func workingBytes(width: Int, height: Int, alpha: Bool) -> Int {
        guard width >= minimumSize, height >= minimumSize else { return 0 }
        let reference = ssim2_reference_bytes(width, height), scratch = ssim2_scratch_bytes(width, height)
        guard reference > 0, scratch > 0 else { return 0 }
        let (twice, o1) = reference.multipliedReportingOverflow(by: alpha ? 2 : 1)
        let (total, o2) = twice.addingReportingOverflow(scratch)
        let (bytes, o3) = total.addingReportingOverflow(LinearLight.bandBytes)
        return o1 || o2 || o3 ? 0 : bytes
    }

    /// Scores one pair, on up to `threads` threads (1 or 2; the score does not depend on it): the same score
    /// as a `Reference` gives, in one pass that keeps nothing of the picture's size (no prepared original).
    /// Backgrounds as `Reference` chooses them: an original with alpha on dark and light gray, the worse
    /// score counting; a distorted picture with alpha on the original's gray, or mid gray.
    public static func score(original: PixelBuffer, originalProfile: [UInt8]?,
                             distorted: PixelBuffer, distortedProfile: [UInt8]?, threads: Int = 1) throws -> Double {
        try checkSize(width: original.width, height: original.height)
        try checkLayout(original)
        try checkLayout(distorted)
        guard distorted.width == original.width, distorted.height == original.height else {
            throw ImagePrepError(.unsupported, "the pictures differ in size: \(original.width)x\(original.height) and \(distorted.width)x\(distorted.height)")
        }
        let colour = try LinearLight(profile: originalProfile)
        let distortedColour = distortedProfile == originalProfile ? colour : try LinearLight(profile: distortedProfile)
        let opaque = distorted.isOpaque
        // (the original's background, the distorted one's) per pass; nil: alpha ignored
        let passes: [(Float?, Float?)]
        if !original.hasAlpha {
            passes = [(nil, opaque ? nil : 0.5)]
        } else if original.isOpaque {
            passes = opaque ? [(nil, nil)] : [(nil, 0.1), (nil, 0.9)]
        } else {
            passes = [(0.1, opaque ? nil : 0.1), (0.9, opaque ? nil : 0.9)]
        }
        var worst = Double.infinity
        for (first, second) in passes {
            let a = LinearRows(original, colour: colour, background: first)
            let b = LinearRows(distorted, colour: distortedColour, background: second)
            var result = 0.0
            try LinearRows.run(a, b) { source, contextA, contextB in
                ssim2_score_pair(original.width, original.height, source, contextA, source, contextB, Int32(threads), &result)
            }
            worst = min(worst, result)
        }
        return worst
    }

    /// The original prepared once (linear-light pyramid, XYB, its blurred moments) and scored against any
    /// number of candidates of the same size. Immutable after init (but for its pool of scratch memory,
    /// one per thread scoring at once, kept for the next score); safe to score from several threads.
    public final class Reference: Sendable {
        public let width: Int
        public let height: Int
        /// One prepared pyramid per background: an original with alpha is scored composited on dark and
        /// on light gray (0.1 and 0.9) and the worse score counts, as the reference's tool does; an opaque
        /// one once (a distorted picture with alpha then goes on mid gray, 0.5).
        private let prepared: [(background: Float, pyramid: PreparedPyramid)]
        private let colour: LinearLight
        /// Scratch kept between scores (strips, a few megabytes): a fresh one costs its page faults again.
        private let scratches = ScratchPool()

        /// `image`: 8-bit RGB or RGBA (straight alpha); `profile`: its ICC profile (nil: sRGB); `threads`:
        /// how many threads preparing it may use (1 or 2; what is prepared does not depend on it).
        public init(_ image: PixelBuffer, profile: [UInt8]?, threads: Int = 1) throws {
            width = image.width
            height = image.height
            try SSIMULACRA2.checkSize(width: width, height: height)
            try SSIMULACRA2.checkLayout(image)
            colour = try LinearLight(profile: profile)
            let colour = colour, width = width, height = height, scratches = scratches
            func prepare(on background: Float?) throws -> PreparedPyramid {
                let scratch = try scratches.take() ?? Scratch(width: width, height: height)
                defer { scratches.give(scratch) }
                return try PreparedPyramid(from: LinearRows(image, colour: colour, background: background),
                                           scratch: scratch, threads: threads)
            }
            if !image.hasAlpha {
                prepared = [(0.5, try prepare(on: nil))]
            } else if image.isOpaque {
                // Alpha 255 everywhere looks the same on both backgrounds: one pyramid serves both.
                let pyramid = try prepare(on: nil)
                prepared = [(0.1, pyramid), (0.9, pyramid)]
            } else {
                prepared = [(0.1, try prepare(on: 0.1)), (0.9, try prepare(on: 0.9))]
            }
        }

        /// The score of `distorted` (same size; else `ImagePrepError(.unsupported)`), on up to `threads`
        /// threads (1 or 2; the score does not depend on it).
        public func score(_ distorted: PixelBuffer, profile: [UInt8]?, threads: Int = 1) throws -> Double {
            guard distorted.width == width, distorted.height == height else {
                throw ImagePrepError(.unsupported, "the pictures differ in size: \(width)x\(height) and \(distorted.width)x\(distorted.height)")
            }
            try SSIMULACRA2.checkLayout(distorted)
            // The original's profile again (the usual case for an encoder's candidates) reuses its tables.
            let colour = profile == self.colour.source ? self.colour : try LinearLight(profile: profile)
            let scratch = try scratches.take() ?? Scratch(width: width, height: height)
            defer { scratches.give(scratch) }
            let opaque = distorted.isOpaque
            var worst = Double.infinity
            for (index, (background, pyramid)) in prepared.enumerated() {
                // An opaque picture against the same pyramid again would score the same.
                if opaque, index > 0, prepared[index - 1].pyramid === pyramid { continue }
                let rows = LinearRows(distorted, colour: colour, background: opaque ? nil : background)
                worst = min(worst, try pyramid.score(rows, scratch: scratch, threads: threads))
            }
            return worst
        }
    }

    static func checkSize(width: Int, height: Int) throws {
        guard width >= minimumSize, height >= minimumSize else {
            throw ImagePrepError(.unsupported, "SSIMULACRA 2 needs at least \(minimumSize)x\(minimumSize) pixels; the picture is \(width)x\(height)")
        }
    }

    /// PixelBuffer's fields are public and mutable: the C code reads exactly width x height x channels
    /// bytes, so that must be what the buffer holds.
    static func checkLayout(_ image: PixelBuffer) throws {
        let (area, o1) = image.width.multipliedReportingOverflow(by: image.height)
        let (bytes, o2) = area.multipliedReportingOverflow(by: image.channels)
        guard image.channels == 3 || image.channels == 4, !o1, !o2, bytes == image.pixels.count else {
            throw ImagePrepError(.unsupported, "the pixel buffer holds \(image.pixels.count) bytes, not \(image.width)x\(image.height)x\(image.channels)")
        }
    }

    static func check(_ status: Int32) throws {
        switch Int(status) {
        case Int(SSIM2_OK): return
        case Int(SSIM2_TOO_SMALL): throw ImagePrepError(.unsupported, "SSIMULACRA 2 needs at least \(minimumSize)x\(minimumSize) pixels")
        case Int(SSIM2_TOO_LARGE): throw ImagePrepError(.tooLarge, "the picture is too large to score")
        case Int(SSIM2_NO_MEMORY): throw ImagePrepError(.tooLarge, "out of memory scoring the picture")
        case Int(SSIM2_SIZE_MISMATCH): throw ImagePrepError(.unsupported, "the pictures differ in size")
        case Int(SSIM2_SOURCE_FAILED): throw ImagePrepError(.unsupported, "the picture's pixels could not be read for scoring")
        default: throw ImagePrepError(.unsupported, "SSIMULACRA 2 failed (\(status))")
        }
    }
}

/// One scoring's working memory (CSSIMULACRA2's scratch: strips of rows), freed with it.
final class Scratch {
    let pointer: OpaquePointer

    init(width: Int, height: Int) throws {
        var scratch: OpaquePointer?
        try SSIMULACRA2.check(ssim2_scratch_new(width, height, &scratch))
        guard let scratch else { throw ImagePrepError(.tooLarge, "out of memory scoring the picture") }
        pointer = scratch
    }

    deinit { ssim2_scratch_free(pointer) }
}

/// Scratches not in use: a score takes one (or makes one) and gives it back, so each of the threads
/// scoring at once has its own and none is allocated twice.
final class ScratchPool: @unchecked Sendable {  // `free` is guarded by `lock`; a scratch is in the list or with one caller, never both
    private let lock = NSLock()
    private var free: [Scratch] = []

    func take() -> Scratch? { lock.withLock { free.popLast() } }
    func give(_ scratch: Scratch) { lock.withLock { free.append(scratch) } }
}

/// A picture as CSSIMULACRA2's row source: its linear RGB, a strip of rows at a time, asked for by the C
/// code on the calling thread. An error thrown while filling is kept and rethrown once C has returned.
final class LinearRows {
    private let image: PixelBuffer
    private let colour: LinearLight
    private let background: Float?
    private var band = LinearBand()
    private var error: (any Error)?

    init(_ image: PixelBuffer, colour: LinearLight, background: Float?) {
        self.image = image
        self.colour = colour
        self.background = background
    }

    /// Runs `body` with the C callback and its context (this object, alive until `body` returns), then
    /// throws what filling threw, or the C status's error.
    func run(_ body: (ssim2_rows, UnsafeMutableRawPointer) -> Int32) throws {
        let status = withExtendedLifetime(self) { body(Self.source, Unmanaged.passUnretained(self).toOpaque()) }
        if let error { throw error }
        try SSIMULACRA2.check(status)
    }

    /// As `run`, for a pair: `body` gets the callback and both contexts.
    static func run(_ a: LinearRows, _ b: LinearRows,
                    _ body: (ssim2_rows, UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Int32) throws {
        let status = withExtendedLifetime((a, b)) {
            body(Self.source, Unmanaged.passUnretained(a).toOpaque(), Unmanaged.passUnretained(b).toOpaque())
        }
        if let error = a.error ?? b.error { throw error }
        try SSIMULACRA2.check(status)
    }

    private static let source: ssim2_rows = { context, y, rows, r, g, b in
        guard let context, let r, let g, let b else { return 1 }
        let me = Unmanaged<LinearRows>.fromOpaque(context).takeUnretainedValue()
        let width = me.image.width
        // C asks only for rows inside the picture it was given the size of: y + rows <= height.
        do {
            try me.colour.fill(me.image, background: me.background, start: y * width, count: rows * width,
                               band: &me.band, r, g, b)
            return 0
        } catch {
            me.error = error
            return 1
        }
    }
}

/// The original's pyramid, blurs and moments (CSSIMULACRA2's reference).
final class PreparedPyramid: @unchecked Sendable {  // never written after init (scoring only reads it); freed once, in deinit
    private let pointer: OpaquePointer

    init(from rows: LinearRows, scratch: Scratch, threads: Int) throws {
        var reference: OpaquePointer?
        try rows.run { source, context in ssim2_reference_new(scratch.pointer, source, context, Int32(threads), &reference) }
        guard let reference else { throw ImagePrepError(.tooLarge, "out of memory scoring the picture") }
        pointer = reference
    }

    deinit { ssim2_reference_free(pointer) }

    func score(_ rows: LinearRows, scratch: Scratch, threads: Int) throws -> Double {
        var result = 0.0
        try rows.run { source, context in ssim2_score(pointer, scratch.pointer, source, context, Int32(threads), &result) }
        return result
    }
}

extension PixelBuffer {
    /// No alpha, or alpha 255 everywhere.
    var isOpaque: Bool {
        guard hasAlpha else { return true }
        return pixels.withUnsafeBufferPointer { p in
            var all: UInt8 = 255
            for i in stride(from: 3, to: p.count, by: 4) { all &= p[i] }
            return all == 255
        }
    }
}
