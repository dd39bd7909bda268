import Testing
@testable import ImagePrep

@Suite struct OutputNamingTests {
    @Test func nextToInputWithNewExtension() {
        #expect(OutputNaming.outputPath(for: "IMG_1.HEIC", format: .jpeg, directory: nil) == "IMG_1.jpg")
        #expect(OutputNaming.outputPath(for: "a/b/IMG_1.heic", format: .png, directory: nil) == "a/b/IMG_1.png")
        #expect(OutputNaming.outputPath(for: "noext", format: .jpeg, directory: nil) == "noext.jpg")
        #expect(OutputNaming.outputPath(for: "dir.v2/.hidden", format: .jpeg, directory: nil) == "dir.v2/.hidden.jpg")
        #expect(OutputNaming.outputPath(for: "-dash.heic", format: .jpeg, directory: nil) == "-dash.jpg")
    }

    @Test func intoDirectoryAndMirroredTree() {
        #expect(OutputNaming.outputPath(for: "photos/x.heic", format: .jpeg, directory: "out") == "out/x.jpg")
        #expect(OutputNaming.outputPath(for: "photos/2024/x.heic", format: .jpeg, directory: "out/", relativeTo: "photos") == "out/2024/x.jpg")
    }

    @Test func normalizesDotsAndSlashes() {
        #expect(OutputNaming.normalize("./a//b/../c.jpg") == "a/c.jpg")
        #expect(OutputNaming.normalize("/x/./y") == "/x/y")
    }
}
