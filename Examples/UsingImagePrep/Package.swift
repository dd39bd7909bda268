// swift-tools-version:6.0
// A program that uses imgprep's library, ImagePrep, as a package dependency (docs/design.md,
// "Using the library"). A test builds and runs it, so it stays in step with the library.
import PackageDescription

let package = Package(
    name: "UsingImagePrep",
    // A real project names a release: .package(url: "https://…/imgprep.git", from: "1.0.0") (the test
    // builds it that way). `name:` so that `package: "imgprep"` holds whatever this checkout's folder is.
    dependencies: [.package(name: "imgprep", path: "../..")],
    targets: [
        .executableTarget(
            name: "UsingImagePrep", dependencies: [.product(name: "ImagePrep", package: "imgprep")],
            path: "Sources"),
    ],
    swiftLanguageModes: [.v6]
)
