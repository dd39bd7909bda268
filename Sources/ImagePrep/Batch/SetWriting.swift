import Foundation

extension FileConverter {
    /// Writes every variant of a set, each atomically; when one cannot be written, those already
    /// written are removed again, so no partial set is left. Returns the paths, in `set.variants`' order.
    func writeSet(_ set: PreparedSet, bytes: [UInt8], job: BatchJob) throws -> [String] {
        guard let files = set.files(in: bytes), !files.isEmpty else {
            throw ImagePrepError(.corrupt, "the prepared set's variants do not add up to its bytes", stage: .write)
        }
        let naming = self.naming ?? SetNaming(template: SetNaming.withoutWidths, outputDirectory: nil)
        if let name = naming.escape(input: job.remote?.outputName ?? job.input, root: job.root, format: set.variants[0].format) {
            throw ImagePrepError(.output, "--name \(naming.template) names its output \(name), which leaves the output folder; rename the file", stage: .write)
        }
        let paths = zip(set.variants, files).map { variant, file in
            naming.path(input: job.remote?.outputName ?? job.input, root: job.root, format: variant.format, width: variant.width, height: variant.height,
                        hash: SetNaming.hash(file))
        }
        var seen = Set<String>()
        for path in paths {
            let normalized = OutputNaming.normalize(path)
            guard seen.insert(normalized).inserted else {
                throw ImagePrepError(.output, "two variants of this set are both named \(path); add {width}, {height} or {ext} to --name", stage: .write)
            }
            if BatchPlan.canonicalPath(path) == BatchPlan.canonicalPath(job.input) {
                throw ImagePrepError(.output, "the output \(path) would replace its own input; use -o DIR", stage: .write)
            }
        }
        let mtime = options.preserveModificationTime ? FileTimestamp(modificationOf: job.input) : nil
        var written: [String] = []
        do {
            for (path, file) in zip(paths, files) {
                guard !cancellation.isCancelled else { throw ImagePrepError(.interrupted, "interrupted") }
                try AtomicWriter.write(file, to: path, modificationTime: mtime)
                written.append(path)
            }
        } catch {
            for path in written { _ = RawPath.withCString(path) { unlink($0) } }
            throw error
        }
        return paths
    }
}
