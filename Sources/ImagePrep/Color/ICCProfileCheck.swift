internal import CLCMS

/// The colour model of a picture's pixels as its file stores them, which its ICC profile must describe.
enum ICCColourModel: String, Sendable {
    case rgb = "RGB ", gray = "GRAY", cmyk = "CMYK"

    var name: String { self == .gray ? "gray" : rawValue.trimmingCharacters(in: .whitespaces) }
}

/// Every ICC profile a decoder reads is checked here once, before anything uses it: a damaged profile, or
/// one for other pixels, is dropped with one warning, so no writer refuses it later (libpng checks more
/// than libjpeg, libwebp or libheif, and would fail the file) and no viewer reads colours by it.
enum ICCProfileCheck {
    /// Why `profile` cannot go with pixels stored as one of `models`, or nil when it can: libpng's checks
    /// (the header's size, signature, tag table, class and connection space) plus LittleCMS reading it.
    static func problem(in profile: [UInt8], for models: [ICCColourModel]) -> String? {
        let count = profile.count
        // The 128-byte header and the tag count.
        guard count >= 132 else { return "it is \(count) bytes, too short for a profile header" }
        func u32(_ at: Int) -> Int { profile[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func signature(_ at: Int) -> String {
            String(decoding: profile[at..<at + 4].map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        }
        guard u32(0) == count else { return "its header gives its size as \(u32(0)) bytes, but it is \(count)" }
        guard count % 4 == 0 else { return "its size, \(count) bytes, is not a multiple of 4" }
        guard profile[36..<40].elementsEqual("acsp".utf8) else { return "it has no 'acsp' signature at byte 36" }
        let tagCount = u32(128)
        guard tagCount <= (count - 132) / 12 else { return "its tag table (\(tagCount) tags) runs past its end" }
        for index in 0..<tagCount {
            let entry = 132 + 12 * index
            let (offset, size) = (u32(entry + 4), u32(entry + 8))
            guard offset <= count, size <= count - offset else {
                return "its tag '\(signature(entry))' (\(size) bytes at \(offset)) runs past its end"
            }
        }
        guard u32(64) < 0xFFFF else { return "its rendering intent (\(u32(64))) is invalid" }
        // Only input, display, output and colour-space profiles describe pictures (ICC.1 7.2.5).
        let deviceClass = signature(12)
        guard !["abst", "link", "nmcl"].contains(deviceClass) else {
            return "it is a '\(deviceClass)' profile, which cannot be embedded in a picture"
        }
        let connection = signature(20)
        guard ["XYZ ", "Lab "].contains(connection) else { return "its connection space '\(connection)' is neither XYZ nor Lab" }
        let space = signature(16)
        guard models.contains(where: { $0.rawValue == space }) else {
            let described = ICCColourModel(rawValue: space)?.name ?? "'\(space.trimmingCharacters(in: .whitespaces))'"
            return "it describes \(described) data, but the picture is \(models.map(\.name).joined(separator: " or "))"
        }
        return lcmsProblem(profile).map { "LittleCMS cannot read it (\($0))" }
    }

    /// The colour model a profile's header names (bytes 16-19), if it is one of ours.
    static func colourSpace(of profile: [UInt8]) -> ICCColourModel? {
        profile.count >= 20 ? ICCColourModel(rawValue: String(decoding: profile[16..<20], as: UTF8.self)) : nil
    }

    /// LittleCMS's own message when it cannot open the profile (it reads the header and tag directory).
    private static func lcmsProblem(_ profile: [UInt8]) -> String? {
        let log = LCMSLog()
        guard let context = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else { return "out of memory" }
        defer { cmsDeleteContext(context) }
        cmsSetLogErrorHandlerTHR(context) { context, _, text in
            guard let context, let userData = cmsGetContextUserData(context), let text else { return }
            Unmanaged<LCMSLog>.fromOpaque(userData).takeUnretainedValue().record(String(cString: text))
        }
        let opened = withExtendedLifetime(log) {
            profile.withUnsafeBytes { cmsOpenProfileFromMemTHR(context, $0.baseAddress, UInt32($0.count)) }
        }
        guard let opened else { return log.last ?? "unknown error" }
        cmsCloseProfile(opened)
        return nil
    }
}

extension ImageMetadata {
    /// `profile` as the ICC profile when ICCProfileCheck finds it sound for pixels stored as one of `models`;
    /// otherwise none, with the reason in `droppedICC` and one warning.
    mutating func setICC(_ profile: [UInt8]?, for models: [ICCColourModel], warnings: inout [String]) {
        icc = nil
        guard let profile else { return }
        if let problem = ICCProfileCheck.problem(in: profile, for: models) {
            dropICC(because: problem, warnings: &warnings)
        } else {
            icc = profile
        }
    }

    /// Records that the source's profile was not kept, and says why in a warning.
    mutating func dropICC(because problem: String, warnings: inout [String]) {
        icc = nil
        droppedICC = problem
        warnings.append("ICC profile dropped: \(problem)")
    }
}
