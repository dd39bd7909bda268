// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "imgprep",
    products: [
        .executable(name: "imgprep", targets: ["imgprep"]),
        .library(name: "ImagePrep", targets: ["ImagePrep"]),
    ],
    targets: [
        // libheif is opened at first use, not linked: its constructors cost every process about 4 ms
        // (Sources/CHeif/LazyHeif.c). Needs libheif-dev for heif.h.
        .target(name: "CHeif", path: "Sources/CHeif", exclude: ["HeifFunctions.def"]),
        // libjxl and libjxl_threads likewise (with libhwy and brotli, about 4-5 ms of CPU per process:
        // Sources/CJXL/LazyJXL.c). Needs libjxl-dev for the headers.
        .target(name: "CJXL", path: "Sources/CJXL", exclude: ["JXLFunctions.def"]),
        // libcurl likewise, and only the batch parent ever downloads (Sources/CFetch/fetch.c). Needs
        // libcurl4-openssl-dev for curl.h.
        .target(name: "CFetch", path: "Sources/CFetch"),
        .systemLibrary(
            name: "CExif", path: "Sources/CExif", pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]),
        // JPEG XL's `brob` metadata boxes, decompressed by imgprep so the size cap stops them as they grow.
        .systemLibrary(
            name: "CBrotli", path: "Sources/CBrotli", pkgConfig: "libbrotlidec",
            providers: [.apt(["libbrotli-dev"])]),
        // PNG's image data deflated again at a higher effort than zlib's level 9 (what optipng and oxipng gain);
        // zlib (libpng's own dependency) is linked here too, for tiny pictures where its blocks are smaller.
        .systemLibrary(
            name: "CDeflate", path: "Sources/CDeflate", pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]),
        // Palette PNG, PNG's lossy mode: the quantizer pngquant, sharp and libvips use (GPL-3.0-or-later; see README).
        .systemLibrary(
            name: "CImageQuant", path: "Sources/CImageQuant", pkgConfig: "imagequant",
            providers: [.apt(["libimagequant-dev"])]),
        .systemLibrary(
            name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]),
        // giflib has no pkg-config file on Debian 12; the module map links -lgif itself.
        .systemLibrary(
            name: "CGif", path: "Sources/CGif",
            providers: [.apt(["libgif-dev"])]),
        // libpng's headers are under /usr/include/libpng16: this module carries pkg-config's -I to
        // CImageCodecs (an -I in cSettings would be an unsafe flag, refused in a package dependency).
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CLCMS", path: "Sources/CLCMS", pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]),
        // Our own C: libjpeg and libpng report errors by exit()/longjmp, which Swift cannot catch,
        // so every call into them goes through setjmp-guarded functions that return error codes.
        // libturbojpeg's tjTransform turns JPEGs losslessly (it returns errors, no setjmp needed).
        .target(
            name: "CImageCodecs", dependencies: ["CPNG"], path: "Sources/CImageCodecs",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("turbojpeg")]),
        // SSIMULACRA 2, ported from the reference (cloudinary/ssimulacra2 with libjxl's blur and XYB):
        // plain C, its inner loops built for AVX2+FMA and for the baseline by target attributes.
        .target(name: "CSSIMULACRA2", path: "Sources/CSSIMULACRA2", linkerSettings: [.linkedLibrary("m")]),
        .target(
            name: "ImagePrep",
            dependencies: ["CHeif", "CJXL", "CFetch", "CExif", "CBrotli", "CDeflate", "CImageQuant", "CWebP", "CGif", "CLCMS", "CImageCodecs", "CSSIMULACRA2"],
            path: "Sources/ImagePrep"),
        .executableTarget(name: "imgprep", dependencies: ["ImagePrep"], path: "Sources/imgprep"),
        // imgprep too: the option parser is unit-tested (`@testable import imgprep`); the CLI tests run the binary.
        .testTarget(
            name: "ImagePrepTests", dependencies: ["ImagePrep", "imgprep"], path: "Tests/ImagePrepTests",
            swiftSettings: [.unsafeFlags(["-Onone"])]),
    ],
    swiftLanguageModes: [.v6]
)
