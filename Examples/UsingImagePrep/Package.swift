// swift-tools-version:6.0
// Programs that use imgprep's library, ImagePrep, as a package dependency (docs/library.md).
// A test builds and runs them, so they stay in step with the library.
import PackageDescription

let package = Package(
    name: "UsingImagePrep",
    // A real project names a release: .package(url: "https://…/imgprep.git", from: "1.0.0") (the test
    // builds it that way). `name:` so that `package: "imgprep"` holds whatever this checkout's folder is.
    dependencies: [.package(name: "imgprep", path: "../..")],
    targets: [
        // One file in memory (ImagePipeline.prepare).
        .executableTarget(
            name: "UsingImagePrep", dependencies: [.product(name: "ImagePrep", package: "imgprep")],
            path: "Sources/UsingImagePrep"),
        // A folder as web image sets with a manifest: one batch (Batch).
        .executableTarget(
            name: "WebImages", dependencies: [.product(name: "ImagePrep", package: "imgprep")],
            path: "Sources/WebImages"),
    ],
    swiftLanguageModes: [.v6]
)
