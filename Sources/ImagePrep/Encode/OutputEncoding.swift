import Foundation

/// Encodes the final output: once at the requested quality (`single`); with `--quality auto` and a
/// lossy format, by searching for the lowest quality that reaches the target score (`ScoreSearch`);
/// with a byte budget and a lossy format, by searching for the highest quality that fits
/// (`BudgetSearch`), shrinking the picture when even the lowest allowed quality is too big
/// (`BudgetSearch.shrunk`). Works with any `ImageEncoding`; nothing here knows the format.
enum OutputEncoding {
    /// Encoded bytes ∝ pixels^sizeExponent when a photo is shrunk (measured on corpus photos).
    static let sizeExponent = 0.75

    /// - Parameters:
    ///   - picture: upright, in a form `encoder` takes, at its final size unless the budget forces shrinking.
    ///   - sizeHints: predicted sizes by quality for this picture, to aim the first trial.
    ///   - chromaAlternative: the same format in its other chroma layout (or its `scoredAlternative`), for `--quality auto` to try too.
    ///   - toBeat: with `--quality auto`, the size another format reached the target in (`--to auto`):
    ///     this encode only matters if it is smaller (ScoreSearch.run).
    ///   - scorers: the file's scorers, shared by the formats `--to auto` searches.
    static func encode(_ picture: DecodedPixels, with encoder: any ImageEncoding, metadata source: ImageMetadata,
                       settings: ConversionSettings, threads: Int = 1, warnings: [String],
                       sizeHints: [Int: Int] = [:], chromaAlternative: (any ImageEncoding)? = nil,
                       toBeat: Int? = nil, scorers: ScorerShelf = ScorerShelf()) throws -> PreparedImage {
        let job = EncodingJob(picture: picture, encoder: encoder, source: source, settings: settings,
                              threads: threads, warnings: warnings, scorers: scorers)
        if let target = settings.scoreTarget, let model = encoder.traits.scoreModel {
            return try ScoreSearch(job: job, target: target, model: model, alternative: chromaAlternative, toBeat: toBeat).run(sizeHints: sizeHints)
        }
        guard let budget = settings.budget, let model = encoder.traits.sizeModel else { return try single(job) }
        return try BudgetSearch(job: job, budget: budget, model: model).run(sizeHints: sizeHints)
    }

    /// One encode at the requested quality (two, when the encoder has an alternative: the better is kept).
    static func single(_ job: EncodingJob) throws -> PreparedImage {
        let (picture, encoder, quality) = (job.picture, job.encoder, job.settings.quality)
        let (metadata, notes) = job.metadata(for: picture)
        var bytes = try encoder.encode(picture, quality: quality, metadata: metadata)
        var encodes = 1
        if encoder.traits.isLossy, let alternative = encoder.alternative {
            let other = try alternative.encode(picture, quality: quality, metadata: metadata)
            encodes += 1
            bytes = better(bytes, encoder, other, alternative, picture: picture)
        }
        var prepared = job.prepared(picture, bytes, quality: encoder.traits.isLossy ? quality : nil, encodes: encodes, notes: notes)
        if job.settings.scoreTarget != nil, !encoder.traits.isLossy, case .rgb(let image) = picture {
            // A lossless file under a target (`--to auto` on a graphic) is scored too: it claims only what was checked.
            prepared.score = try losslessScore(bytes, of: image, profile: metadata.icc, job: job)
            prepared.scores = 1
        }
        return prepared
    }

    /// 100 when `bytes` decode to `image`'s visible pixels (checked, so even a picture too small for
    /// SSIMULACRA 2 has a score); otherwise the measured score.
    static func losslessScore(_ bytes: [UInt8], of image: PixelBuffer, profile: [UInt8]?, job: EncodingJob) throws -> Double {
        let format = try FormatSniffer.sniff(bytes).get()
        let decoded = try format.reader.decoder.decode(bytes, options: DecodeOptions(maxPixels: job.settings.maxPixels))
        if decoded.metadata.icc == profile, showsTheSamePixels(decoded.content.rgb(), image) { return 100 }
        return try job.scorers.scorer(for: .rgb(image), profile: profile, maxPixels: job.settings.maxPixels, threads: job.threads).score(bytes)
    }

    /// The same size and the same colour and opacity wherever a pixel shows (the colour under a fully
    /// transparent pixel is not seen, and libwebp's lossless coder may rewrite it).
    static func showsTheSamePixels(_ a: PixelBuffer, _ b: PixelBuffer) -> Bool {
        guard a.width == b.width, a.height == b.height else { return false }
        let (ca, cb) = (a.channels, b.channels)
        return a.pixels.withUnsafeBufferPointer { pa in
            b.pixels.withUnsafeBufferPointer { pb in
                for pixel in 0..<a.width * a.height {
                    let alphaA = ca == 4 ? pa[pixel * 4 + 3] : 255, alphaB = cb == 4 ? pb[pixel * 4 + 3] : 255
                    guard alphaA == alphaB else { return false }
                    if alphaA == 0 { continue }
                    for c in 0..<3 where pa[pixel * ca + c] != pb[pixel * cb + c] { return false }
                }
                return true
            }
        }
    }

    /// Of two encodes of `picture` at one quality, the smaller, unless the larger is more faithful by at
    /// least 5 dB of PSNR per doubling of size (about what JPEG gains from more bytes at these qualities):
    /// the output is never larger than another choice for the same fidelity. Transposed tables on a turned
    /// JPEG are both smaller and closer to the source near its own quality, but at about twice its
    /// quantiser steps they round many coefficients up and lose on both counts (+17% at quality 48 on a
    /// quality 73 photo).
    static func better(_ a: [UInt8], _ encoderA: any ImageEncoding, _ b: [UInt8], _ encoderB: any ImageEncoding,
                       picture: DecodedPixels) -> [UInt8] {
        let (small, large, smallEncoder, largeEncoder) = a.count <= b.count ? (a, b, encoderA, encoderB) : (b, a, encoderB, encoderA)
        guard large.count > small.count,
              let smallError = smallEncoder.meanSquaredError(of: small, from: picture),
              let largeError = largeEncoder.meanSquaredError(of: large, from: picture), largeError < smallError
        else { return small }
        let gain = 10 * log10(smallError / max(largeError, 1e-9))
        return gain >= 5 * log2(Double(large.count) / Double(small.count)) ? large : small
    }

    /// Runs `encode` for each quality, on as many threads as there are qualities; results in order.
    static func encodeSideBySide(_ qualities: [Int], _ encode: @Sendable (Int) throws -> [UInt8]) throws -> [[UInt8]] {
        guard qualities.count > 1 else { return try qualities.map(encode) }
        var results = [Result<[UInt8], any Error>](repeating: .success([]), count: qualities.count)
        results.withUnsafeMutableBufferPointer { slots in
            let shared = SharedPointer(slots.baseAddress!)   // count > 1: not empty
            DispatchQueue.concurrentPerform(iterations: qualities.count) { index in
                shared.pointer[index] = Result { try encode(qualities[index]) }
            }
        }
        return try results.map { try $0.get() }
    }
}

/// What every step of one output's encoding starts from.
struct EncodingJob {
    let picture: DecodedPixels
    let encoder: any ImageEncoding
    let source: ImageMetadata
    let settings: ConversionSettings
    let threads: Int
    /// Warnings from before the encode, reported with its own.
    let warnings: [String]
    /// Where its searches take their scorers from (one file's, shared).
    var scorers = ScorerShelf()

    /// The metadata for an encode of `image`, rebuilt for each size tried since EXIF records the pixel
    /// dimensions, with the warnings preparing it gave.
    func metadata(for image: DecodedPixels) -> (metadata: ImageMetadata, warnings: [String]) {
        var metadataWarnings: [String] = []
        let metadata = OutputMetadata.prepare(source, for: encoder, width: image.width, height: image.height,
                                              settings: settings, warnings: &metadataWarnings)
        return (metadata, metadataWarnings)
    }

    /// The output: `bytes`, an encode of `image`.
    func prepared(_ image: DecodedPixels, _ bytes: [UInt8], quality: Int?, encodes: Int, notes: [String]) -> PreparedImage {
        PreparedImage(bytes: bytes, format: encoder.format, width: image.width, height: image.height, quality: quality,
                      encodes: encodes, passedThrough: false, warnings: warnings + notes)
    }
}
