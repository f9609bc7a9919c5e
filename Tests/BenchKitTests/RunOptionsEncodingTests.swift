import Foundation
import XCTest
@testable import BenchKit
@testable import BenchRunnerCLI

/// `BenchRunner run`'s options cross into every child process through one
/// typed encoding (``RunOptions/encoding``): each option the parser knows
/// has an entry, and the parser reads each child's command line back as the
/// parent's options with only what the parent decides for that child set.
final class RunOptionsEncodingTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// What `run`'s own parser (the whole command line tool's, from its
    /// root command) reads from `arguments`.
    private func parse(_ arguments: [String]) throws -> RunOptions {
        let command = try BenchRunnerCommand.parseAsRoot(arguments)
        return try XCTUnwrap(command as? Run, "\(arguments) did not parse as `run`").options
    }

    /// Runs that together give every option a value other than its
    /// default (one run cannot: `--isolate` and `--forks` exclude each
    /// other, as `--forks` and `--allocator jemalloc` in a parent do).
    private var samples: [RunOptions] {
        var isolated = RunOptions()
        isolated.quick = true
        // A text that starts with a dash must not be read as an option.
        isolated.filters = ["observeOn.throughput,trampoline", "-odd"]
        isolated.repetitions = 9
        isolated.minRepetitionMs = 12.5
        isolated.floods = 4
        isolated.scale = .full
        isolated.scaleN = "1000,1e4"
        isolated.output = "out dir"
        isolated.allocator = .jemalloc
        isolated.isolate = true
        isolated.instructions = .skip
        isolated.instructionChild = true
        isolated.onlyBenchmark = "observeOn.throughput"
        isolated.timingOnly = true
        isolated.countsOnly = true
        isolated.rowsFile = "/tmp/rows.csv"
        isolated.runID = "20261206T000000Z-0123456789ab"
        var forked = RunOptions()
        forked.forks = 3
        forked.allocator = .both
        forked.rowsFile = "/tmp/forked.csv"
        forked.instructions = .only
        return [isolated, forked]
    }

    func testTheSamplesSetEveryOptionAwayFromItsDefault() {
        let everywhereDefault = samples.map { Set(RunOptions.encoding.defaults(in: $0)) }.reduce(
            Set(RunOptions.encoding.names)
        ) { $0.intersection($1) }
        XCTAssertEqual(everywhereDefault, [], "no sample sets these, so the round trip would not check them")
    }

    func testTheEncodingsDefaultsAreTheParsers() throws {
        XCTAssertEqual(try parse(["run"]), RunOptions())
        XCTAssertEqual(try parse([]), RunOptions(), "`run` is the default command")
        XCTAssertEqual(RunOptions().arguments(), ["run"], "an option at its default is not written")
    }

    /// The run's own command line as the encoding writes it (what a run
    /// re-executed on another allocator is given) parses as the run's options.
    func testEveryOptionSurvivesTheTripThroughTheCommandLine() throws {
        for options in samples {
            let arguments = options.arguments()
            XCTAssertEqual(try parse(arguments), options, "\(arguments)")
        }
    }

    /// Each child's command line parses as the parent's options with only
    /// the options its launcher documents as its own changed.
    func testEveryChildGetsEveryOptionOfTheParentExceptThoseItsParentSets() throws {
        let rows = "/tmp/child.csv", runID = "run-2"
        for parent in samples {
            let children: [(name: String, options: RunOptions, arguments: [String], sets: Set<String>)] = [
                ForkedRun.childOptions(parent, repetitions: 4, rowsFile: rows, runID: runID).withArguments(
                    "fork", sets: ["forks", "repetitions", "allocator", "only-benchmark", "counts-only", "rows-file", "run-id"]),
                ForkedRun.benchmarkProcessOptions(parent, benchmark: "b", repetitions: 4, rowsFile: rows, runID: runID)
                    .withArguments(
                        "benchmark process",
                        sets: [
                            "forks", "repetitions", "allocator", "only-benchmark", "timing-only", "counts-only", "rows-file",
                            "run-id",
                        ]),
                IsolatedRun.childOptions(parent, benchmark: "b", rowsFile: rows, runID: runID).withArguments(
                    "isolated benchmark", sets: ["isolate", "only-benchmark", "rows-file", "run-id"]),
                AllocationChild.childOptions(parent, kind: .counts, rowsFile: rows, runID: runID).withArguments(
                    "counting child", sets: ["allocator", "counts-only", "forks", "rows-file", "run-id"]),
                AllocationChild.childOptions(parent, kind: .everything, rowsFile: rows, runID: runID).withArguments(
                    "jemalloc child", sets: ["allocator", "counts-only", "forks", "rows-file", "run-id"]),
                (
                    "callgrind child", InstructionPass.childOptions(parent, manifest: rows, runID: runID),
                    InstructionPass.childArguments(parent, manifest: rows, runID: runID),
                    ["instructions", "instruction-child", "allocator", "forks", "counts-only", "rows-file", "run-id"]
                ),
            ]
            for child in children {
                XCTAssertEqual(try parse(child.arguments), child.options, "\(child.name): \(child.arguments)")
                let changed = Set(RunOptions.encoding.disagreements(parent, child.options))
                XCTAssertTrue(
                    changed.isSubset(of: child.sets),
                    "the \(child.name) lost or changed \(changed.subtracting(child.sets).sorted())")
                XCTAssertEqual(child.options.rowsFile, rows, child.name)
                XCTAssertEqual(child.options.runID, runID, child.name)
            }
        }
    }

    /// A new option of `run` fails here until the encoding carries it (and
    /// then the round trip above checks that its value survives).
    func testTheEncodingCarriesEveryOptionTheParserKnows() throws {
        let parserOptions = try OptionNames.ofParser(dump: Run._dumpHelp())
        let encoded = RunOptions.encoding.names
        let spellings = Set(RunOptions.encoding.spellings)
        XCTAssertEqual(Set(encoded).count, encoded.count, "an option is encoded twice: \(encoded)")
        for names in parserOptions where !names.contains("help") {
            XCTAssertFalse(Set(names).isDisjoint(with: spellings), "the encoding does not carry --\(names[0])")
        }
        let known = Set(parserOptions.joined())
        for name in spellings {
            XCTAssertTrue(known.contains(name), "--\(name) is encoded but the parser does not know it")
        }
        XCTAssertGreaterThanOrEqual(parserOptions.count, 17, "the dump lists every option, hidden ones too")
    }
}

extension RunOptions {
    /// These options with their command line, for a table of children.
    fileprivate func withArguments(_ name: String, sets: Set<String>)
        -> (name: String, options: RunOptions, arguments: [String], sets: Set<String>)
    {
        (name, self, arguments(), sets)
    }
}

/// The options a swift-argument-parser command knows, read from its
/// `--experimental-dump-help` JSON (`_dumpHelp()`), hidden ones included.
enum OptionNames {
    /// Each option's or flag's long names (a flag with an inversion has
    /// two: `isolate`, `no-isolate`), in the parser's order.
    static func ofParser(dump: String) throws -> [[String]] {
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
