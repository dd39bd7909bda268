import Foundation

/// The progress line a batch draws on a terminal: a bar, the count and an ETA once the total is known
/// (every argument seen and any list read to its end, usually long before the last file starts), and
/// `12/40+` with the rate alone while inputs are still arriving. Text only: the caller draws it.
public enum ProgressLine {
    public static func text(done: Int, found: Int, totalKnown: Bool, elapsed: Double) -> String {
        let rate = Double(done) / max(elapsed, 0.001)
        let total = max(found, done)
        guard totalKnown else {
            return String(format: "\r%d/%d+  %.1f files/s ", done, total, rate)
        }
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let width = 24
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        return String(format: "\r[%@] %d/%d  %.1f files/s  ETA %.0fs ", bar, done, total, rate, remaining)
    }

    /// The line for a batch fed by `source`.
    public static func text(done: Int, source: JobSource?, elapsed: Double) -> String {
        text(done: done, found: source?.jobsFound ?? 0, totalKnown: source?.isComplete ?? true, elapsed: elapsed)
    }
}
