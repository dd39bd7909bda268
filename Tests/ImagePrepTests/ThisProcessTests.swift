import Testing
import ImagePrep

/// The arguments captured by the C constructor are the ones the process was started with (make deb-test
/// checks the same without /proc, where CommandLine comes up empty).
@Suite struct ThisProcessTests {
    @Test func argumentsAreTheProcessArguments() {
        #expect(ThisProcess.arguments == Array(CommandLine.arguments.dropFirst()))
        #expect(ThisProcess.procMounted)
    }

    @Test func theToolReadsItsArgumentsThroughThem() throws {
        let run = try TestSupport.imgprep(["help", "info"])
        #expect(run.status == 0 && run.stdout.hasPrefix("imgprep info:"), "\(run.stderr)")
    }
}
