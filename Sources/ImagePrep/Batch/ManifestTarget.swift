import Foundation

/// Where `--manifest` may go: never over an input of the run (a file given, one a `-r` walk would take,
/// the list of paths) nor over an output the run's names are known to give. Checked before any work;
/// names known only later (a list's inputs, a tree's) are refused by the planner (`JobPlanner.reserve`).
public enum ManifestTarget {
    /// Why `manifest` cannot be written, or nil.
    /// - Parameters:
    ///   - inputs: the arguments (paths; URLs are skipped), directories walked when `recursive`.
    ///   - list: `--files-from FILE` (nil, or `-`, for none).
    ///   - outputs: the outputs known from the arguments alone.
    public static func problem(manifest: String, inputs: [String], recursive: Bool, list: String?, outputs: [String]) -> String? {
        var identity = PathIdentity()
        let target = identity.fileAndEntry(manifest)
        let targetStatus = RawPath.status(manifest)
        func same(_ path: String) -> Bool {
            if let a = targetStatus, let b = RawPath.status(path), a.st_dev == b.st_dev, a.st_ino == b.st_ino { return true }
            let other = identity.fileAndEntry(path)
            return [target.file, target.entry].contains { mine in
                [other.file, other.entry].contains { RawPath.bytes(mine) == RawPath.bytes($0) }
            }
        }
        if let list, list != "-", same(list) {
            return "--manifest \(manifest) is the list of paths (--files-from); give the manifest another name"
        }
        for argument in inputs {
            guard let path = InputSource.localPath(argument) else { continue }
            if RawPath.isDirectory(path) {
                guard recursive, targetStatus != nil, BatchPlan.looksLikeImage(manifest) else { continue }
                let folder = RawPath.bytes(identity.entry(path)) + [UInt8(ascii: "/")]
                if RawPath.bytes(target.entry).starts(with: folder) || RawPath.bytes(target.file).starts(with: folder) {
                    return "--manifest \(manifest) is an image -r finds in \(argument), an input of this run; give the manifest another name"
                }
            } else if same(path) {
                return "--manifest \(manifest) is an input of this run (\(argument)); give the manifest another name"
            }
        }
        if let output = outputs.first(where: same) {
            return "--manifest \(manifest) is where this run writes \(output); give the manifest another name"
        }
        return nil
    }
}
