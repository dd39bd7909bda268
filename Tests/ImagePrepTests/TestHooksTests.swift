import Foundation
import Testing
@testable import ImagePrep

/// The test hooks exist in test builds only: the binary `make test` checks and `make install` ships was
/// built without `-D IMGPREP_TEST_HOOKS`, so no environment variable can make it stall.
@Suite struct TestHooksTests {
    static let fixture = TestSupport.fixtures.appendingPathComponent("heic/gray.heic").path
    /// Only a binary other than the hooked one beside the tests can show it (make test names it).
    static let shippedIsSeparate = !(TestSupport.binary == TestSupport.hooksBinary && TestSupport.hasTestHooks)

    @Test(.enabled(if: shippedIsSeparate, "the CLI tests run the hooked build beside the tests (IMGPREP_TEST_BINARY unset)"))
    func theShippedBinaryHasNoStallHook() throws {
        let binary = try Data(contentsOf: URL(fileURLWithPath: TestSupport.binary))
        #expect(binary.range(of: Data("IMGPREP_TEST_STALL".utf8)) == nil, "\(TestSupport.binary) contains IMGPREP_TEST_STALL")

        // Asked to stall every stage of this file, it converts it anyway, well inside the timeout.
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let size = try TestSupport.bytes(Self.fixture).count
        for isolation in ["on", "off"] {
            for stage in ["decode", "encode"] {
                let run = try TestSupport.imgprep(["convert", "--timeout", "30", "-o", dir.appendingPathComponent("\(isolation)-\(stage)").path, Self.fixture],
                                                  environment: TestSupport.environment(adding: ["IMGPREP_TEST_STALL": "\(stage):\(size)",
                                                                                                "IMGPREP_ISOLATION": isolation]))
                #expect(run.status == 0, "isolation \(isolation), stall at \(stage): \(run.stderr)")
            }
        }
    }

    /// And the hooked build does stall, or the tests that rely on it would test nothing.
    @Test(.enabled(if: TestSupport.hasTestHooks, "needs the test hooks (-D IMGPREP_TEST_HOOKS, as make test builds)"))
    func theHookedBuildStalls() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let size = try TestSupport.bytes(Self.fixture).count
        let run = try TestSupport.run(TestSupport.hooksBinary, ["convert", "--timeout", TestSupport.stallTimeout, "--json", "-o", dir.path, Self.fixture],
                                      environment: TestSupport.environment(adding: ["IMGPREP_TEST_STALL": "decode:\(size)"]))
        #expect(run.status == 1, "\(run.stderr)")
        #expect(try BatchTests.jsonLines(run.stdout).first?["error_kind"] as? String == "timeout", "\(run.stdout)")
    }
}
