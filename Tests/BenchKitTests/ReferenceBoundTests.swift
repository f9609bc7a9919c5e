@testable import BenchAnalysis
import BenchKit
import XCTest

/// A reference is shown as the limit only where its repetitions are
/// tighter than the library's series it bounds; compare and the run's
/// summary report each reference's spread.
final class ReferenceBoundTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private func series(_ variant: String, _ values: [Double], metric: String = "elements_per_s") -> ResultSeries {
        ResultSeries(
            key: ResultSeriesKey(
                benchmark: "observeOn.throughput", variant: variant, params: "elements=100000", metric: metric,
                allocator: "system"),
            unit: "elements/s", values: values, firstLine: 2)
    }

    /// The default run: the ring spread from 17 M to 40 M while the
    /// fast path stayed within a few per cent.
    private let wildRing: [Double] = [17e6, 22e6, 28e6, 35e6, 40e6]
    private let steadyRing: [Double] = [99e6, 100e6, 100e6, 101e6, 102e6]
    private let fastPath: [Double] = [50e6, 52e6, 53e6, 55e6, 57e6]
    private let generic: [Double] = [48e6, 50e6, 52e6, 53e6, 56e6]

    func testAReferenceSpreadingMoreThanWhatItBoundsIsNotAStableBound() throws {
        let bounds = ReferenceBound.assess([
            series("fast-path", fastPath), series("generic", generic), series("reference.spsc-ring", wildRing),
            series("peer.nio", wildRing),
        ])
        let ring = try XCTUnwrap(bounds.first)
        XCTAssertEqual(bounds.count, 1, "peers are not references")
        XCTAssertEqual(ring.key.variant, "reference.spsc-ring")
        XCTAssertEqual(try XCTUnwrap(ring.spread), (35 - 22) / 28, accuracy: 1e-9)
        XCTAssertEqual(ring.boundedCount, 2)
        XCTAssertFalse(ring.isStableBound)
        XCTAssertTrue(ring.description.contains("not a stable bound on this machine"), ring.description)
        XCTAssertTrue(ring.description.contains("spread 46.4%"), ring.description)
    }

    func testAReferenceTighterThanWhatItBoundsIsTheLimit() throws {
        let bounds = ReferenceBound.assess([
            series("fast-path", fastPath), series("generic", generic), series("reference.spsc-ring", steadyRing),
        ])
        let ring = try XCTUnwrap(bounds.first)
        XCTAssertTrue(ring.isStableBound)
        XCTAssertTrue(ring.description.contains("a stable bound, read as the limit"), ring.description)
    }

    /// A tight reference slower than the library's paths bounds nothing:
    /// a default run measured the ring at 19 M elements/s (spread 14.8 %)
    /// beside a fast path at 50 M (spread 52.8 %).
    func testAReferenceTheLibraryBeatsIsNotReadAsTheLimit() throws {
        let slowSteadyRing: [Double] = [18.5e6, 18.9e6, 19.0e6, 19.2e6, 19.6e6]
        let bounds = ReferenceBound.assess([
            series("fast-path", fastPath), series("generic", generic), series("reference.spsc-ring", slowSteadyRing),
        ])
        let ring = try XCTUnwrap(bounds.first)
        XCTAssertEqual(ring.beatenBy, 2)
        XCTAssertFalse(ring.isStableBound)
        XCTAssertTrue(ring.description.contains("not a bound on this machine (2 of the library's 2 series do better than it)"), ring.description)
        // The same ring as a time per element: lower is better, and the library's lower times beat it too.
        let times = ReferenceBound.assess([
            series("fast-path", fastPath.map { 1e9 / $0 }, metric: "ns_per_element"),
            series("reference.spsc-ring", slowSteadyRing.map { 1e9 / $0 }, metric: "ns_per_element"),
        ])
        XCTAssertEqual(try XCTUnwrap(times.first).beatenBy, 1)
    }

    func testAReferenceWithAnUnknownSpreadIsNotReadAsTheLimit() throws {
        let bounds = ReferenceBound.assess([series("fast-path", fastPath), series("reference.spsc-ring", [1e8])])
        let ring = try XCTUnwrap(bounds.first)
        XCTAssertNil(ring.spread)
        XCTAssertFalse(ring.isStableBound)
        XCTAssertTrue(ring.description.contains("spread unknown"), ring.description)
    }

    func testCompareAndTheRunSummaryReportEachReferencesSpread() throws {
        let fixture = try CompareFixture()
        func fixtureSeries(_ variant: String, _ values: [Double]) -> FixtureSeries {
            FixtureSeries(
                benchmark: "observeOn.throughput", variant: variant, metric: "elements_per_s", unit: "elements/s",
                values: values)
        }
        let base = [fixtureSeries("fast-path", fastPath), fixtureSeries("reference.spsc-ring", wildRing)]
        let new = [fixtureSeries("fast-path", fastPath), fixtureSeries("reference.spsc-ring", steadyRing)]
        let outcome = try fixture.compare(base: base, new: new)
        XCTAssertTrue(outcome.output.contains("References (spread"), outcome.output)
        XCTAssertTrue(
            outcome.output.contains("base observeOn.throughput/reference.spsc-ring elements=100000 elements_per_s [system]: spread 46.4%"),
            outcome.output)
        XCTAssertTrue(outcome.output.contains("not a stable bound on this machine"), outcome.output)
        XCTAssertTrue(outcome.output.contains("new observeOn.throughput/reference.spsc-ring"), outcome.output)
        XCTAssertTrue(outcome.output.contains("a stable bound, read as the limit"), outcome.output)

        var rows: [CSVRow] = []
        for (variant, values) in [("fast-path", fastPath), ("reference.spsc-ring", wildRing)] {
            for (index, value) in values.enumerated() {
                rows.append(CSVRow(
                    benchmark: "observeOn.throughput", variant: variant, params: "elements=100000",
                    metric: "elements_per_s", unit: "elements/s", repetition: index + 1, value: value, allocator: "system"))
            }
        }
        let table = SummaryTable.render(rows)
        XCTAssertTrue(table.contains("references (spread"), table)
        XCTAssertTrue(table.contains("reference.spsc-ring elements=100000 elements_per_s [system]: spread 46.4%"), table)
        XCTAssertTrue(table.contains("not a stable bound on this machine"), table)
    }
}
