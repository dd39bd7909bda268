import Foundation
import Testing
@testable import ImagePrep

/// The `<picture>` markup as text: its order, escaping and URLs (BrowserCheckTests shows a browser agrees).
@Suite struct PictureMarkupTests {
    let variants = ManifestTests.variants("photos/a")

    @Test func theIssuesPictureForThreeFormats() {
        let html = PictureMarkup.html(variants: variants, alt: "A cat", sizes: "100vw", baseURL: nil)
        #expect(html == """
        <picture>\
        <source type="image/avif" srcset="photos/a-480.avif 480w, photos/a-960.avif 960w, photos/a-1920.avif 1920w" sizes="100vw">\
        <source type="image/webp" srcset="photos/a-480.webp 480w, photos/a-960.webp 960w, photos/a-1920.webp 1920w" sizes="100vw">\
        <img src="photos/a-1920.jpeg" srcset="photos/a-480.jpeg 480w, photos/a-960.jpeg 960w, photos/a-1920.jpeg 1920w" sizes="100vw" \
        width="1920" height="1440" loading="lazy" decoding="async" alt="A cat">\
        </picture>
        """)
    }

    @Test func oneFormatIsAnImgAloneAndWidthsAreAscending() {
        let shuffled = [ManifestVariant(format: "webp", width: 960, height: 540, bytes: 1, path: "b.webp"),
                        ManifestVariant(format: "webp", width: 480, height: 270, bytes: 1, path: "a.webp")]
        #expect(PictureMarkup.html(variants: shuffled, alt: "", sizes: "(min-width: 800px) 50vw, 100vw", baseURL: nil) ==
                #"<picture><img src="b.webp" srcset="a.webp 480w, b.webp 960w" sizes="(min-width: 800px) 50vw, 100vw" width="960" height="540" loading="lazy" decoding="async" alt=""></picture>"#)
        #expect(PictureMarkup.html(variants: [], alt: "x", sizes: "100vw", baseURL: nil) == "")
    }

    @Test(arguments: [
        #""><script>__imgprepInjected('script')</script>"#,
        #"<img src=x onerror=__imgprepInjected('onerror')>"#,
        #"' onload='__imgprepInjected(1)' x='"#,
        "&amp; &lt;already escaped&gt; &#39;",
    ])
    func hostileAltTextStaysInsideItsAttribute(alt: String) throws {
        let html = PictureMarkup.html(variants: variants, alt: alt, sizes: "\"><b>", baseURL: nil)
        // Escaped: no quote, angle bracket or ampersand of the caption survives as such.
        let escapedAlt = alt.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
        #expect(html.hasSuffix(" alt=\"\(escapedAlt)\"></picture>"))
        #expect(html.contains("sizes=\"&quot;&gt;&lt;b&gt;\""))
        // The markup's own tags are the only ones: one `<` per tag.
        #expect(html.filter { $0 == "<" }.count == 5)  // picture, 2 sources, img, /picture
        #expect(!html.contains("<script") && !html.contains("<b>"))
    }

    @Test func pathsWithSpacesAndUnicodeArePercentEncodedBySegment() {
        #expect(PictureMarkup.url("my photos/été 2024/IMG 1,2.jpeg", baseURL: nil) == "my%20photos/%C3%A9t%C3%A9%202024/IMG%201%2C2.jpeg")
        #expect(PictureMarkup.url("a#b?c&d'e\"f.avif", baseURL: nil) == "a%23b%3Fc%26d%27e%22f.avif")
        #expect(PictureMarkup.url("../up/x-480.webp", baseURL: nil) == "../up/x-480.webp")
        #expect(PictureMarkup.url("日本.jpg", baseURL: nil) == "%E6%97%A5%E6%9C%AC.jpg")
    }

    @Test(arguments: [
        ("https://cdn.example.com/img", "https://cdn.example.com/img/a%20b/c.avif"),
        ("https://cdn.example.com/img/", "https://cdn.example.com/img/a%20b/c.avif"),
        ("https://cdn.example.com/img///", "https://cdn.example.com/img/a%20b/c.avif"),
        ("/static", "/static/a%20b/c.avif"),
        ("", "a%20b/c.avif"),
    ])
    func baseURLIsJoinedWithExactlyOneSlash(base: String, expected: String) {
        #expect(PictureMarkup.url("a b/c.avif", baseURL: base) == expected)
        #expect(PictureMarkup.url("/a b/c.avif", baseURL: base.isEmpty ? nil : base) == (base.isEmpty ? "/a%20b/c.avif" : expected))
    }

    @Test func baseURLIsEscapedInTheMarkup() {
        let html = PictureMarkup.html(variants: variants, alt: "", sizes: "100vw", baseURL: "https://cdn.example.com/?a=1&b=\"2\"")
        // `&` is HTML-escaped; a quote cannot stand in a URL, so it is percent-encoded first.
        #expect(html.contains(#"src="https://cdn.example.com/?a=1&amp;b=%222%22/photos/a-1920.jpeg""#), "\(html)")
        #expect(!html.contains("&b="))
    }

    @Test func theEntryCarriesTheMarkupItsInitialiserMade() {
        let entry = ManifestEntry(width: 1920, height: 1440, alt: "x", color: "#000000", placeholder: nil, variants: variants,
                                  sizes: "50vw", baseURL: "https://x.test")
        #expect(entry.html == PictureMarkup.html(variants: variants, alt: "x", sizes: "50vw", baseURL: "https://x.test"))
        #expect(entry.html.contains(#"src="https://x.test/photos/a-1920.jpeg""#))
    }
}
