/// Why one file could not be processed, as a sentence a user understands.
/// The file name is added by whoever reports it (`imgprep: NAME: description`).
public struct ImagePrepError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case notAnImage      // the bytes are not a format imgprep reads
        case unsupported     // a format we recognise but cannot handle (yet)
        case corrupt         // truncated or damaged picture data
        case tooLarge        // refused before decoding (pixel cap)
        case doesNotFit      // byte budget cannot be met
        case output          // naming conflicts, existing files
        case io              // reading or writing failed
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The one place a C library's complaint becomes a Swift error.
    public static func library(_ library: String, _ message: String, kind: Kind = .corrupt) -> ImagePrepError {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        return ImagePrepError(kind, "\(library): \(trimmed.isEmpty ? "unknown error" : trimmed)")
    }
}

import Foundation
