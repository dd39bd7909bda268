/// libheif 1.15 follows item references while it reads and decodes a file — a grid, overlay or
/// `iden` image to the images it is derived from (`dimg`), an image to its alpha image (`auxl`) —
/// without checking for loops: a grid that names itself as its tile makes it recurse, starting
/// decoding threads, until the process aborts. A file whose references loop, or nest deeper than any
/// real file does, is refused before libheif sees it.
enum HeifReferenceLoops {
    /// Real files nest at most an overlay of grids of tiles (depth 2).
    static let maxDepth = 16

    /// Throws `.corrupt` when the `dimg`/`auxl` references of the file's `meta` box loop or nest too deep.
    static func check(_ file: [UInt8]) throws {
        guard let iref = ISOBMFF.find(["meta", "iref"], in: file) else { return }
        var edges: [UInt32: [UInt32]] = [:]   // item → the items decoding it decodes
        for (type, from, to) in referencesAsLibheifReadsThem(iref, in: file) {
            switch type {
            case "dimg": edges[from, default: []] += to
            case "auxl": for master in to { edges[master, default: []].append(from) }
            default: break
            }
        }
        if let problem = firstProblem(edges) { throw ImagePrepError(.corrupt, problem) }
    }

    /// The entries the way libheif 1.15 parses them: field by field, ignoring each entry's size field,
    /// so a loop cannot hide in an entry whose size disagrees with its count.
    static func referencesAsLibheifReadsThem(_ iref: ISOBMFF.Box, in bytes: [UInt8]) -> [(String, UInt32, [UInt32])] {
        var cursor = ByteCursor(bytes, iref.payload)
        guard let version = cursor.fullBoxVersion(), version <= 1 else { return [] }
        var entries: [(String, UInt32, [UInt32])] = []
        while cursor.remaining > 0 {
            guard let size = cursor.u32(), let type = cursor.fourCC() else { break }
            if size == 1, cursor.skip(8) == nil { break }
            if type == "uuid", cursor.skip(16) == nil { break }
            guard let from = cursor.itemID(wide: version == 1), let count = cursor.u16() else { break }
            var to: [UInt32] = []
            for _ in 0..<count {
                guard let id = cursor.itemID(wide: version == 1) else { break }
                to.append(id)
            }
            entries.append((type, from, to))
        }
        return entries
    }

    /// "item 2 refers to itself", a loop, a chain deeper than `maxDepth`, or nil. Iterative, so a long
    /// chain in a hostile file cannot overflow our own stack either.
    private static func firstProblem(_ edges: [UInt32: [UInt32]]) -> String? {
        enum State { case active, done(depth: Int) }
        var state: [UInt32: State] = [:]
        for root in edges.keys.sorted() where state[root] == nil {
            var path: [(item: UInt32, next: Int, depth: Int)] = [(root, 0, 1)]
            state[root] = .active
            while let (item, next, depth) = path.last {
                let targets = edges[item] ?? []
                guard next < targets.count else {
                    // Every target is done: this item's depth is the deepest chain below it, plus itself.
                    guard depth <= maxDepth else { return "HEIF derived images nest more than \(maxDepth) deep" }
                    state[item] = .done(depth: depth)
                    path.removeLast()
                    if !path.isEmpty { path[path.count - 1].depth = max(path[path.count - 1].depth, depth + 1) }
                    continue
                }
                path[path.count - 1].next += 1
                let target = targets[next]
                switch state[target] {
                case .active:
                    return target == item ? "HEIF item \(item) refers to itself as its own source image"
                        : "HEIF item references form a loop through items \(path.map(\.item).drop { $0 != target }.map(String.init).joined(separator: ", "))"
                case .done(let below):
                    path[path.count - 1].depth = max(depth, below + 1)
                case nil:
                    state[target] = .active
                    path.append((target, 0, 1))
                }
            }
        }
        return nil
    }
}
