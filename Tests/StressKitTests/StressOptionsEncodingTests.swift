import Foundation
import XCTest
@testable import StressKit

/// Stress's options cross into an isolated scenario's process, and into a
/// failed scenario's command to run it again, through one typed encoding
/// (``StressOptions/encoding``): each option the parser knows has an entry,
/// and the parser reads each command line back as the run's options with
/// only what the child or the replay documents as its own changed.
final class StressOptionsEncodingTests: XCTestCase {
    /// Runs that together give every option a value other than its default
    /// (one run cannot: `--iterations` and `--duration`, `--replay` and
    /// `--explore` or `--self-check` exclude each other).
    private func samples() throws -> [StressOptions] {
        var explored = try StressOptions.parse([])
        explored.list = true
        explored.isolate = false
        // A text that starts with a dash must not be read as an option.
        explored.filterArguments = ["dispose,observeOn", "-odd"]
        explored.scenarioArguments = ["a.b,c.d"]
        explored.seed = UInt64.max
        explored.iterations = 7
        explored.hangSeconds = 1.5
        explored.stopAtFirstForbidden = true
        explored.explore = .pct
        explored.pctDepth = 4
        explored.preemptions = 5
        explored.csvPath = "/tmp/stress out.csv"
        explored.detectionRuns = 2
        explored.detectionSeconds = 0.25
        explored.childScenario = "a.b"
        explored.childCSV = "/tmp/child.csv"
        var checked = try StressOptions.parse([])
        checked.duration = 0.5
        checked.selfCheck = true
        var replayed = try StressOptions.parse([])
        replayed.replay = "a.b:1:1:ab"
        replayed.explore = nil
        return [explored, checked, replayed]
    }

    /// The options on which the parser's reading of `arguments` and `expected` differ.
    private func lost(_ arguments: [String], _ expected: StressOptions) throws -> [String] {
        StressOptions.encoding.disagreements(try StressOptions.parse(arguments), expected)
    }

    func testTheSamplesSetEveryOptionAwayFromItsDefault() throws {
        let everywhereDefault = try samples().map { Set(StressOptions.encoding.defaults(in: $0)) }.reduce(
            Set(StressOptions.encoding.names)
        ) { $0.intersection($1) }
        XCTAssertEqual(everywhereDefault, [], "no sample sets these, so the round trip would not check them")
    }

    func testTheEncodingsDefaultsAreTheParsers() throws {
        let defaults = try StressOptions.parse([])
        XCTAssertEqual(StressOptions.encoding.defaults(in: defaults), StressOptions.encoding.names)
        XCTAssertEqual(defaults.arguments(), [], "an option at its default is not written")
    }

    func testEveryOptionSurvivesTheTripThroughTheCommandLine() throws {
        for options in try samples() {
            let arguments = options.arguments()
            XCTAssertEqual(try lost(arguments, options), [], "\(arguments)")
        }
    }

    func testAnIsolatedScenariosProcessGetsEveryOptionExceptTheSelectionTheSeedAndTheFile() throws {
        for parent in try samples() {
            let child = parent.childOptions(scenario: "x.y", seed: 42, csv: "/tmp/0.csv")
            let arguments = parent.childArguments(scenario: "x.y", seed: 42, csv: "/tmp/0.csv")
            XCTAssertEqual(try lost(arguments, child), [], "\(arguments)")
            let parsed = try StressOptions.parse(arguments)
            XCTAssertEqual(parsed.childScenario, "x.y")
            XCTAssertEqual(parsed.childCSV, "/tmp/0.csv")
            XCTAssertEqual(parsed.seed, 42)
            XCTAssertNil(parsed.csvPath, "the child writes its own file, never the run's")
            let changed = Set(StressOptions.encoding.disagreements(parent, child))
            let theParents: Set = [
                "filter", "scenario", "child-scenario", "child-csv", "seed", "csv", "list", "self-check", "replay",
            ]
            XCTAssertTrue(changed.isSubset(of: theParents), "the child lost \(changed.subtracting(theParents).sorted())")
        }
    }

    /// The replay command: exactly the failed scenario, in one process, the
    /// same seed and limit, and every option that changes what runs as the
    /// run had it; parsed back, it is the replay's options.
    func testTheReplayRepeatsEveryOptionThatChangesWhatRunsAndSelectsOnlyTheScenario() throws {
        var runs = try samples()
        for strategy in ExplorationStrategyKind.allCases {
            var explored = try StressOptions.parse(["--filter", "dispose", "--iterations", "9", "--hang-seconds", "4"])
            explored.explore = strategy
            explored.pctDepth = 6
            explored.preemptions = 1
            runs.append(explored)
        }
        runs.append(try StressOptions.parse(["--duration", "0.75", "--stop-at-first-forbidden", "--csv", "/tmp/r.csv"]))
        for run in runs {
            let arguments = run.replayArguments(scenario: "x.y", seed: 42)
            let replay = try StressOptions.parse(arguments)
            XCTAssertEqual(try lost(arguments, run.replayOptions(scenario: "x.y", seed: 42)), [], "\(arguments)")
            XCTAssertEqual(replay.scenarioNames, ["x.y"], "\(arguments)")
            XCTAssertEqual(replay.filters, [], "a --filter could select more than the failed scenario")
            XCTAssertFalse(replay.isolate, "\(arguments)")
            XCTAssertEqual(replay.seed, 42)
            XCTAssertNil(replay.csvPath, "the replay does not write over the run's CSV")
            XCTAssertNil(replay.childScenario)
            XCTAssertEqual(replay.limit, run.explore == nil ? run.limit : run.explorationLimit)
            XCTAssertEqual(replay.explorationLimit, run.explore == nil ? run.limit : run.explorationLimit)
            var whatRuns = ["hang-seconds", "stop-at-first-forbidden", "explore"]
            switch run.explore {
            case .pct: whatRuns.append("pct-depth")
            case .exhaustive: whatRuns.append("preemptions")
            case .random, nil: break
            }
            let changed = Set(StressOptions.encoding.disagreements(run, replay))
            XCTAssertTrue(changed.isDisjoint(with: whatRuns), "the replay changed \(changed.intersection(whatRuns).sorted())")
            for name in whatRuns where name != "stop-at-first-forbidden" && name != "explore" {
                XCTAssertTrue(arguments.contains("--\(name)"), "--\(name) is spelled out: \(arguments)")
            }
        }
    }

    /// A new option of Stress fails here until the encoding carries it (and
    /// then the round trip above checks that its value survives).
    func testTheEncodingCarriesEveryOptionTheParserKnows() throws {
        let parserOptions = try Self.parserOptions(dump: StressOptions._dumpHelp())
        let encoded = StressOptions.encoding.names
        let spellings = Set(StressOptions.encoding.spellings)
        XCTAssertEqual(Set(encoded).count, encoded.count, "an option is encoded twice: \(encoded)")
        for names in parserOptions where !names.contains("help") {
            XCTAssertFalse(Set(names).isDisjoint(with: spellings), "the encoding does not carry --\(names[0])")
        }
        let known = Set(parserOptions.joined())
        for name in spellings {
            XCTAssertTrue(known.contains(name), "--\(name) is encoded but the parser does not know it")
        }
        XCTAssertGreaterThanOrEqual(parserOptions.count, 19, "the dump lists every option, hidden ones too")
    }

    /// Each option's or flag's long names, read from the parser's
    /// `--experimental-dump-help` JSON (`_dumpHelp()`), hidden ones included.
    private static func parserOptions(dump: String) throws -> [[String]] {
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any])
        let command = try XCTUnwrap(root["command"] as? [String: Any])
        let arguments = try XCTUnwrap(command["arguments"] as? [[String: Any]])
        return arguments.compactMap { argument in
            guard argument["kind"] as? String != "positional" else { return nil }
            let names = (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
            return names.compactMap { $0["name"] as? String }
        }
    }
}
