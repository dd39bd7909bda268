import Testing
@testable import ImagePrep

/// Output naming and collisions decided as inputs arrive, one at a time.
struct JobPlannerTests {
    static func planner(_ directory: String? = "out", inPlace: Bool = false) -> JobPlanner {
        JobPlanner(format: .jpeg, outputDirectory: directory, inPlace: inPlace)
    }

    @Test func theFirstClaimantWinsAndTheLaterOneNamesIt() throws {
        var planner = Self.planner()
        let firstJob = planner.job(for: InputPath(path: "a/x.heic"))
        let first = try #require(firstJob)
        let secondJob = planner.job(for: InputPath(path: "b/x.HEIC"))
        let second = try #require(secondJob)
        #expect(first.problem == nil && first.output == "out/x.jpg")
        #expect(second.problem?.kind == .output)
        #expect(second.problem?.description.contains("out/x.jpg is written from a/x.heic already") == true)
    }

    @Test func theSameInputTwiceIsOneJob() {
        var planner = Self.planner()
        let jobs = [planner.job(for: InputPath(path: "p/a.heic")), planner.job(for: InputPath(path: "./p//a.heic")),
                    planner.job(for: InputPath(path: "p/a.heic", root: "p"))]
        #expect(jobs.map { $0 != nil } == [true, false, false])
    }

    @Test func anOutputMayNotReplaceAnInputOfTheSameGroup() throws {
        var planner = Self.planner(nil)
        let group = [InputPath(path: "x.heic"), InputPath(path: "x.jpg")]
        planner.expect(group)
        let heicJob = planner.job(for: group[0])
        let heic = try #require(heicJob)
        let jpegJob = planner.job(for: group[1])
        let jpeg = try #require(jpegJob)
        #expect(heic.problem?.description.contains("would replace another input") == true)
        #expect(jpeg.problem?.description.contains("would replace its own input") == true)
    }

    @Test func anInputAnEarlierOutputReplacedIsNotRead() throws {
        var planner = Self.planner(nil)
        _ = planner.job(for: InputPath(path: "x.heic"))   // claims x.jpg
        let laterJob = planner.job(for: InputPath(path: "x.jpg"))
        let later = try #require(laterJob)
        #expect(later.problem?.description.contains("was written by this run as the output of x.heic") == true)
    }

    @Test func inPlaceOutputsAreTheirInputs() throws {
        var planner = Self.planner(nil, inPlace: true)
        let jobJob = planner.job(for: InputPath(path: "a.jpg"))
        let job = try #require(jobJob)
        #expect(job.output == "a.jpg" && job.problem == nil)
        let again = planner.job(for: InputPath(path: "./a.jpg"))
        #expect(again == nil)
    }

    @Test func claimantsFarBackAreNamedByTheirPlace() throws {
        var planner = Self.planner()
        _ = planner.job(for: InputPath(path: "first/x.heic"))
        for index in 0..<5000 { _ = planner.job(for: InputPath(path: "filler/\(index).heic")) }
        let lateJob = planner.job(for: InputPath(path: "second/x.heic"))
        let late = try #require(lateJob)
        #expect(late.problem?.description.contains("an earlier input (the 1st of this run)") == true, "\(String(describing: late.problem))")
    }
}
