@testable import BenchAnalysis
import BenchKit
import Foundation
import XCTest

/// `BenchRunner results`: the index reads each file's kind from its rows and
/// its citations from the repository, `--check` names what went stale, and
/// prune removes only what nothing cites (and never a baseline or the
/// calibration table), and only when asked to.
final class ResultsIndexTests: XCTestCase {
    private var root: URL!

    private static let header =
        "run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,repetition,value"

    private static let suites = [
        SuiteSignature(name: "default", plans: [("a", "v", "n=5"), ("b", "v", "n=5")]),
        SuiteSignature(name: "quick", plans: [("a", "v", "n=1"), ("b", "v", "n=1")]),
    ]

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("results-index-\(UUID().uuidString)")
        for folder in ["results", "docs", "Tests"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func write(_ path: String, _ text: String) throws {
        try text.write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8)
    }

    /// A run of `revision` with one row per (allocator, benchmark, params), 3 repetitions each.
    private func run(_ revision: String, _ series: [(allocator: String, benchmark: String, params: String)]) -> String {
        var lines = [Self.header]
        for item in series {
            for repetition in 1...3 {
                lines.append(
                    "r,2026-01-01T00:00:00Z,\(revision),vm,cpu,2,6.3,\(item.allocator),\(item.benchmark),v,"
                        + "\(item.params),m,ns,\(repetition),\(repetition)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func makeFolder() throws {
        try write("results/20260101T000000Z-aaaaaaaaaaaa.csv", run("aaaaaaaaaaaa", [("system", "a", "n=5"), ("system", "b", "n=5")]))
        try write("results/20260101T000100Z-bbbbbbbbbbbb.csv", run("bbbbbbbbbbbb", [("system", "a", "n=1")]))
        try write("results/20260101T000200Z-cccccccccccc.csv", run("cccccccccccc", [("callgrind", "a", "n=1")]))
        try write("results/20260101T000300Z-dddddddddddd.csv", run("dddddddddddd", [("system", "scale.x", "n=10")]))
        try write(
            "results/baseline-other.csv",
            run("eeeeeeeeeeee", [("system", "a", "n=1"), ("system", "b", "n=1"), ("callgrind", "a", "n=1")]))
        try write(
            "results/calibration-table.csv",
            "benchmark,variant,params,allocator,metric,runs,log_deviation,resolution,spread,revision,repetitions\n"
                + "a,v,n=1,system,m,7,0.1,0.2,0.1,ffffffffffff,7\n")
        try write("results/20260101T000000Z-aaaaaaaaaaaa-throughput.png", "")
        try write("results/20260101T000300Z-dddddddddddd-x.png", "")
        try write("results/probe.txt", "a probe's output\n")
        try write("docs/A.md", "The run `results/20260101T000000Z-aaaaaaaaaaaa.csv` shows it; so does the calibration-table.\n")
        try write("Tests/RunTests.swift", "let run = \"20260101T000100Z-bbbbbbbbbbbb\"\n")
    }

    private func index() throws -> ResultsIndex {
        try ResultsIndex(root: root, results: "results", suites: Self.suites)
    }

    func testKindsRevisionsAndCitationsComeFromTheFilesAndTheRepository() throws {
        try makeFolder()
        let entries = Dictionary(uniqueKeysWithValues: try index().entries.map { ($0.name, $0) })
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.kind, "default")
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.citedBy, ["docs/A.md"])
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.revision, "aaaaaaaaaaaa")
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.date, "2026-01-01T00:00:00Z")
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.repetitions, "3")
        XCTAssertEqual(entries["20260101T000100Z-bbbbbbbbbbbb.csv"]?.kind, "quick, filtered (1 of 2 benchmarks)")
        XCTAssertEqual(entries["20260101T000100Z-bbbbbbbbbbbb.csv"]?.citedBy, ["Tests/RunTests.swift"])
        XCTAssertEqual(entries["20260101T000200Z-cccccccccccc.csv"]?.kind, "instructions-only")
        XCTAssertEqual(entries["20260101T000300Z-dddddddddddd.csv"]?.kind, "scale sweep")
        XCTAssertEqual(entries["baseline-other.csv"]?.kind, "baseline, quick + instructions")
        XCTAssertEqual(entries["calibration-table.csv"]?.kind, "calibration")
        XCTAssertEqual(entries["calibration-table.csv"]?.revision, "ffffffffffff")
        // A file not named by a run's start time is cited only by its whole name.
        XCTAssertEqual(entries["calibration-table.csv"]?.citedBy, [])
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa-throughput.png"]?.madeFrom, "20260101T000000Z-aaaaaaaaaaaa.csv")
        XCTAssertEqual(entries["probe.txt"]?.kind, "text output")
        XCTAssertNil(entries["README.md"])
    }

    func testPruneListsOnlyWhatNothingCitesAndRemovesItOnlyWhenAsked() throws {
        try makeFolder()
        let uncited = [
            "20260101T000200Z-cccccccccccc.csv", "20260101T000300Z-dddddddddddd-x.png",
            "20260101T000300Z-dddddddddddd.csv", "probe.txt",
        ]
        XCTAssertEqual(try index().uncited.map(\.name), uncited)

        let dryRun = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .prune(delete: false))
        XCTAssertEqual(dryRun.status, 0)
        XCTAssertTrue(dryRun.output.contains("4 of 9 files"), dryRun.output)
        XCTAssertTrue(dryRun.output.contains("Nothing was removed"), dryRun.output)
        for name in uncited {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("results/\(name)").path), name)
        }

        let pruned = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .prune(delete: true))
        XCTAssertEqual(pruned.status, 0, pruned.diagnostics)
        let left = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("results").path).sorted()
        XCTAssertEqual(
            left,
            [
                "20260101T000000Z-aaaaaaaaaaaa-throughput.png", "20260101T000000Z-aaaaaaaaaaaa.csv",
                "20260101T000100Z-bbbbbbbbbbbb.csv", "README.md", "baseline-other.csv", "calibration-table.csv",
            ])
        let check = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check)
        XCTAssertEqual(check.status, 0, check.output)
    }

    func testCheckNamesEachFileWhoseRowIsStale() throws {
        try makeFolder()
        XCTAssertEqual(
            ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check).status, 1,
            "no index yet")
        XCTAssertEqual(ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .write).status, 0)
        XCTAssertEqual(ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check).status, 0)

        try write("results/20260102T000000Z-gggggggggggg.csv", run("gggggggggggg", [("system", "a", "n=5")]))
        try write("docs/B.md", "See results/20260101T000200Z-cccccccccccc.csv.\n")
        let stale = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check)
        XCTAssertEqual(stale.status, 1)
        XCTAssertTrue(stale.output.contains("20260102T000000Z-gggggggggggg.csv is not listed"), stale.output)
        XCTAssertTrue(stale.output.contains("the row of 20260101T000200Z-cccccccccccc.csv differs"), stale.output)
        let index = try String(contentsOf: root.appendingPathComponent("results/README.md"), encoding: .utf8)
        XCTAssertTrue(index.contains("one file no run wrote"))
    }

    func testAFolderThatCannotBeListedIsExitStatusTwo() {
        let outcome = ResultsIndexTool.run(root: root.path, results: "missing", suites: Self.suites, action: .write)
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.diagnostics.contains("missing: cannot list the folder"), outcome.diagnostics)
    }
}
