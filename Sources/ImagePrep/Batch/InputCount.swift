import Foundation

/// How many inputs an argument list names: the same file named twice (`a.heic ./a.heic`, a symbolic link
/// and its target, a `file:` URL) is one input, as the batch plans it, so `-o NAME.jpg` accepts it.
public enum InputCount {
    /// Files are the same when their device and inode are; a path that does not exist and a URL are
    /// themselves (by their normalised text).
    public static func distinct(_ arguments: [String]) -> Int {
        var files = Set<[UInt64]>(), others = Set<[UInt8]>()
        for argument in arguments {
            switch InputSource.classify(argument) {
            case .path(let path):
                if let info = RawPath.status(path) {
                    files.insert([UInt64(info.st_dev), UInt64(info.st_ino)])
                } else {
                    others.insert(RawPath.bytes(OutputNaming.normalize(path)))
                }
            case .remote, .refused:
                others.insert(RawPath.bytes(argument))
            }
        }
        return files.count + others.count
    }
}
