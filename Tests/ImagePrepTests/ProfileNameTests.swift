import Testing
@testable import ImagePrep

/// `info` names a profile by its 'desc' tag as a person reads it: without the NULs writers put at its
/// end (the text and JSON showed `"sRGB IEC61966-2.1\000"`).
struct ProfileNameTests {
    /// A profile of a header and one 'desc' tag holding `tag` (not a usable profile: only the name is read).
    static func profile(descTag tag: [UInt8]) -> [UInt8] {
        func u32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        let header = [UInt8](repeating: 0, count: 128) + u32(1) + Array("desc".utf8) + u32(144) + u32(tag.count)
        return header + tag
    }

    /// ICC v2 `textDescriptionType`: the count includes the NUL, and some writers pad with more.
    @Test(arguments: [1, 3])
    func aV2DescriptionEndsAtItsNUL(nuls: Int) {
        let text = Array("sRGB IEC61966-2.1".utf8) + [UInt8](repeating: 0, count: nuls)
        var tag = Array("desc".utf8) + [0, 0, 0, 0]
        tag += [0, 0, 0, UInt8(text.count)] + text
        #expect(ImageInspector.iccDescription(Self.profile(descTag: tag)) == "sRGB IEC61966-2.1")
    }

    /// ICC v4 `multiLocalizedUnicodeType`: UTF-16 whose length may count a NUL (or two).
    @Test(arguments: [0, 1, 2])
    func aV4DescriptionHasNoTrailingNUL(nuls: Int) {
        let utf16 = Array("sRGB IEC61966-2.1".utf16) + [UInt16](repeating: 0, count: nuls)
        let text = utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        var tag = Array("mluc".utf8) + [0, 0, 0, 0] + [0, 0, 0, 1] + [0, 0, 0, 12] + Array("enUS".utf8)
        tag += [0, 0, 0, UInt8(text.count)] + [0, 0, 0, 28] + text
        #expect(ImageInspector.iccDescription(Self.profile(descTag: tag)) == "sRGB IEC61966-2.1")
    }

    @Test func aNameOfNULsIsUnnamed() {
        let tag = Array("desc".utf8) + [0, 0, 0, 0] + [0, 0, 0, 4] + [0, 0, 0, 0]
        #expect(ImageInspector.iccDescription(Self.profile(descTag: tag)) == "unnamed")
    }
}
