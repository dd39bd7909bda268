import Testing
@testable import ImagePrep

@Suite struct ByteSizeTests {
    @Test(arguments: [
        ("250000", 250_000), ("250000B", 250_000), ("500KB", 500_000), ("500kB", 500_000), ("1MB", 1_000_000),
        ("1mB", 1_000_000), ("1.5MB", 1_500_000), ("1KiB", 1024), ("1MiB", 1_048_576), ("1MIB", 1_048_576),
        ("0.5KiB", 512), ("2GB", 2_000_000_000), (" 300KB ", 300_000), ("300 KB", 300_000),
        // A prefix alone is the SI unit: what people type.
        ("1M", 1_000_000), ("200k", 200_000), ("1.5m", 1_500_000), ("2G", 2_000_000_000), ("1Mi", 1_048_576),
    ])
    func parsesUnits(text: String, bytes: Int) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test(arguments: ["", "MB", "1.2.3MB", "-5KB", "1e6", "5 megabytes", ".5MB", "0", "0.1B", "12XB", "1MBB",
                      "1Mb", "500kb", "1mb", "1mib", "250000b"])
    func rejectsEverythingElse(text: String) {
        #expect(ByteSize.parse(text) == nil)
    }

    /// A lowercase b is a bit: the hint says so and gives the spelling in bytes; other refusals get none.
    @Test(arguments: [
        ("1Mb", "a lowercase b is a bit ('1Mb' is megabits); for bytes write 1MB"),
        ("500kb", "a lowercase b is a bit ('500kb' is kilobits); for bytes write 500kB"),
        ("1.5 gb", "a lowercase b is a bit ('1.5 gb' is gigabits); for bytes write 1.5GB"),
        ("2kib", "a lowercase b is a bit ('2kib' is kibibits); for bytes write 2KiB"),
        ("250000b", "a lowercase b is a bit ('250000b' is bits); for bytes write 250000B"),
    ])
    func bitsAreRefusedWithTheSpellingInBytes(text: String, hint: String) {
        #expect(ByteSize.hint(for: text) == hint)
    }

    @Test(arguments: ["1MB", "12Xb", "lots", "1M"])
    func noHintWhereNoBitsWereWritten(text: String) {
        #expect(ByteSize.hint(for: text) == nil)
    }

    @Test func formatsForMessages() {
        #expect(ByteSize.format(1_000_000) == "1 MB")
        #expect(ByteSize.format(204_800) == "204.8 KB")
        #expect(ByteSize.format(512) == "512 B")
    }

    /// A budget is echoed in the units it was given in: `200KiB` is "200 KiB", not "204.8 KB".
    @Test(arguments: [
        ("200KiB", "200 KiB"), ("1.5MiB", "1.5 MiB"), ("1MiB", "1 MiB"), ("2GiB", "2 GiB"), ("512KiB", "512 KiB"),
        ("500KB", "500 KB"), ("1.5MB", "1.5 MB"), ("250000", "250000 B"), ("250000B", "250000 B"), ("0.5KiB", "512 B"),
    ])
    func echoesTheUnitFamilyTheUserGave(text: String, shown: String) throws {
        let parsed = try #require(ByteSize.parseWithFamily(text))
        #expect(ByteBudget(maxBytes: parsed.bytes, family: parsed.family).formatted == shown)
    }
}
