/// Why one file could not be processed, as a sentence a user understands.
/// The file name is added by whoever reports it (`imgprep: NAME: description`).
public struct ImagePrepError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a word a script can branch on (`--json` writes it as `error_kind`).
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case notAnImage = "not_an_image"   // the bytes are not a format imgprep reads
        case unsupported                   // a format we recognise but cannot handle (yet)
        case corrupt                       // truncated or damaged picture data
        case tooLarge = "too_large"        // refused before decoding (pixel cap, input size, a library's security limits)
        case doesNotFit = "does_not_fit"   // the byte budget cannot be met
        case output                        // naming conflicts, refused outputs
        case io                            // reading or writing failed
        case interrupted                   // SIGINT/SIGTERM arrived before the output was written
        case timeout                       // no result within --timeout
        case crashed                       // the worker process preparing it died (signal, abort, out of memory)
    }

    public var kind: Kind
    public var description: String
    /// Where the file was when it failed (`--json` writes it as `error_stage`); set where each stage is
    /// called, not where the error is thrown, so nil until the error leaves its stage.
    public var stage: PipelineStage?

    public init(_ kind: Kind, _ description: String, stage: PipelineStage? = nil) {
        self.kind = kind
        self.description = description
        self.stage = stage
    }

    /// The one place a C library's complaint becomes a Swift error.
    public static func library(_ library: String, _ message: String, kind: Kind = .corrupt) -> ImagePrepError {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        return ImagePrepError(kind, "\(library): \(trimmed.isEmpty ? "unknown error" : trimmed)")
    }
}

import Foundation

extension ImagePrepError {
    /// This error with its stage set, unless one nearer the failure already set it.
    public func at(_ stage: PipelineStage) -> ImagePrepError {
        var staged = self
        staged.stage = staged.stage ?? stage
        return staged
    }

    /// `error` as an ImagePrepError failed at `stage` (an error of another type as `kind`, with its description).
    public static func failed(at stage: PipelineStage, _ error: any Error, otherwise kind: Kind) -> ImagePrepError {
        (error as? ImagePrepError ?? ImagePrepError(kind, "\(error)")).at(stage)
    }
}
