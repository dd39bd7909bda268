import Foundation
import ImagePrep

/// Everything the batch prints: errors and warnings on stderr, per-file lines or JSON on stdout,
/// a progress bar on a terminal, and the closing summary. Called from one task at a time.
final class Reporter: Sendable {
    enum Mode: Sendable { case normal, quiet, verbose, json }

    let mode: Mode
    let command: String
    let budget: Int?
    /// This copy's shard, named in every JSON line and the summary.
    let shard: ShardSpec?
    /// --dry-run: outcomes are what would be written, and the summary says so.
    let dryRun: Bool
    private let progress: Mutex<Progress>
    private let showProgress: Bool
    /// Routine warnings (RoutineNotice) counted instead of printed per file, in the order first met.
    private let routine = Mutex<[(warning: String, count: Int)]>([])

    private struct Progress {
        var batch: Batch?
        var done = 0
        var start = Date()
        var lineShown = false
    }

    init(mode: Mode, command: String, budget: Int?, dryRun: Bool = false, shard: ShardSpec? = nil) {
        self.mode = mode
        self.command = command
        self.budget = budget
        self.dryRun = dryRun
        self.shard = shard
        self.progress = Mutex(Progress())
        self.showProgress = isatty(StandardStream.errorDescriptor) != 0 && (mode == .normal || mode == .verbose)
    }

    /// The batch tells the progress bar how many files there are so far (and whether more come).
    func start(_ batch: Batch) {
        progress.withLock { $0.batch = batch; $0.start = Date() }
    }

    func usageError(_ message: String) {
        writeError("imgprep: \(message)")
    }

    /// A warning about the whole run, not one file.
    func warning(_ message: String) {
        if mode != .quiet && mode != .json { writeError("imgprep: warning: \(message)") }
    }

    /// A warning about one file outside a batch (a picture through pipes).
    func fileWarning(_ input: String, _ warning: String) {
        if mode != .quiet { writeError("imgprep: \(input): warning: \(warning)") }
    }

    func report(_ outcome: FileOutcome) {
        progress.withLock { $0.done += 1 }
        let input = outcome.job.input
        switch mode {
        case .json:
            // A set: one line per variant, each with the input's fields.
            if let set = outcome.set, set.variants.count == outcome.variantPaths.count {
                for (variant, path) in zip(set.variants, outcome.variantPaths) { printJSON(json(outcome, variant: variant, path: path)) }
            } else {
                printJSON(json(outcome))
            }
            return
        case .quiet:
            if outcome.status == .failed { writeError(failureLine(outcome)) }
            return
        case .normal, .verbose:
            // A failure is one line on stderr, whatever the mode.
            if outcome.status == .failed { writeError(failureLine(outcome)) }
            for warning in outcome.warnings {
                if mode == .normal && RoutineNotice.isRoutine(warning) {
                    count(warning)
                } else {
                    writeError("imgprep: \(input): warning: \(warning)")
                }
            }
            if dryRun {
                // The outputs it would write, one per line, as a script would want them.
                if outcome.status == .ok { outcome.job.possibleOutputs.forEach(printLine) }
            } else if let set = outcome.set, outcome.status == .ok, mode == .verbose || command == "compress" {
                for (variant, path) in zip(set.variants, outcome.variantPaths) { printLine("\(input) -> \(path) (\(Self.facts(variant)))") }
            } else if outcome.status != .failed && (mode == .verbose || (command == "compress" && outcome.status == .ok)) {
                printLine(line(outcome))
            }
        }
        drawProgress()
    }

    func finish(_ summary: BatchSummary) {
        let seconds = progress.withLock { Date().timeIntervalSince($0.start) }
        clearProgress()
        if mode == .json {
            printJSON(["summary": summaryFields(summary, seconds: seconds)])
            return
        }
        guard mode != .quiet || summary.interrupted else { return }
        for (warning, count) in routine.withLock({ $0 }) { writeError("imgprep: warning: " + RoutineNotice.summary(warning, count: count)) }
        let done = dryRun ? "would \(command) \(summary.converted)"
            : "\(summary.converted) \(command == "compress" ? "compressed" : "converted")"
        var text = "\(done), \(summary.skipped) skipped, \(summary.failed) failed in \(String(format: "%.1f", seconds))s"
        if let lowest = summary.lowestScore { text += ", lowest score \(String(format: "%.1f", lowest))" }
        // Nothing to do at all: an empty list from a pipe or --files-from (a `find` that matched nothing).
        if progress.withLock({ $0.batch?.found.count == 0 }) && !summary.interrupted { text = "0 files" }
        if let shard { text += " (shard \(shard))" }
        if summary.interrupted { text = "interrupted: " + text }
        writeError(text)
    }

    private func summaryFields(_ summary: BatchSummary, seconds: Double) -> [String: Any] {
        var fields: [String: Any] = ["converted": summary.converted, "skipped": summary.skipped,
                                     "failed": summary.failed, "seconds": (seconds * 1000).rounded() / 1000,
                                     "encodes": summary.encodes, "interrupted": summary.interrupted]
        if let budget { fields["budget"] = budget }
        if dryRun { fields["dry_run"] = true }
        if let lowest = summary.lowestScore { fields["lowest_score"] = Self.rounded(lowest) }
        if let shard { fields["shard"] = shard.description }
        return fields
    }

    /// `imgprep: NAME: STAGE: reason`, one line whatever the reason says.
    private func failureLine(_ outcome: FileOutcome) -> String {
        "imgprep: \(outcome.job.input): " + (outcome.errorStage.map { "\($0.rawValue): " } ?? "") + (outcome.reason ?? "failed")
    }

    private func line(_ outcome: FileOutcome) -> String {
        let input = outcome.job.input
        switch outcome.status {
        case .failed, .skipped: return "\(input): \(outcome.status.rawValue) (\(outcome.reason ?? ""))"
        case .ok:
            var parts = ["\(outcome.width ?? 0)x\(outcome.height ?? 0)", "\(outcome.bytes ?? 0) bytes"]
            if let budget { parts[1] += " of \(budget)" }
            if outcome.passedThrough { parts.append(budget == nil ? "unchanged" : "unchanged, already within budget") }
            if let quality = outcome.quality { parts.append("quality \(quality)") }
            if let score = outcome.score { parts.append("score \(String(format: "%.1f", score))") }
            if let candidates = outcome.candidates, candidates.count > 1 {
                parts.append("chosen from " + candidates.map { "\($0.format.rawValue)\($0.lossless ? " lossless" : "") \($0.searched ? "" : "about ")\($0.bytes)" }.joined(separator: ", "))
            }
            if outcome.lossless { parts.append("lossless, not re-encoded") }
            if let map = outcome.gainMap {
                parts.append("HDR gain map \(map.width)x\(map.height), \(map.bytes) bytes at quality \(map.quality)")
            }
            if let encodes = outcome.encodes, budget != nil { parts.append("\(encodes) encode\(encodes == 1 ? "" : "s")") }
            return "\(input) -> \(outcome.job.output) (\(parts.joined(separator: ", ")))"
        }
    }

    private func json(_ outcome: FileOutcome) -> [String: Any] {
        var object: [String: Any] = [
            "status": outcome.status.rawValue,
            "error": outcome.status == .failed ? (outcome.reason ?? "failed") : NSNull(),
            "error_kind": outcome.errorKind?.rawValue ?? NSNull(),
            "error_stage": outcome.errorStage?.rawValue ?? NSNull(),
            "format": outcome.format?.rawValue ?? NSNull(), "width": outcome.width ?? NSNull(),
            "height": outcome.height ?? NSNull(), "bytes": outcome.bytes ?? NSNull(),
            "quality": outcome.quality ?? NSNull(), "encodes": outcome.encodes ?? NSNull(),
            "ms": outcome.milliseconds, "warnings": outcome.warnings,
        ]
        if outcome.status == .skipped { object["reason"] = outcome.reason ?? NSNull() }
        if dryRun && outcome.status == .ok { object["dry_run"] = true }
        if outcome.passedThrough { object["unchanged"] = true }
        if outcome.cached { object["cached"] = true }
        if let first = outcome.duplicateOf { object["duplicate_of"] = first }
        if let shard { object["shard"] = shard.description }
        if outcome.lossless { object["lossless"] = true }
        if outcome.probes > 0 { object["probes"] = outcome.probes }
        if let score = outcome.score { object["score"] = Self.rounded(score) }
        if outcome.scores > 0 { object["scores"] = outcome.scores }
        if let candidates = outcome.candidates {
            object["candidates"] = candidates.map { candidate -> [String: Any] in
                var entry: [String: Any] = ["format": candidate.format.rawValue, "bytes": candidate.bytes, "quality": candidate.quality ?? NSNull(),
                                            "score": candidate.score.map(Self.rounded) ?? NSNull(), "meets": candidate.meets]
                if !candidate.searched { entry["predicted"] = true }
                if candidate.lossless { entry["lossless"] = true }
                return entry
            }
        }
        if let map = outcome.gainMap { object["gain_map"] = Self.json(map) }
        if let budget { object["budget"] = budget }
        object = JSONLine.naming(outcome.job.input, as: "input", in: object)
        guard !outcome.job.output.isEmpty else { return object.merging(["output": NSNull()]) { $1 } }
        return JSONLine.naming(outcome.job.output, as: "output", in: object)
    }

    /// A set's variant: the input's line with this variant's format, size, bytes, quality and path.
    private func json(_ outcome: FileOutcome, variant: PreparedVariant, path: String) -> [String: Any] {
        var object = json(outcome)
        object["format"] = variant.format.rawValue
        object["width"] = variant.width
        object["height"] = variant.height
        object["bytes"] = variant.bytes
        object["quality"] = variant.quality ?? NSNull()
        object["encodes"] = variant.encodes
        object["path"] = RawPath.lossy(path)
        if let map = variant.gainMap { object["gain_map"] = Self.json(map) }
        if let frames = variant.frames { object["frames"] = frames }
        if let window = outcome.set?.crop {
            object["crop"] = ["x": window.x, "y": window.y, "width": window.width, "height": window.height]
        }
        return JSONLine.naming(path, as: "output", in: object)
    }

    /// A set variant's size, bytes and what it kept, for its line.
    private static func facts(_ variant: PreparedVariant) -> String {
        var parts = ["\(variant.width)x\(variant.height)", "\(variant.bytes) bytes"]
        if let quality = variant.quality { parts.append("quality \(quality)") }
        if let frames = variant.frames { parts.append("\(frames) frames") }
        if let map = variant.gainMap { parts.append("HDR gain map \(map.width)x\(map.height)") }
        return parts.joined(separator: ", ")
    }

    private static func json(_ map: WrittenGainMap) -> [String: Any] {
        ["width": map.width, "height": map.height, "bytes": map.bytes, "quality": map.quality,
         "headroom": map.headroom, "headroom_stops": log2(map.headroom)]
    }

    private func count(_ warning: String) {
        routine.withLock { seen in
            if let index = seen.firstIndex(where: { $0.warning == warning }) {
                seen[index].count += 1
            } else {
                seen.append((warning, 1))
            }
        }
    }

    private func printJSON(_ object: [String: Any]) { JSONLine.print(object) }

    /// A score to 3 decimals: what the metric can tell apart, without float noise in the output.
    static func rounded(_ score: Double) -> Double { (score * 1000).rounded() / 1000 }

    private func printLine(_ text: String) {
        StandardStream.output.write(TerminalText.line(text) + "\n")
    }

    private func writeError(_ text: String) {
        clearProgress()
        StandardStream.error.write(TerminalText.line(text) + "\n")
    }

    private func drawProgress() {
        guard showProgress else { return }
        let line = progress.withLock { state -> String in
            state.lineShown = true
            let found = state.batch?.found ?? (count: 0, complete: true)
            return ProgressLine.text(done: state.done, found: found.count, totalKnown: found.complete,
                                     elapsed: Date().timeIntervalSince(state.start))
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
