import Foundation
import Testing
@testable import ImagePrep

/// The recipe for merging the `--json` reports of several shards (docs/recipes.md), run as printed on
/// real reports from the imgprep binary (each "shard" here is a part of the fixtures given as a list).
@Suite struct ShardReportMergeTests {
    static let recipes = TestSupport.packageRoot.appendingPathComponent("docs/recipes.md")

    /// The merge script of docs/recipes.md's "Merging shard reports", exactly as printed.
    static func recipe() throws -> String {
        let readme = try String(contentsOf: recipes, encoding: .utf8)
        let section = try #require(readme.range(of: "## Merging shard reports"))
        let start = try #require(readme[section.upperBound...].range(of: "```sh\n"))
        let end = try #require(readme[start.upperBound...].range(of: "```"))
        return String(readme[start.upperBound..<end.lowerBound])
    }

    struct Summary: Decodable {
        var shards: Int
        var complete: Bool
        var converted: Int?
        var skipped: Int?
        var failed: Int?
        var encodes: Int?
        var interrupted: Bool
    }

    /// Runs imgprep on each shard's list into `report-K.ndjson`, then the recipe; returns its exit
    /// status, its output and the merged summary.
    static func merge(_ shards: [[String]], expecting count: Int) throws -> (status: Int32, stdout: String, summary: Summary) {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        for (k, inputs) in shards.enumerated() {
            let run = try TestSupport.imgprep(["convert"] + inputs + ["-o", work.appendingPathComponent("out").path, "--json"],
                                              cwd: TestSupport.fixtures)
            #expect(run.status == (inputs.contains { $0.hasPrefix("bad/") } ? 1 : 0), "\(run.stderr)")
            try Data(run.stdout.utf8).write(to: work.appendingPathComponent("report-\(k + 1).ndjson"))
        }
        // The script takes the number of shards as its argument.
        let recipe = try Self.recipe()
        let result = try TestSupport.run("sh", ["-c", recipe, "merge-image-reports.sh", "\(count)"], cwd: work)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let json = try Data(contentsOf: work.appendingPathComponent("summary.json"))
        struct File: Decodable { var summary: Summary }
        return (result.status, result.stdout, try JSONDecoder().decode(File.self, from: json).summary)
    }

    @Test(.enabled(if: TestSupport.toolExists("jq"), "needs jq (make deps installs it)"))
    func aFailedFileFailsTheMergedRun() throws {
        let merged = try Self.merge([["heic/10bit.heic", "heic/alpha.heic", "bad/truncated.heic"],
                                     ["heic/gps-p3.heic", "heic/gray.heic", "heic/orientation-6.heic"]], expecting: 2)
        #expect(merged.status == 1)
        #expect(merged.stdout.hasPrefix("bad/truncated.heic: decode: libheif:"), "\(merged.stdout)")
        let summary = merged.summary
        #expect(summary.shards == 2 && summary.complete && summary.converted == 5 && summary.failed == 1
                && summary.skipped == 0 && summary.encodes == 5 && !summary.interrupted)
    }

    @Test(.enabled(if: TestSupport.toolExists("jq"), "needs jq (make deps installs it)"))
    func allGoodShardsPass() throws {
        let merged = try Self.merge([["heic/10bit.heic", "heic/alpha.heic"],
                                     ["heic/gps-p3.heic", "heic/gray.heic", "heic/orientation-6.heic"]], expecting: 2)
        #expect(merged.status == 0 && merged.stdout.isEmpty)
        #expect(merged.summary.converted == 5 && merged.summary.failed == 0 && merged.summary.complete)
    }

    @Test(.enabled(if: TestSupport.toolExists("jq"), "needs jq (make deps installs it)"))
    func aMissingShardFailsTheMergedRun() throws {
        let merged = try Self.merge([["heic/10bit.heic", "heic/alpha.heic"]], expecting: 2)
        #expect(merged.status == 1)
        #expect(merged.summary.shards == 1 && !merged.summary.complete && merged.summary.failed == 0)
    }

    /// The merge is printed once; the CI recipes call it by name instead of repeating it (copies drift).
    @Test func theMergeIsPrintedOnceAndCalledByTheCIRecipes() throws {
        let recipes = try String(contentsOf: Self.recipes, encoding: .utf8)
        let lines = recipes.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for line in try Self.recipe().split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) where line.hasPrefix("jq") {
            #expect(lines.filter { $0 == line }.count == 1, "'\(line)' should be printed once")
        }
        #expect(lines.filter { $0.hasSuffix("sh ci/merge-image-reports.sh 4") }.count == 2, "the GitHub and GitLab recipes call the script")
    }
}
