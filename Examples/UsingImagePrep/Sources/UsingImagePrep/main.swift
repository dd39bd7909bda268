// usage: UsingImagePrep INPUT OUTPUT [MAX_DIMENSION]
// Converts one image to the format OUTPUT's extension names (.jpg, .png, .webp, .avif, .heic), upright
// and with its metadata, optionally fitted within MAX_DIMENSION pixels, then prints its size.
import Foundation
import ImagePrep

/// The library's part: one file converted in memory, then written whole or not at all.
func convert(_ input: String, to output: String, format: OutputFormat, maxDimension: Int?) throws -> PreparedImage {
    var settings = ConversionSettings()
    settings.format = format
    settings.quality = format.defaultQuality
    settings.maxDimension = maxDimension
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input)))
    let prepared = try ImagePipeline.prepare(bytes, settings: settings)  // throws an ImagePrepError
    try AtomicWriter.write(prepared.bytes, to: output)
    return prepared
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("UsingImagePrep: \(message)\n".utf8))
    exit(status)
}

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count) else { fail("usage: UsingImagePrep INPUT OUTPUT [MAX_DIMENSION]", status: 2) }
let (input, output) = (arguments[1], arguments[2])
guard let format = OutputFormat(fileExtensionOf: output) else { fail("\(output): no output format has that extension", status: 2) }
var maxDimension: Int?
if arguments.count == 4 {
    guard let number = Int(arguments[3]), number > 0 else { fail("MAX_DIMENSION must be a positive number", status: 2) }
    maxDimension = number
}
do {
    let prepared = try convert(input, to: output, format: format, maxDimension: maxDimension)
    for warning in prepared.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
    print("\(output): \(prepared.format) \(prepared.width)x\(prepared.height), \(prepared.bytes.count) bytes")
} catch {
    fail("\(input): \(error)", status: 1)   // an ImagePrepError names the stage and the cause
}
