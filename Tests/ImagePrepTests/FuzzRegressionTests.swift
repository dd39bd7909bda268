import Foundation
import Testing

/// Every input the fuzzers ever broke something with, replayed through the same entry point as the
/// fuzzer (`FuzzTarget.run`), without sanitizers: none may trap or break a promise again.
/// The inputs live in Tests/Fixtures/fuzz/<target>/ and are listed in Tests/Fixtures/README.md.
@Suite struct FuzzRegressionTests {
    static let root = TestSupport.fixtures.appendingPathComponent("fuzz")

    static var inputs: [(target: String, file: String)] {
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return targets.sorted().flatMap { target in
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(target).path)) ?? [])
                .sorted().map { (target, $0) }
        }
    }

    @Test func everyRegressionInputBelongsToATarget() {
        #expect(!Self.inputs.isEmpty)
        for (target, file) in Self.inputs {
            #expect(FuzzTarget.named(target) != nil, "\(target)/\(file): no such fuzz target")
        }
    }

    @Test(arguments: inputs.map { "\($0.target)/\($0.file)" })
    func replays(_ input: String) throws {
        let target = try #require(FuzzTarget.named(String(input.prefix { $0 != "/" })))
        target.run(try TestSupport.bytes(Self.root.appendingPathComponent(input).path))
    }
}
