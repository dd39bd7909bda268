import Foundation

extension TestSupport {
    /// A run of imgprep with `arguments`, and glibc's loader reports of it, one per process (LD_DEBUG=files
    /// into files under `directory`): which shared libraries each process opened.
    static func loaderReports(_ arguments: [String], in directory: URL) throws -> (run: Run, reports: [String]) {
        let prefix = directory.appendingPathComponent("loader").path
        let run = try imgprep(arguments, environment: environment(adding: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": prefix]))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("loader.") }
        let reports = try names.map { try String(contentsOfFile: directory.appendingPathComponent($0).path, encoding: .utf8) }
        return (run, reports)
    }
}
