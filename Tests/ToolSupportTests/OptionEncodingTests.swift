import XCTest
@testable import ToolSupport

/// How one table writes parsed options back as a command line: only what
/// differs from the parser's default, in the table's order, a value that
/// starts with a dash attached to its option, and what is asked for
/// spelled out.
final class OptionEncodingTests: XCTestCase {
    private enum Mode: String { case fast, slow }

    private struct Options {
        var verbose = false
        var isolate = true
        var names: [String] = []
        var count: Int?
        var seconds: Double = 30
        var mode: Mode = .fast
        var label: String?
    }

    private var encoding: OptionEncoding<Options> {
        OptionEncoding([
            .flag("verbose", \.verbose),
            .invertibleFlag("isolate", \.isolate, default: true),
            .repeated("name", \.names),
            .optional("count", \.count),
            .valued("seconds", \.seconds, default: 30),
            .choice("mode", \.mode, default: .fast),
            .optional("label", \.label),
        ])
    }

    func testOptionsAtTheirDefaultAreNotWritten() {
        XCTAssertEqual(encoding.arguments(Options()), [])
        XCTAssertEqual(encoding.defaults(in: Options()), encoding.names)
    }

    func testEveryOtherValueIsWrittenInTheTablesOrder() {
        var options = Options()
        options.label = "x"
        options.mode = .slow
        options.seconds = 0.5
        options.count = 3
        options.names = ["a", "b,c"]
        options.isolate = false
        options.verbose = true
        XCTAssertEqual(
            encoding.arguments(options),
            ["--verbose", "--no-isolate", "--name", "a", "--name", "b,c", "--count", "3", "--seconds", "0.5", "--mode",
             "slow", "--label", "x"])
        XCTAssertEqual(encoding.defaults(in: options), [])
        XCTAssertEqual(encoding.disagreements(options, Options()), encoding.names)
        XCTAssertEqual(encoding.disagreements(options, options), [])
    }

    func testAValueThatStartsWithADashIsAttachedToItsOption() {
        var options = Options()
        options.names = ["-odd", "even"]
        options.label = "-1"
        XCTAssertEqual(encoding.arguments(options), ["--name=-odd", "--name", "even", "--label=-1"])
    }

    func testAnOptionSpelledOutIsWrittenAtItsDefaultAndAFlagThatIsOffStillIsNot() {
        XCTAssertEqual(
            encoding.arguments(Options(), spellingOut: ["seconds", "isolate", "verbose", "count"]),
            ["--isolate", "--seconds", "30.0"])
    }

    func testAnInversionIsOneOfTheOptionsSpellings() {
        XCTAssertEqual(encoding.spellings, ["verbose", "isolate", "no-isolate", "name", "count", "seconds", "mode", "label"])
    }
}
