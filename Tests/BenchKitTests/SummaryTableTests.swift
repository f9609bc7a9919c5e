@testable import BenchAnalysis
@testable import BenchKit
import XCTest

final class SummaryTableTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testSummaryShowsTheMedianOfTheRepetitions() {
        let rows = [1.0, 9.0, 5.0].enumerated().map { index, value in
            CSVRow(
                benchmark: "observeOn.throughput", variant: "peer.nio", params: "elements=10", metric: "ns_per_element",
                unit: "ns", repetition: index + 1, value: value)
        }
        let text = SummaryTable.render(rows)
        XCTAssertTrue(text.contains("median of 3 repetitions"), text)
        XCTAssertTrue(text.contains(" 5\n") || text.contains(" 5 "), text)
    }

    func testLatencyRatioIsFastPathOverPeer() {
        let rows = [
            CSVRow(benchmark: "observeOn.latency", variant: "fast-path", params: "", metric: "latency_p50_ns", unit: "ns", repetition: 1, value: 1000),
            CSVRow(benchmark: "observeOn.latency", variant: "peer.nio", params: "", metric: "latency_p50_ns", unit: "ns", repetition: 1, value: 4000),
        ]
        XCTAssertTrue(SummaryTable.render(rows).contains("0.25x"))
    }

    func testPerTickSamplesStayOutOfTheTable() {
        let rows = [
            CSVRow(benchmark: "periodic.drift", variant: "peer.nio", params: "period_ms=1;ticks=4;tick=2", metric: "lateness_at_tick_us", unit: "us", repetition: 1, value: 3)
        ]
        XCTAssertFalse(SummaryTable.render(rows).contains("tick=2"))
    }

    func testAllocationCountsKeepTheirFraction() {
        let rows = [
            CSVRow(
                benchmark: "observeOn.throughput", variant: "fast-path", params: "", metric: "allocs_per_element",
                unit: "allocations", repetition: 1, value: 0.004, allocator: "jemalloc"),
            CSVRow(
                benchmark: "observeOn.throughput", variant: "fast-path", params: "", metric: "elements_per_s",
                unit: "elements/s", repetition: 1, value: 3_000_000, allocator: "system"),
        ]
        let text = SummaryTable.render(rows)
        XCTAssertTrue(text.contains("0.004"), text)
        // Times and counts of one variant share a line, whatever allocator each came from.
        XCTAssertTrue(text.split(separator: "\n").contains { $0.contains("3.00M") && $0.contains("0.004") }, text)
    }

    func testRatiosAreTakenWithinOneParameterSet() {
        func row(_ variant: String, _ params: String, _ value: Double) -> CSVRow {
            CSVRow(
                benchmark: "observeOn.latency", variant: variant, params: params, metric: "latency_p50_ns", unit: "ns",
                repetition: 1, value: value)
        }
        let text = SummaryTable.render([
            row("fast-path", "rate_per_s=20000", 8000), row("generic", "rate_per_s=20000", 10000),
            row("fast-path", "regime=busy", 500), row("generic", "regime=busy", 2000),
        ])
        XCTAssertTrue(text.contains("ratios [rate_per_s=20000]"), text)
        XCTAssertTrue(text.contains("ratios [regime=busy]"), text)
        XCTAssertTrue(text.contains("0.80x"), text)
        XCTAssertTrue(text.contains("0.25x"), text)
        // Never across regimes: 8000 / 2000 or 500 / 10000.
        XCTAssertFalse(text.contains("4.00x"), text)
        XCTAssertFalse(text.contains("0.05x"), text)
    }
}
