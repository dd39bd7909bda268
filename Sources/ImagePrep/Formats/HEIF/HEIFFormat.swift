/// HEIF-family in (HEIC, HEIF, AVIF and their sequence brands): libheif with its decoder plugins.
struct HEIFFormatReader: ImageFormatReader {
    /// Brands that mark a file as a HEIF-family image libheif can open. A file qualifies when its
    /// major brand or any compatible brand is one of these (iPhones put `heic` in the compatible list).
    static let brands: Set<String> = [
        "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs",
        "mif1", "mif2", "msf1", "miaf", "avif", "avis", "avio", "jpeg", "jpgs",
    ]

    /// An ISO-BMFF file type box with a HEIF brand. (Other ISO-BMFF files, movies mostly, are left to
    /// the sniffer's description of what they are.)
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        guard let ftyp = FileTypeBox(bytes) else { return nil }
        let all = [ftyp.major] + ftyp.compatible
        if all.contains("mif3") && !all.contains(where: { Self.brands.contains($0) && $0 != "mif3" }) {
            return .failure(ImagePrepError(.unsupported, "compact HEIF ('mini', brand mif3) is not supported by libheif 1.15"))
        }
        guard all.contains(where: Self.brands.contains) else { return nil }
        return .success(.heif(majorBrand: ftyp.major, compatibleBrands: ftyp.compatible))
    }
    var descriptor: ReaderDescriptor { Self.descriptor }
    static let descriptor: ReaderDescriptor = {
        var descriptor = ReaderDescriptor(
            displayName: "HEIC/HEIF/AVIF", libraries: [.libheif, .heifDecoderPlugins, .libde265, .dav1d, .libaom],
            reads: { $0.identity == SniffedFormat.heifIdentity }, fileName: { HEIFFormatReader.isAVIF($0) ? "an AVIF image" : "a HEIF image" },
            probeHeader: HeaderProbe.heif,
            describe: { file, format in
                try ImageInspector.inspectHeif(file, isAVIF: HEIFFormatReader.isAVIF(format), brands: HEIFFormatReader.brands(of: format))
            })
        // A plain HEIC grid of 8-bit tiles (HeifGridPlanes).
        descriptor.decodesToYCbCrPlanes = true
        return descriptor
    }()
    var decoder: any ImageDecoding { HeifDecoder() }

    static func isAVIF(_ format: SniffedFormat) -> Bool {
        guard HEIFFormatReader().reads(format), let major = format.majorBrand else { return false }
        return major.hasPrefix("avi") || format.compatibleBrands.contains("avif")
    }

    static func brands(of format: SniffedFormat) -> [String] { HEIFFormatReader().reads(format) ? format.brands : [] }
}

extension SniffedFormat {
    static let heifIdentity = "heif"

    /// An ISO-BMFF still-image container libheif reads (HEIC, HEIF, AVIF, and their sequence brands).
    public static func heif(majorBrand: String, compatibleBrands: [String]) -> SniffedFormat {
        SniffedFormat(declaring: heifIdentity, majorBrand: majorBrand, compatibleBrands: compatibleBrands)
    }
}
