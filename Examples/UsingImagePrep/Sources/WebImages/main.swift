// usage: WebImages FOLDER OUTPUT_DIR
// Writes every image under FOLDER as AVIF, WebP and JPEG, 480 and 960 pixels wide, into OUTPUT_DIR, and
// OUTPUT_DIR/images.json describing them (sizes, colour, placeholder and <picture> markup for each).
import Foundation
import ImagePrep

/// The library's part: one batch, its events printed as they come.
func writeWebImages(from folder: String, to outputDirectory: String) async throws -> BatchSummary {
    var set = SetSettings(formats: [.avif, .webp, .jpeg].map { FormatQuality(format: $0, quality: $0.defaultQuality) })
    set.widths = [480, 960]
    var settings = ConversionSettings()
    settings.set = set
    var request = BatchRequest(inputs: [folder], settings: settings)
    request.recursive = true
    request.outputDirectory = outputDirectory
    request.manifest = ManifestOptions(path: "\(outputDirectory)/images.json", sizes: "(min-width: 960px) 960px, 100vw")
    let batch = try Batch(request)  // throws a BatchRequestError saying what to change
    var summary = BatchSummary()
    for await event in batch.run() {
        switch event {
        case .outcome(let file): print("\(file.job.input): \(file.reason ?? "\(file.variantPaths.count) files")")
        case .warning(let text), .failure(let text): FileHandle.standardError.write(Data("WebImages: \(text)\n".utf8))
        case .finished(let result): summary = result
        }
    }
    return summary
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: WebImages FOLDER OUTPUT_DIR\n".utf8))
    exit(2)
}
do {
    let summary = try await writeWebImages(from: arguments[1], to: arguments[2])
    print("\(summary.converted) converted, \(summary.failed) failed")
    exit(summary.failed == 0 ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("WebImages: \(error)\n".utf8))
    exit(2)
}
