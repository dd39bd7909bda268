import Foundation

/// How much memory a batch may plan for: by default half of what the machine or its container lets
/// this process have now.
public enum MemoryBudget {
    public static let defaultFraction = 0.5

    /// The default `--memory-limit`, or nil when nothing can be read (then only `-j` bounds the batch).
    public static func defaultLimit() -> Int? {
        available().map { Int(Double($0) * defaultFraction) }
    }

    /// The smallest of: MemAvailable, and for each cgroup limit on this process (v2 `memory.max` on
    /// the cgroup and its ancestors, v1 `memory.limit_in_bytes`) the limit less what is in use.
    public static func available(root: String = "") -> Int? {
        var candidates: [Int] = []
        if let meminfo = read(root + "/proc/meminfo"),
           let line = meminfo.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
           let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
            candidates.append(kilobytes * 1024)
        }
        for (limitFile, usageFile) in cgroupFiles(root: root) {
            guard let limit = read(limitFile).flatMap(number), limit < 1 << 60 else { continue }   // "max" or v1's huge "unlimited"
            let usage = read(usageFile).flatMap(number) ?? 0
            candidates.append(max(limit - usage, 0))
        }
        return candidates.min()
    }

    /// (limit, usage) file pairs for the cgroups this process is in, innermost first.
    static func cgroupFiles(root: String) -> [(String, String)] {
        guard let membership = read(root + "/proc/self/cgroup") else { return [] }
        var files: [(String, String)] = []
        for line in membership.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ","), path = String(fields[2])
            if fields[0] == "0" && controllers.isEmpty {   // cgroup v2: the limit may sit on any ancestor
                for directory in ancestors(of: path) {
                    let base = root + "/sys/fs/cgroup" + directory
                    files.append((base + "/memory.max", base + "/memory.current"))
                }
            } else if controllers.contains("memory") {     // cgroup v1
                for directory in [path, "/"] {
                    let base = root + "/sys/fs/cgroup/memory" + (directory == "/" ? "" : directory)
                    files.append((base + "/memory.limit_in_bytes", base + "/memory.usage_in_bytes"))
                }
            }
        }
        return files
    }

    /// "/a/b" → ["/a/b", "/a", ""] (the last is the mount root).
    private static func ancestors(of path: String) -> [String] {
        var parts = path.split(separator: "/").map(String.init)
        var result: [String] = []
        while !parts.isEmpty {
            result.append("/" + parts.joined(separator: "/"))
            parts.removeLast()
        }
        return result + [""]
    }

    /// A small /proc or /sys file (their sizes read as 0, so no size-based reader suits them).
    private static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    private static func number(_ text: String) -> Int? {
        Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
