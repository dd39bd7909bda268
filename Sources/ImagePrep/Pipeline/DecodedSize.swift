/// The size a resize is planned from. The header's, as long as the decoded picture agrees with it (a JPEG
/// decoded at 1/2, 1/4 or 1/8 size agrees: libjpeg rounds each side up). A HEIF whose `ispe` or `clap`
/// disagrees with the coded picture does not: libheif sizes the header from the boxes but decodes what
/// is coded, and planning from the header would squeeze the picture. Then the picture's own size wins.
enum DecodedSize {
    static func upright(header: (width: Int, height: Int), picture: (width: Int, height: Int),
                        warnings: inout [String]) -> (width: Int, height: Int) {
        let agrees = [1, 2, 4, 8].contains { scale in
            (header.width + scale - 1) / scale == picture.width && (header.height + scale - 1) / scale == picture.height
        }
        if agrees { return header }
        warnings.append("the header gives the picture as \(header.width)x\(header.height) but it decodes as "
                        + "\(picture.width)x\(picture.height) (upright); sized from the decoded picture")
        return picture
    }
}
