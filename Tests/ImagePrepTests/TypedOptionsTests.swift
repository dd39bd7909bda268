import ImagePrep
import Testing
@testable import imgprep

/// Options are typed keys declared once: each value is parsed and checked by its declaration, read
/// typed (`arguments[.quality]` is an `Int?`), and a bad one is a usage error quoting the token.
@Suite struct TypedOptionsTests {
    private func convert(_ arguments: [String]) throws -> ParsedArguments {
        try ParsedArguments(arguments + ["x.heic"], spec: ConvertCommand.spec)
    }

    private func compress(_ arguments: [String]) throws -> ParsedArguments {
        try ParsedArguments(arguments + ["x.jpg"], spec: CompressCommand.spec)
    }

    /// The usage error parsing `arguments` throws, as the user sees it.
    private func usageError(_ arguments: [String], spec: CommandSpec = ConvertCommand.spec) -> String {
        do {
            _ = try ParsedArguments(arguments, spec: spec)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func integerInItsRange() throws {
        #expect(try convert(["-q", "70"])[.quality] == 70)
        #expect(try convert(["--quality=1"])[.quality] == 1)
        #expect(WriterOptions.values(in: try convert(["--png-compression", "0"]), writing: OutputFormat.allCases)["png-compression"] == .integer(0))
        #expect(usageError(["--png-compression", "13"]) == "invalid value '13' for '--png-compression': expected an integer from 0 to 12; see 'imgprep convert --help'")
        #expect(try convert([])[.quality] == nil)
        #expect(usageError(["--quality", "101"]) == "invalid value '101' for '--quality': expected an integer from 1 to 100, or auto; see 'imgprep convert --help'")
        #expect(try convert(["--quality", "AUTO"])[.quality] == .auto)
        #expect(usageError(["-j0"]) == "invalid value '0' for '--jobs': expected an integer from 1 to 256; see 'imgprep convert --help'")
    }

    @Test func byteSizes() throws {
        #expect(try convert(["--max-input-size", "2MiB"])[.maxInputSize] == 2_097_152)
        #expect(try convert(["--cache-max-size=500MB"])[.cacheMaxSize] == 500_000_000)
        let budget = try #require(try compress(["--max-bytes", "1.5MB"])[.maxBytes]?.all)
        #expect(budget.maxBytes == 1_500_000 && budget.family == .decimal)
        let binary = try #require(try compress(["--max-bytes", "200KiB"])[.maxBytes]?.all)
        #expect(binary.maxBytes == 204_800 && binary.family == .binary)
        let perWidth = try #require(try convert(["--max-bytes", "480:40KB,960:120KiB"])[.maxBytes])
        #expect(perWidth.all == nil && perWidth.perWidth.map(\.width) == [480, 960])
        #expect(perWidth.perWidth.map(\.budget.maxBytes) == [40_000, 122_880])
        #expect(usageError(["--max-bytes", "1mbytes", "x.jpg"], spec: CompressCommand.spec)
            == "invalid value '1mbytes' for '--max-bytes': expected a size such as 250000, 500KB, 1.5MB, 1M or 1MiB; see 'imgprep compress --help'")
        // The spellings people type: a prefix alone is the SI unit; a lowercase b is a bit, refused with the spelling in bytes.
        #expect(try compress(["--max-bytes", "1M"])[.maxBytes]?.all?.maxBytes == 1_000_000)
        #expect(try compress(["--max-bytes", "200k"])[.maxBytes]?.all?.maxBytes == 200_000)
        #expect(try compress(["--max-bytes", "1.5m"])[.maxBytes]?.all?.maxBytes == 1_500_000)
        #expect(usageError(["--max-bytes", "1Mb", "x.jpg"], spec: CompressCommand.spec)
            == "invalid value '1Mb' for '--max-bytes': expected a size such as 250000, 500KB, 1.5MB, 1M or 1MiB; a lowercase b is a bit ('1Mb' is megabits); for bytes write 1MB; see 'imgprep compress --help'")
        #expect(usageError(["--max-bytes", "480:40kb,960:120KB", "x.jpg"], spec: CompressCommand.spec)
            == "invalid value '480:40kb,960:120KB' for '--max-bytes': expected a size such as 250000, 500KB, 1.5MB, 1M or 1MiB; a lowercase b is a bit ('40kb' is kilobits); for bytes write 40kB; see 'imgprep compress --help'")
        #expect(usageError(["--max-input-size", "2mib"])
            == "invalid value '2mib' for '--max-input-size': expected a size such as 500MB or 2GiB; a lowercase b is a bit ('2mib' is mebibits); for bytes write 2MiB; see 'imgprep convert --help'")
        #expect(usageError(["--memory-limit", "lots"]).hasPrefix("invalid value 'lots' for '--memory-limit': expected a size such as 1500MB or 4GiB"))
    }

    @Test func formatFromTheCommandsList() throws {
        #expect(try convert(["--to", "png"])[.to] == .format(.png))
        #expect(try convert(["--to", "JPG"])[.to] == .format(.jpeg))
        #expect(try compress(["--to=webp", "--max-bytes", "1MB"])[.to] == .format(.webp))
        // compress writes the formats a budget can search (PNG as a palette): its --to lists them.
        #expect(try compress(["--to", "png", "--max-bytes", "1MB"])[.to] == .format(.png))
        #expect(usageError(["--to", "gif", "--max-bytes", "1MB"], spec: CompressCommand.spec)
            == "invalid value 'gif' for '--to': expected jpeg, png, webp, jxl, avif, heic or auto; see 'imgprep compress --help'")
        // A mistyped listed value gets the nearest one, alone or in a list; a swapped pair of letters is one typo.
        #expect(usageError(["--to", "wepb"])
            == "invalid value 'wepb' for '--to': expected jpeg, png, webp, jxl, avif, heic or auto; did you mean 'webp'? see 'imgprep convert --help'")
        #expect(usageError(["--to", "jpg,avfi"]).contains("; did you mean 'avif'? see 'imgprep convert --help'"))
        #expect(usageError(["--quality", "atuo"]).contains("; did you mean 'auto'? see"))
        #expect(usageError(["--hdr", "dorp"]).contains("expected keep or drop; did you mean 'drop'? see"))
        #expect(usageError(["--fit", "cuver"]).contains("did you mean 'cover'?"))
        #expect(!usageError(["--to", "tiff"]).contains("did you mean"))
        #expect(usageError(["--to", "gif"]) == "invalid value 'gif' for '--to': expected jpeg, png, webp, jxl, avif, heic or auto; see 'imgprep convert --help'")
        #expect(try convert(["--to", "auto"])[.to] == .auto)
    }

    @Test func flags() throws {
        let bundled = try convert(["-r0", "--dry-run"])
        #expect(bundled[.recursive] && bundled[.null] && bundled[.dryRun])
        #expect(!bundled[.inPlace] && WriterOptions.values(in: bundled, writing: OutputFormat.allCases) == FormatOptions())
        #expect(usageError(["--dry-run=yes"]) == "option '--dry-run' takes no value (got '--dry-run=yes'); see 'imgprep convert --help'")
        #expect(usageError(["--json", "--quiet"]) == "--json and --quiet cannot be used together; see 'imgprep convert --help'")
    }

    @Test func repeatedOptionLastOneWins() throws {
        let arguments = try convert(["-q", "60", "--to", "webp", "--quality=90", "--to", "avif"])
        #expect(arguments[.quality] == 90)
        #expect(arguments[.to] == .format(.avif))
    }

    @Test func choices() throws {
        #expect(try convert(["--subsampling", "auto"])[.subsampling] == .auto)
        #expect(try convert(["--subsampling", "422"])[.subsampling] == .fixed(.s422))
        #expect(try convert(["--color", "SRGB"])[.color] == .srgb)
        #expect(try convert(["--background", "#102030"])[.background] == RGBColor(red: 0x10, green: 0x20, blue: 0x30))
        #expect(try convert(["--search", "step"])[.search] == .step)
        #expect(try convert(["--timeout", "0.5"])[.timeout] == 0.5)
        #expect(usageError(["--subsampling", "411"]) == "invalid value '411' for '--subsampling': expected auto, 420, 422 or 444; see 'imgprep convert --help'")
        #expect(usageError(["--timeout", "-1"]) == "invalid value '-1' for '--timeout': expected seconds, such as 30 or 0.5 (0 for no limit); see 'imgprep convert --help'")
    }

    @Test func shardSpecExplainsItself() throws {
        let shard = try #require(try convert(["--shard", "2/5"])[.shard])
        #expect(shard.index == 2 && shard.count == 5)
        let message = usageError(["--shard", "6/5"])
        #expect(message.hasPrefix("invalid value '6/5' for --shard: ") && message.hasSuffix("; see 'imgprep convert --help'"), "\(message)")
    }

    /// Values are checked where they are declared: a budget option without --max-bytes (which used to
    /// be ignored unread) is still checked, and the first bad one in the table's order is reported.
    @Test func everyValueIsChecked() {
        #expect(usageError(["--step", "0"]) == "invalid value '0' for '--step': expected an integer from 1 to 99; see 'imgprep convert --help'")
        #expect(usageError(["--step", "0", "-q", "0"]).hasPrefix("invalid value '0' for '--quality'"))
    }

    @Test func nearestOptionIsSuggested() {
        #expect(usageError(["--max-byte", "1MB"], spec: CompressCommand.spec)
            == "unknown option '--max-byte' for 'compress'; did you mean --max-bytes? see 'imgprep compress --help'")
        #expect(usageError(["--in-place"]) == "unknown option '--in-place' for 'convert'; see 'imgprep convert --help'")
    }

    /// What the batch commands make of the typed values.
    @Test func settingsFromTypedValues() throws {
        let stepped = try BatchCommandOptions(compress(["--max-bytes", "100KB", "--search", "step", "--step", "7", "--min-quality", "30",
                                                        "--subsampling", "444", "--timeout", "0"]),
                                              formats: CompressCommand.formats, defaultQuality: { _ in 95 })
        #expect(stepped.settings.budget?.strategy == .step(7))
        #expect(stepped.settings.budget?.minQuality == 30)
        #expect(stepped.settings.subsampling == .s444 && !stepped.settings.keepsInputCoding)
        #expect(stepped.timeout == nil)
        let plain = try BatchCommandOptions(convert(["--to", "webp"]), formats: OutputFormat.allCases, defaultQuality: \.defaultQuality)
        #expect(plain.settings.quality == OutputFormat.webp.defaultQuality && plain.settings.budget == nil)
        #expect(plain.settings.subsampling == nil && plain.settings.keepsInputCoding && plain.timeout == 600)
    }

    /// The writers' own options reach the settings by name, only on the commands that write their format:
    /// compress writes PNG (as a palette), so it takes --png-compression; info writes nothing.
    @Test func writerOptionsReachTheSettings() throws {
        let options = try BatchCommandOptions(convert(["--to", "png", "--png-compression", "9", "--progressive"]),
                                              formats: OutputFormat.allCases, defaultQuality: \.defaultQuality)
        #expect(options.settings.formatOptions["png-compression"] == .integer(9))
        #expect(options.settings.formatOptions["progressive"] == .flag(true))
        #expect(try compress(["--png-compression", "9", "--max-bytes", "1MB"])[.maxBytes] != nil)
        #expect(usageError(["--png-compression", "9", "x.jpg"], spec: InfoCommand.spec)
            == "unknown option '--png-compression' for 'info'; see 'imgprep info --help'")
        #expect(try compress(["--max-bytes", "1MB", "--progressive"])[Flag("progressive", nil, "")])
    }

    /// `-o NAME.EXT` for an image format no writer writes is refused as such; a writer's extensions never are.
    @Test func unwrittenExtensionsLeaveOutEveryWritersOwn() {
        #expect(BatchCommandOptions.unwrittenImageExtensions.contains("gif"))
        for format in OutputFormat.allCases {
            #expect(BatchCommandOptions.unwrittenImageExtensions.isDisjoint(with: format.fileExtensions), "\(format)")
        }
    }

    /// Long and short names are unique within each command, or the first declaration would shadow the other.
    @Test func namesAreUnique() {
        for spec in [ConvertCommand.spec, CompressCommand.spec, InfoCommand.spec] {
            let longs = spec.options.map(\.long), shorts = spec.options.compactMap(\.short)
            #expect(Set(longs).count == longs.count, "\(spec.name)")
            #expect(Set(shorts).count == shorts.count, "\(spec.name)")
        }
    }
}
