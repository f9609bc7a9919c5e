import XCTest
@testable import StressKit

final class StressOptionsTests: XCTestCase {
    func testParsesEveryOption() throws {
        let options = try StressOptions.parse([
            "--list", "--filter", "bag,serial", "--filter=trampoline", "--duration", "0.5",
            "--seed", "0x2a", "--csv", "/tmp/out.csv", "--self-check",
        ])
        XCTAssertTrue(options.list)
        XCTAssertTrue(options.selfCheck)
        XCTAssertEqual(options.filters, ["bag", "serial", "trampoline"])
        XCTAssertEqual(options.limit, .duration(seconds: 0.5))
        XCTAssertEqual(options.seed, 42)
        XCTAssertEqual(options.csvPath, "/tmp/out.csv")
        XCTAssertEqual(try StressOptions.parse(["--iterations=1000", "--seed", "18446744073709551615"]).limit, .iterations(1000))
    }

    func testDefaultsAreIterationsAndARandomSeed() throws {
        let options = try StressOptions.parse([])
        XCTAssertEqual(options.limit, .iterations(StressOptions.defaultIterations))
        XCTAssertNil(options.seed)
        XCTAssertTrue(options.filters.isEmpty)
    }

    func testBadInputIsRejectedWithAMessageNamingTheOption() {
        let seconds = "needs a number of seconds greater than 0 and at most 1000000 s"
        let cases: [([String], String)] = [
            (["--bogus"], "Unknown option '--bogus'"),
            (["--iterations"], "Missing value for '--iterations <n>'"),
            (["--iterations", "--list"], "Missing value for '--iterations <n>'"),
            (["--iterations", "0"], "The value '0' is invalid for '--iterations <n>': needs a positive whole number"),
            (["--iterations", "many"], "The value 'many' is invalid for '--iterations <n>': needs a positive whole number"),
            (["--duration", "-1"], "The value '-1' is invalid for '--duration <seconds>': \(seconds)"),
            (["--duration", "inf"], "The value 'inf' is invalid for '--duration <seconds>': \(seconds)"),
            (["--duration", "1e11"], "The value '1e11' is invalid for '--duration <seconds>': \(seconds)"),
            (["--duration", "nan"], "The value 'nan' is invalid for '--duration <seconds>': \(seconds)"),
            (["--hang-seconds", "1e11"], "The value '1e11' is invalid for '--hang-seconds <seconds>': \(seconds)"),
            (["--hang-seconds", "-0.5"], "The value '-0.5' is invalid for '--hang-seconds <seconds>': \(seconds)"),
            (["--hang-seconds", "NaN"], "The value 'NaN' is invalid for '--hang-seconds <seconds>': \(seconds)"),
            (["--hang-seconds", "0"], "The value '0' is invalid for '--hang-seconds <seconds>': \(seconds)"),
            (["--detection-seconds", "1e300"], "The value '1e300' is invalid for '--detection-seconds <seconds>': \(seconds)"),
            (["--pct-depth", "1000000000000"], "The value '1000000000000' is invalid for '--pct-depth <d>': needs a whole number from 1 to 100"),
            (["--pct-depth", "0"], "The value '0' is invalid for '--pct-depth <d>': needs a whole number from 1 to 100"),
            (["--preemptions", "11"], "The value '11' is invalid for '--preemptions <n>': needs a whole number from 0 to 10"),
            (["--scenario", ","], "--scenario needs a scenario name (see --list)"),
            (["--seed", "-3"], "The value '-3' is invalid for '--seed <n>': needs a whole number from 0 to 2^64-1 (decimal or 0x-hex)"),
            (["--seed", "18446744073709551616"], "The value '18446744073709551616' is invalid for '--seed <n>': needs a whole number from 0 to 2^64-1 (decimal or 0x-hex)"),
            (["--filter", ","], "--filter needs a non-empty text"),
            (["--csv="], "Missing value for '--csv <path>'"),
            (["--csv", ""], "--csv needs a file path"),
            (["--iterations", "5", "--duration", "1"], "give either --iterations or --duration, not both"),
        ]
        for (arguments, message) in cases {
            XCTAssertThrowsError(try StressOptions.parse(arguments), "\(arguments)") { error in
                XCTAssertEqual(StressOptions.message(for: error), message, "\(arguments)")
                XCTAssertNotEqual(StressOptions.exitCode(for: error), .success, "\(arguments)")
            }
        }
    }

    func testHelpIsGeneratedAndExitsWithZero() {
        let output = OutputRecorder()
        let command = StressCommand(scenarios: [FakeScenario { _ in .first }], output: output.record)
        XCTAssertEqual(command.main(["--help"]), 0)
        for option in ["--list", "--filter <text>", "--iterations <n>", "--duration <seconds>", "--seed <n>", "--csv <path>", "--self-check", "EXIT STATUS"] {
            XCTAssertTrue(output.text.contains(option), option)
        }
        XCTAssertFalse(output.text.contains("Stress: error"))
    }

    func testBadInputMakesTheCommandExitWithTwo() {
        let output = OutputRecorder()
        let command = StressCommand(scenarios: [FakeScenario { _ in .first }], output: output.record)
        XCTAssertEqual(command.main(["--iterations", "x"]), 2)
        XCTAssertTrue(output.text.contains("Stress: error: The value 'x' is invalid for '--iterations <n>': needs a positive whole number\nRun 'Stress --help' for usage."), output.text)
        XCTAssertEqual(command.main(["--filter", "nothing-matches"]), 2)
        XCTAssertTrue(output.text.contains("Stress: error: 'nothing-matches' selects no scenario"), output.text)
        XCTAssertEqual(command.main(["--iterations", "4", "--csv", "/nonexistent-directory/x.csv"]), 2)
        XCTAssertEqual(command.main(["--hang-seconds", "1e11"]), 2)
        XCTAssertTrue(output.text.contains("at most 1000000 s"), output.text)
        XCTAssertEqual(command.main(["--scenario", "fake"]), 2)
        XCTAssertTrue(output.text.contains("--scenario: no scenario is named 'fake'"), output.text)
    }

    func testFilterSelectsScenariosAnyTextSelectsByWholeWords() throws {
        let command = StressCommand(
            scenarios: [
                FakeScenario(name: "bag.one") { _ in .first },
                FakeScenario(name: "serial.two") { _ in .first },
                FakeScenario(name: "other") { _ in .first },
            ],
            output: { _ in }
        )
        let chosen = command.selected(try StressOptions.parse(["--filter", "bag,serial"]))
        XCTAssertEqual(chosen.map(\.name), ["bag.one", "serial.two"])
        // --scenario selects the whole name only, beside what --filter selects.
        let exact = StressCommand(
            scenarios: [FakeScenario(name: "kind.loop") { _ in .first }, FakeScenario(name: "kind.loop-generic-path") { _ in .first }],
            output: { _ in })
        XCTAssertEqual(exact.selected(try StressOptions.parse(["--filter", "kind.loop"])).map(\.name), ["kind.loop", "kind.loop-generic-path"])
        XCTAssertEqual(exact.selected(try StressOptions.parse(["--scenario", "kind.loop"])).map(\.name), ["kind.loop"])
        // Part of a word selects nothing.
        XCTAssertEqual(command.selected(try StressOptions.parse(["--filter", "ag,erial.two"])).map(\.name), [])
    }

    func testListPrintsEveryScenarioName() {
        let output = OutputRecorder()
        let command = StressCommand(scenarios: ScenarioCatalog.all(), output: output.record)
        XCTAssertEqual(command.main(["--list"]), 0)
        for scenario in ScenarioCatalog.all() {
            XCTAssertTrue(output.text.contains(scenario.name), scenario.name)
        }
    }

    func testCSVHasAHeaderAndOneRowPerOutcome() throws {
        let result = StressRunner(limit: .iterations(8), seed: 1, batchSize: 4)
            .run(FakeScenario { $0.isMultiple(of: 2) ? .first : .second })
        let lines = ResultCSV.render([result]).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, ResultCSV.header)
        XCTAssertEqual(lines.count, 1 + FakeOutcome.allCases.count)
        XCTAssertTrue(lines[1].hasPrefix("1,fake.scenario,test,8,"))
        XCTAssertTrue(lines[1].hasSuffix(",0,OK,first,ACCEPTABLE,4"))
    }

    func testCSVOptionWritesTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stress-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let command = StressCommand(scenarios: [FakeScenario { $0.isMultiple(of: 2) ? .first : .second }], output: { _ in })
        XCTAssertEqual(command.main(["--iterations", "4", "--csv", path]), 0)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix(ResultCSV.header))
    }
}
