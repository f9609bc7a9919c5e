@testable import BenchAnalysis
import Foundation
import XCTest

/// What `history` finds in the committed runs (results/, the runs its
/// index lists, in the commit order it records), with the standard
/// catalogue: the trampoline's step at the safe rewrite and its later gain,
/// the busy-queue fix and the element path's gain at their revisions; and
/// nothing among the ten runs of one binary (787b90b) when each is taken for
/// a revision of its own. The same checks run on a pruned copy of the
/// folder (ResultsIndexTests).
final class CommittedHistoryTests: XCTestCase {
    /// The repository: three folders up from this file.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The committed runs of the repository at `root` in commit order, read
    /// with the standard catalogue installed: exactly the runs its
    /// `results/README.md` lists (``CommittedRuns``), so a user's own runs
    /// in the folder are not read and no git is needed.
    static func committedRuns(root: URL = root) throws -> HistoryRuns {
        StandardCatalog.install()
        let results = root.appendingPathComponent("results").path
        let committed = try XCTUnwrap(CommittedRuns.read(folder: results), "results/README.md lists no committed runs")
        return try committed.history(folder: results) { path throws(CompareInputError) in try ResultFile.load(path: path) }
    }

    /// The committed runs, read once for every test here (reading 160 CSVs
    /// takes seconds in a debug build, and minutes under a sanitizer).
    private static let runs: Result<HistoryRuns, any Error> = Result { try committedRuns() }

    private static let report: Result<HistoryReport, any Error> = Result {
        HistoryReport(runs: try runs.get(), options: HistoryOptions())
    }

    private func changes(of description: String) throws -> [ChangePoint] {
        try Self.changes(of: description, in: Self.report.get())
    }

    private static func changes(of description: String, in report: HistoryReport) throws -> [ChangePoint] {
        let entry = try XCTUnwrap(
            report.entries.first { $0.series.key.description == description }, "no series \(description)")
        return entry.changePoints
    }

    private static func change(
        of description: String, from before: String, to after: String, in report: HistoryReport
    ) throws -> ChangePoint {
        let all = try changes(of: description, in: report)
        return try XCTUnwrap(
            all.first { $0.revisionBefore.hasPrefix(before) && $0.revisionAfter.hasPrefix(after) },
            "\(description): no change \(before)..\(after) among "
                + all.map { "\($0.revisionBefore.prefix(7))..\($0.revisionAfter.prefix(7))" }.joined(separator: ", "))
    }

    private func change(
        of description: String, from before: String, to after: String
    ) throws -> ChangePoint {
        try Self.change(of: description, from: before, to: after, in: Self.report.get())
    }

    /// The change points the tests below hold the committed runs to, found
    /// in `report` (of the committed runs of some copy of the repository).
    static func checkTheKnownChangePoints(in report: HistoryReport, file: StaticString = #filePath, line: UInt = #line) throws {
        let trampoline = "trampoline.recursion/current-thread depth=10000000;stack_mib=8 ns_per_schedule [system]"
        let rewrite = try change(of: trampoline, from: "7b22bd7", to: "e582bdc", in: report)
        XCTAssertEqual(rewrite.evidence, .confirmed, file: file, line: line)
        XCTAssertEqual(
            try change(of: trampoline, from: "a4ef090", to: "e6939a1", in: report).evidence, .confirmed, file: file, line: line)
        for variant in ["fast-path", "generic", "concurrent", "operation-queue"] {
            let fix = try change(
                of: "observeOn.busyQueue/\(variant) elements=500000 ns_per_element [system]", from: "1b7eb68", to: "244f15a",
                in: report)
            XCTAssertEqual(fix.evidence, .confirmed, variant, file: file, line: line)
        }
        let element = try change(
            of: "elementPath/current-thread elements=200000 ns_per_element [system]", from: "fa39615", to: "881a419",
            in: report)
        XCTAssertEqual(element.evidence, .confirmed, file: file, line: line)
    }

    /// The runs read are every committed run and only those: each file the
    /// list names is in the folder and in the index's table, and every run
    /// the table lists is in the list (so `results prune` keeps them all).
    func testTheCommittedRunsAreTheRunsTheIndexLists() throws {
        let results = Self.root.appendingPathComponent("results")
        let committed = try XCTUnwrap(CommittedRuns.read(folder: results.path))
        let index = try String(contentsOf: results.appendingPathComponent("README.md"), encoding: .utf8)
        let tableRuns = ResultsIndexTool.rows(index).keys.filter { HistoryRuns.isRunFileName($0) }.sorted()
        XCTAssertEqual(committed.names.sorted(), tableRuns)
        XCTAssertEqual(Set(committed.names).count, committed.names.count, "a run listed twice")
        for name in committed.names {
            XCTAssertTrue(FileManager.default.fileExists(atPath: results.appendingPathComponent(name).path), name)
        }
        XCTAssertGreaterThan(committed.names.count, 100)
        try Self.checkTheKnownChangePoints(in: Self.report.get())
    }

    func testTheTrampolinesNestedScheduleSlowedAtTheSafeRewriteAndGainedLater() throws {
        let series = "trampoline.recursion/current-thread depth=10000000;stack_mib=8 ns_per_schedule [system]"
        // The safe rewrite (e582bdc): about 22 ns a nested schedule before, about 80 after.
        let rewrite = try change(of: series, from: "7b22bd7", to: "e582bdc")
        XCTAssertEqual(rewrite.evidence, .confirmed)
        XCTAssertTrue(rewrite.isHarmful)
        XCTAssertEqual(rewrite.before, 22, accuracy: 3)
        XCTAssertGreaterThan(rewrite.after / rewrite.before, 3)
        // Its p-value is the test of the segment binary segmentation split
        // there, whose bounds move as runs are committed after it (eleven
        // default runs of 4f7462a took it from below 0.001 to 0.0012): the
        // split stays confirmed across every series' splits, at 1 %.
        XCTAssertLessThan(rewrite.pValue ?? 1, 0.01)
        XCTAssertLessThanOrEqual(rewrite.qValue ?? 1, 0.05)
        // The run of e6939a1 took a quarter or more off the rewrite's level,
        // and no later run went back to it or down to the level before the
        // rewrite. The level after the change is the median of every
        // committed run up to the next change, so its value moves as runs
        // are committed; how far it fell from the rewrite's does not.
        let gain = try change(of: series, from: "a4ef090", to: "e6939a1")
        XCTAssertEqual(gain.evidence, .confirmed)
        XCTAssertFalse(gain.isHarmful)
        XCTAssertLessThan(gain.after / rewrite.after, 0.75)
        XCTAssertGreaterThan(gain.after / rewrite.before, 1.5)
    }

    func testTheBusyQueueFixAndTheElementPathGainAreFoundAtTheirRevisions() throws {
        for variant in ["fast-path", "generic", "concurrent", "operation-queue"] {
            let fix = try change(
                of: "observeOn.busyQueue/\(variant) elements=500000 ns_per_element [system]", from: "1b7eb68", to: "244f15a")
            XCTAssertEqual(fix.evidence, .confirmed, variant)
            XCTAssertFalse(fix.isHarmful, variant)
            XCTAssertLessThan(fix.after / fix.before, 0.5, variant)
        }
        let element = try change(
            of: "elementPath/current-thread elements=200000 ns_per_element [system]", from: "fa39615", to: "881a419")
        XCTAssertEqual(element.evidence, .confirmed)
        XCTAssertLessThan(element.after / element.before, 0.25)
    }

    func testNoChangePointLiesBetweenRunsOfOneRevision() throws {
        let report = try Self.report.get()
        XCTAssertGreaterThan(report.entries.count, 500)
        for entry in report.entries {
            for change in entry.changePoints {
                XCTAssertNotEqual(change.revisionBefore, change.revisionAfter, entry.series.key.description)
            }
            let tenRuns = entry.series.points.filter { $0.revision == "787b90b3c765" }
            XCTAssertLessThanOrEqual(tenRuns.count, 1, "787b90b's runs are one point")
        }
    }

    /// The ten runs of 787b90b, each taken for a revision of its own: an
    /// A/A history of ten points. No series changes; the newest run may
    /// leave a process-bound series unjudged (its one run in the busy
    /// queue's other mode: unconfirmed, exit status 3, as compare's
    /// `moved worse? (process-bound)`), never a regression.
    func testTenRunsOfOneBinaryHaveNoChangePoint() throws {
        let runs = try Self.runs.get().runs.filter { $0.revision == "787b90b3c765" }
        XCTAssertEqual(runs.count, 10)
        let apart = runs.map { run in
            HistoryRuns.Run(
                file: run.file, revision: URL(fileURLWithPath: run.file.path).lastPathComponent,
                timestamp: run.timestamp, commitPosition: run.commitPosition)
        }
        let report = HistoryReport(runs: HistoryRuns(runs: apart), options: HistoryOptions())
        XCTAssertGreaterThan(report.entries.count, 200)
        var found: [String] = []
        for entry in report.entries {
            for change in entry.changePoints {
                let waits = change.evidence == .unconfirmed && report.isAtNewestRun(change, of: entry)
                    && entry.series.key.benchmark == "observeOn.busyQueue"
                if !waits {
                    found.append("\(entry.series.key) \(change.revisionBefore)..\(change.revisionAfter) \(change.evidence)")
                }
            }
        }
        XCTAssertEqual(found, [], "change points among ten runs of one binary")
        XCTAssertNotEqual(report.exitStatus, .regression)
    }
}
