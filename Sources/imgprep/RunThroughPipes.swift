import Foundation
import ImagePrep

/// One picture through pipes (`imgprep convert - --to webp -o - < in.heic > out.webp`): read standard
/// input (bounded by --max-input-size, as files are) or the one file given, prepare it with the batch's
/// settings (metadata and budgets as for a file), and write the output's bytes to standard output.
/// Warnings and failures go to standard error, named as the input (`-` for standard input).
func runThroughPipes(_ options: BatchCommandOptions, reporter: Reporter) -> Int32 {
    let input = options.paths[0]
    var stage = PipelineStage.read
    do {
        let bytes: [UInt8]
        if input == "-" {
            bytes = try InputFile.readStream(STDIN_FILENO, maxBytes: options.batch.maxInputBytes)
        } else if case .path(let path) = InputSource.classify(input) {
            bytes = try InputFile.read(path, maxBytes: options.batch.maxInputBytes)
        } else {
            stage = .fetch
            throw ImagePrepError(.io, "-o - reads a file or standard input (-); fetch the URL first")
        }
        stage = .sniff
        let threads = Scheduling.override(from: ProcessInfo.processInfo.environment) ?? ProcessInfo.processInfo.activeProcessorCount
        let prepared = try ImagePipeline.prepare(bytes, settings: options.settings, scheduling: Scheduling(threads: threads))
        stage = .write
        for warning in prepared.warnings { reporter.fileWarning(input, warning) }
        if let code = StandardStream.output.writeWhole(prepared.bytes) {
            throw ImagePrepError(.io, "cannot write to standard output: \(InputFile.reason(code))")
        }
        return 0
    } catch {
        let failure = ImagePrepError.failed(at: stage, error, otherwise: .io)
        reporter.usageError("\(input): \(failure.stage ?? stage): \(failure)")
        return 1
    }
}
