@testable import BenchAnalysis
@testable import BenchKit
import ToolSupport
import XCTest

/// The three output formats of `BenchRunner compare` and the summary.
final class CompareReportFormatTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private var fixture: CompareFixture!

    override func setUpWithError() throws {
        fixture = try CompareFixture()
    }

    override func tearDown() {
        fixture = nil
    }

    /// A drop in throughput, an allocation increase, a removed and an added series.
    private func mixedOutcome(format: CompareOptions.Format, gate: CompareOptions.Gate = .all) throws -> CompareOutcome {
        var generator = SeededGenerator(seed: 21)
        let base = [
            FixtureSeries(values: CompareFixture.noisy(around: 1e7, spread: 0.2, count: 8, using: &generator)),
            FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [2, 2, 2]),
            FixtureSeries(variant: "a|b", values: [1, 2, 3]),
        ]
        let new = [
            FixtureSeries(values: CompareFixture.noisy(around: 5e6, spread: 0.2, count: 8, using: &generator)),
            FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [3, 3, 3]),
            FixtureSeries(benchmark: "trampoline", variant: "depth", params: "", metric: "depth", values: [1e6]),
        ]
        return try fixture.compare(base: base, new: new, options: CompareOptions(gate: gate, format: format))
    }

    func testTableColumnsAreAligned() throws {
        let outcome = try mixedOutcome(format: .table)
        let lines = outcome.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let tableLines = Array(lines.prefix { !$0.isEmpty })
        XCTAssertEqual(tableLines.count, 2 + 4, outcome.output)
        let header = try XCTUnwrap(tableLines.first)
        let metricColumn = try XCTUnwrap(header.range(of: "metric")).lowerBound.utf16Offset(in: header)
        let verdictColumn = try XCTUnwrap(header.range(of: "verdict")).lowerBound.utf16Offset(in: header)
        for line in tableLines.dropFirst(2) {
            let characters = Array(line)
            XCTAssertEqual(characters[metricColumn - 1], " ", line)
            XCTAssertNotEqual(characters[metricColumn], " ", line)
            XCTAssertEqual(characters[verdictColumn - 1], " ", line)
            XCTAssertNotEqual(characters[verdictColumn], " ", line)
        }
        XCTAssertTrue(tableLines[2].hasSuffix("worse"), tableLines[2])
        XCTAssertTrue(tableLines[3].contains("exact"), tableLines[3])
        XCTAssertTrue(tableLines[4].hasSuffix("removed"), tableLines[4])
        XCTAssertTrue(tableLines[5].hasSuffix("added"), tableLines[5])
        XCTAssertTrue(header.contains("90% CI"), "each bound a one-sided 95 % bound")
        XCTAssertEqual(outcome.status, .regression)
    }

    func testMarkdownTableEscapesPipesAndRightAlignsNumbers() throws {
        let outcome = try mixedOutcome(format: .markdown)
        let lines = outcome.output.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("| benchmark | variant |"), lines[0])
        XCTAssertTrue(lines[1].contains("---:"), lines[1])
        XCTAssertTrue(outcome.output.contains("a\\|b"), "a pipe in a cell must not split it")
        let rows = lines.filter { $0.hasPrefix("|") }
        let columnCount = lines[0].filter { $0 == "|" }.count
        for row in rows {
            XCTAssertEqual(row.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count, columnCount, row)
        }
        XCTAssertTrue(outcome.output.contains("- 2 regressions: exit status 1."), outcome.output)
        XCTAssertTrue(outcome.output.contains("(allocs_\\*, bytes_\\*, depth, type_lookups_\\*)"), "no accidental emphasis")
        XCTAssertFalse(outcome.output.contains(" ~ "), "a lone ~ could pair into strikethrough")
    }

    func testCSVFormatIsOneParseableRowPerSeriesWithTheSummaryOnStandardError() throws {
        let outcome = try mixedOutcome(format: .csv, gate: .exact)
        let records = try CSVReader.records(in: outcome.output)
        XCTAssertEqual(records.count, 1 + 4)
        let header = records[0].fields
        let verdict = try XCTUnwrap(header.firstIndex(of: "verdict"))
        let regression = try XCTUnwrap(header.firstIndex(of: "regression"))
        let change = try XCTUnwrap(header.firstIndex(of: "change"))
        XCTAssertEqual(records.dropFirst().map { $0.fields[verdict] }, ["worse", "worse", "removed", "added"])
        XCTAssertEqual(records.dropFirst().map { $0.fields[regression] }, ["false", "true", "false", "false"])
        XCTAssertEqual(try XCTUnwrap(Double(records[2].fields[change])), 0.5, accuracy: 1e-12)
        XCTAssertTrue(outcome.diagnostics.contains("Gate: exact metrics only"), outcome.diagnostics)
        XCTAssertTrue(outcome.diagnostics.contains("1 regression: exit status 1."), outcome.diagnostics)
        XCTAssertFalse(outcome.output.contains("Gate:"), "scripts read standard output as pure CSV")
    }

    func testSummaryStatesTheTestTheThresholdAndTheExitStatus() throws {
        let path = try fixture.writeResults([FixtureSeries(values: [1, 2, 3, 4, 5])], to: "same.csv")
        let outcome = CompareTool.run(
            basePath: path, newPath: path, options: CompareOptions(threshold: 0.1, alpha: 0.01))
        XCTAssertTrue(outcome.output.contains("one-sided Mann-Whitney U"))
        XCTAssertTrue(outcome.output.contains("alpha 0.01"))
        XCTAssertTrue(outcome.output.contains("Benjamini-Hochberg across the 1 tested series"))
        XCTAssertTrue(outcome.output.contains("98% CI"), "each bound a one-sided 99 % bound")
        XCTAssertTrue(outcome.output.contains("threshold of 10%"))
        XCTAssertTrue(outcome.output.contains("No regression: exit status 0."))
    }

    func testPassingSummarySaysHowManyOfTheSameAreCountsAndHowManyTimingSeriesWereShownEqual() throws {
        // An unchanged count is always `same`; the summary must not let it
        // stand for the times. One tight series is shown equal, one whose
        // repetitions spread from 1 to 9 is not; the count is the third.
        let tight = FixtureSeries(variant: "tight", metric: "ns_per_element", unit: "ns", values: [10, 10.01, 10.02, 9.99, 10, 10.01, 9.98])
        let wide = FixtureSeries(variant: "wide", metric: "ns_per_element", unit: "ns", values: [1, 9, 2, 8, 5, 3, 7])
        let count = FixtureSeries(variant: "tight", metric: "allocs_per_element", unit: "allocs", values: [2])
        let path = try fixture.writeResults([tight, wide, count], to: "kinds.csv")
        let outcome = CompareTool.run(
            basePath: path, newPath: path, options: CompareOptions(threshold: 0.05))
        XCTAssertTrue(outcome.output.contains("No regression: exit status 0."), outcome.output)
        XCTAssertTrue(
            outcome.output.contains("same 2 (shown equal within the threshold: 1 exact counts, 1 of the 2 judged timing series (50 %)), ~ 1"),
            outcome.output)
    }

    func testMeasurementsShowFourSignificantDigitsAndExactCountsShowAllDigits() {
        // The digits themselves: NumberFormatTests.
        XCTAssertEqual(CompareReportFormatter.value(12_345_678, exact: false), "12.35M")
        XCTAssertEqual(CompareReportFormatter.value(179.64, exact: false), "179.6")
        XCTAssertEqual(CompareReportFormatter.value(2.0001, exact: true), "2.0001")
        XCTAssertEqual(CompareReportFormatter.value(2, exact: true), "2")
    }
}

extension CompareReportFormatTests {
    func testSummaryWarnsWhenAllocationSeriesOfTheBaseWentUnchecked() throws {
        let base = [
            FixtureSeries(metric: "allocs_per_element", unit: "allocs", allocator: "jemalloc", values: [2, 2]),
            FixtureSeries(metric: "bytes_per_element", unit: "bytes", allocator: "jemalloc", values: [32, 32]),
        ]
        let new = [
            FixtureSeries(metric: "allocs_per_element", unit: "allocs", allocator: "system", values: [nil, nil]),
            FixtureSeries(metric: "bytes_per_element", unit: "bytes", allocator: "jemalloc", values: [nil, nil]),
        ]
        let outcome = try fixture.compare(base: base, new: new, options: CompareOptions(gate: .exact))
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertTrue(
            outcome.output.contains("Warning: 2 exact-count series of the base have no values in the new file"),
            outcome.output)
    }
}
