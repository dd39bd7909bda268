import Foundation
import Testing
@testable import ImagePrep

/// A short argument list on more than one lane starts with its largest pictures, so the end of a batch
/// is not one big file on one core while the others idle; the order never changes what is written.
@Suite struct LargestFirstTests {
    static func png(width: Int, height: Int) throws -> Data {
        let image = PixelBuffer(width: width, height: height, channels: 3,
                                pixels: (0..<width * height * 3).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        return Data(try PNGEncoder().encode(.rgb(image), quality: 0, metadata: ImageMetadata()))
    }

    @Test func refusedJobsFirstThenByDecreasingPixelsTiesInTheGivenOrder() {
        let jobs = ["a", "b", "c", "d", "e"].map { BatchJob(input: $0, output: "out/\($0)") }
        var refused = BatchJob(input: "f", output: "out/f")
        refused.problem = ImagePrepError(.io, "no such file or directory")
        let pixels = ["a": 100, "b": 5000, "c": 100, "d": 0, "e": 7000]
        let ordered = LargestFirst.ordered(jobs + [refused]) { pixels[$0.input] ?? -1 }
        #expect(ordered.map(\.input) == ["f", "e", "b", "a", "c", "d"])
    }

    @Test func aShortArgumentListStartsWithItsLargestPicture() async throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sizes = [("small", 20, 10), ("large", 240, 160), ("medium", 60, 40)]
        var paths: [String] = []
        for (name, width, height) in sizes {
            let path = dir.appendingPathComponent("\(name).png").path
            try Self.png(width: width, height: height).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let missing = dir.appendingPathComponent("missing.png").path
        func started(largestFirst: Bool) async -> [String] {
            let planner = JobPlanner(format: .jpeg, outputDirectory: dir.appendingPathComponent("out").path, inPlace: false)
            let source = JobSource(arguments: paths + [missing], list: nil, recursive: false, excluding: nil,
                                   planner: planner, largestFirst: largestFirst)
            var names: [String] = []
            while let job = await source.next() { names.append(URL(fileURLWithPath: job.input).lastPathComponent) }
            return names
        }
        #expect(await started(largestFirst: true) == ["missing.png", "large.png", "medium.png", "small.png"])
        #expect(await started(largestFirst: false) == ["small.png", "large.png", "medium.png", "missing.png"])
    }

    /// The same photos given in two orders at -j 2 (so the larger starts first in one run and last in
    /// the other) write the same bytes.
    @Test func theOrderOfTheArgumentsNeverChangesTheBytes() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = try [(400, 300), (120, 90), (800, 600)].enumerated().map { index, size -> String in
            let path = dir.appendingPathComponent("photo\(index).png").path
            try Data(DeterminismTests.photoLikePNG(width: size.0, height: size.1, variant: index)).write(to: URL(fileURLWithPath: path))
            return path
        }
        func run(_ name: String, _ files: [String]) throws -> [String: Data] {
            let out = dir.appendingPathComponent(name).path
            let result = try TestSupport.imgprep(["convert", "--to", "avif", "--quality", "50", "-j", "2", "-o", out] + files)
            #expect(result.status == 0, "\(result.stderr)")
            var outputs: [String: Data] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] {
                outputs[name] = FileManager.default.contents(atPath: out + "/" + name)
            }
            return outputs
        }
        let given = try run("given", inputs)
        #expect(given.count == 3)
        #expect(try run("reversed", inputs.reversed()) == given)
    }
}
