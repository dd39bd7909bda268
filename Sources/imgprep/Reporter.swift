import Foundation
import ImagePrep

/// Everything the batch prints: errors and warnings on stderr, per-file lines or JSON on stdout,
/// a progress bar on a terminal, and the closing summary. Called from one task at a time.
final class Reporter: Sendable {
    enum Mode: Sendable { case normal, quiet, verbose, json }

    let mode: Mode
    let command: String
    let budget: Int?
    private let progress: Mutex<Progress>
    private let showProgress: Bool

    private struct Progress {
        var total = 0
        var done = 0
        var start = Date()
        var lineShown = false
    }

    init(mode: Mode, command: String, budget: Int?) {
        self.mode = mode
        self.command = command
        self.budget = budget
        self.progress = Mutex(Progress())
        self.showProgress = isatty(STDERR_FILENO) != 0 && (mode == .normal || mode == .verbose)
    }

    func start(total: Int) {
        progress.withLock { $0.total = total; $0.start = Date() }
    }

    func usageError(_ message: String) {
        writeError("imgprep: \(message)")
    }

    func fileError(_ path: String, _ reason: String) {
        if mode == .json {
            printJSON(json(FileOutcome(job: BatchJob(input: path, output: ""), status: .failed, reason: reason)))
        } else {
            writeError("imgprep: \(path): \(reason)")
        }
    }

    func report(_ outcome: FileOutcome) {
        progress.withLock { $0.done += 1 }
        let input = outcome.job.input
        switch mode {
        case .json:
            printJSON(json(outcome))
            return
        case .quiet:
            if outcome.status == .failed { writeError("imgprep: \(input): \(outcome.reason ?? "failed")") }
            return
        case .normal, .verbose:
            if outcome.status == .failed { writeError("imgprep: \(input): \(outcome.reason ?? "failed")") }
            for warning in outcome.warnings { writeError("imgprep: \(input): warning: \(warning)") }
            if mode == .verbose || (command == "compress" && outcome.status == .ok) { printLine(line(outcome)) }
        }
        drawProgress()
    }

    func finish(_ summary: BatchSummary) {
        let seconds = progress.withLock { Date().timeIntervalSince($0.start) }
        clearProgress()
        if mode == .json {
            var fields: [String: Any] = ["converted": summary.converted, "skipped": summary.skipped,
                                         "failed": summary.failed, "seconds": (seconds * 1000).rounded() / 1000,
                                         "encodes": summary.encodes, "interrupted": summary.interrupted]
            if let budget { fields["budget"] = budget }
            printJSON(["summary": fields])
            return
        }
        guard mode != .quiet || summary.interrupted else { return }
        let verb = command == "compress" ? "compressed" : "converted"
        var text = "\(summary.converted) \(verb), \(summary.skipped) skipped, \(summary.failed) failed in \(String(format: "%.1f", seconds))s"
        if summary.interrupted { text = "interrupted: " + text }
        writeError(text)
    }

    private func line(_ outcome: FileOutcome) -> String {
        let input = outcome.job.input
        switch outcome.status {
        case .failed: return "\(input): failed: \(outcome.reason ?? "")"
        case .skipped: return "\(input): skipped (\(outcome.reason ?? ""))"
        case .ok:
            if let reason = outcome.reason { return "\(input): \(reason)" }  // dry run
            var parts = ["\(outcome.width ?? 0)x\(outcome.height ?? 0)", "\(outcome.bytes ?? 0) bytes"]
            if let budget { parts[1] += " of \(budget)" }
            if outcome.passedThrough { parts.append("unchanged, already within budget") }
            if let quality = outcome.quality { parts.append("quality \(quality)") }
            if let encodes = outcome.encodes, budget != nil { parts.append("\(encodes) encode\(encodes == 1 ? "" : "s")") }
            return "\(input) -> \(outcome.job.output) (\(parts.joined(separator: ", ")))"
        }
    }

    private func json(_ outcome: FileOutcome) -> [String: Any] {
        var object: [String: Any] = [
            "input": outcome.job.input, "output": outcome.job.output.isEmpty ? NSNull() : outcome.job.output,
            "status": outcome.status.rawValue,
            "error": outcome.status == .failed ? (outcome.reason ?? "failed") : NSNull(),
            "format": outcome.format?.rawValue ?? NSNull(), "width": outcome.width ?? NSNull(),
            "height": outcome.height ?? NSNull(), "bytes": outcome.bytes ?? NSNull(),
            "quality": outcome.quality ?? NSNull(), "encodes": outcome.encodes ?? NSNull(),
            "ms": outcome.milliseconds, "warnings": outcome.warnings,
        ]
        if outcome.status == .skipped { object["reason"] = outcome.reason ?? NSNull() }
        if outcome.status == .ok, let reason = outcome.reason { object["dry_run"] = true; object["note"] = reason }
        if outcome.passedThrough { object["unchanged"] = true }
        if let budget { object["budget"] = budget }
        return object
    }

    private func printJSON(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        printLine(String(decoding: data, as: UTF8.self))
    }

    private func printLine(_ text: String) {
        StandardStream.output.write(text + "\n")
    }

    private func writeError(_ text: String) {
        clearProgress()
        StandardStream.error.write(text + "\n")
    }

    private func drawProgress() {
        guard showProgress else { return }
        let line = progress.withLock { state -> String in
            state.lineShown = true
            let elapsed = max(Date().timeIntervalSince(state.start), 0.001)
            let rate = Double(state.done) / elapsed
            let remaining = rate > 0 ? Double(state.total - state.done) / rate : 0
            let width = 24
            let filled = state.total > 0 ? width * state.done / state.total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            return String(format: "\r[%@] %d/%d  %.1f files/s  ETA %.0fs ", bar, state.done, state.total, rate, remaining)
        }
        StandardStream.error.write(line)
    }

    private func clearProgress() {
        guard showProgress else { return }
        let wasShown = progress.withLock { state in
            defer { state.lineShown = false }
            return state.lineShown
        }
        if wasShown { StandardStream.error.write("\r\u{1B}[K") }
    }
}

import Synchronization
