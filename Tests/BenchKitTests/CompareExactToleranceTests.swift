@testable import BenchAnalysis
import BenchKit
import XCTest

/// `--exact-tolerance`: amortised allocation noise is not a regression, one
/// more allocation per element still is.
final class CompareExactToleranceTests: XCTestCase {
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

    private func tolerances(_ text: String) throws -> [ExactTolerance] {
        try ExactTolerance.parseList(text).get()
    }

    func testParsesBareAmountsNamedMetricsAndPrefixes() throws {
        XCTAssertEqual(
            try tolerances("0.25, allocs_*=0.5,bytes_per_element=64"),
            [
                ExactTolerance(scope: .everyExactMetric, amount: 0.25),
                ExactTolerance(scope: .prefix("allocs_"), amount: 0.5),
                ExactTolerance(scope: .metric("bytes_per_element"), amount: 64),
            ])
    }

    func testRejectsMissingNegativeOrNonNumericAmounts() {
        for text in ["allocs_*=", "allocs_*=-1", "allocs_*=lots", "", "0.5,,1"] {
            guard case .failure(let error) = ExactTolerance.parseList(text) else {
                XCTFail("accepted '\(text)'")
                continue
            }
            XCTAssertTrue(error.message.hasPrefix("--exact-tolerance entry"), error.message)
        }
    }

    func testNamedMetricWinsOverPrefixAndLongerPrefixOverShorter() throws {
        let list = try tolerances("1,allocs_*=2,allocs_per_*=3,allocs_per_element=4")
        XCTAssertEqual(ExactTolerance.amount(for: "allocs_per_element", in: list), 4)
        XCTAssertEqual(ExactTolerance.amount(for: "allocs_per_schedule", in: list), 3)
        XCTAssertEqual(ExactTolerance.amount(for: "allocs_total", in: list), 2)
        XCTAssertEqual(ExactTolerance.amount(for: "bytes_per_element", in: list), 1)
        XCTAssertEqual(ExactTolerance.amount(for: "bytes_per_element", in: []), 0)
    }

    func testAmortisedAllocationNoiseWithinToleranceIsUnchanged() throws {
        // As measured on this machine: 3 allocations per element plus one-off ones.
        let base = FixtureSeries(metric: "allocs_per_element", unit: "allocations", values: [3.0004, 3.0006, 3.0007])
        let new = FixtureSeries(metric: "allocs_per_element", unit: "allocations", values: [3.0008, 3.0019, 3.0027])
        let strict = try fixture.compare(base: [base], new: [new])
        XCTAssertEqual(strict.report?.comparisons.first?.verdict, .worse, "without a tolerance any increase fails")
        let tolerant = try fixture.compare(
            base: [base], new: [new], options: CompareOptions(exactTolerances: try tolerances("allocs_*=0.5")))
        XCTAssertEqual(tolerant.report?.comparisons.first?.verdict, .same)
        XCTAssertEqual(tolerant.status, .noRegression)
        XCTAssertTrue(tolerant.output.contains("beyond the exact tolerance (allocs_*=0.5)"), tolerant.output)
    }

    func testOneMoreAllocationPerElementFailsDespiteTheTolerance() throws {
        let base = FixtureSeries(metric: "allocs_per_element", unit: "allocations", values: [2.0003, 2.0011, 2.0006])
        let new = FixtureSeries(metric: "allocs_per_element", unit: "allocations", values: [3.0001, 3.0004, 3.0002])
        let outcome = try fixture.compare(
            base: [base], new: [new],
            options: CompareOptions(gate: .exact, exactTolerances: try tolerances("allocs_*=0.5")))
        XCTAssertEqual(outcome.report?.comparisons.first?.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
    }

    func testToleranceOfOneMetricDoesNotLoosenAnother() throws {
        let base = FixtureSeries(metric: "bytes_per_element", unit: "bytes", values: [48, 48, 48])
        let new = FixtureSeries(metric: "bytes_per_element", unit: "bytes", values: [49, 49, 49])
        let outcome = try fixture.compare(
            base: [base], new: [new], options: CompareOptions(exactTolerances: try tolerances("allocs_*=5")))
        XCTAssertEqual(outcome.report?.comparisons.first?.verdict, .worse)
    }

    // MARK: - Benchmarks counted in whole allocations (observeOn.subscription)

    /// Compares `observeOn.subscription` counts of `variant` (allocations
    /// and bytes per lifecycle, three repetitions each) with the exact gate.
    private func compareLifecycles(
        _ variant: String,
        base: (allocations: [Double], bytes: [Double]),
        new: (allocations: [Double], bytes: [Double])
    ) throws -> CompareOutcome {
        func counts(_ values: (allocations: [Double], bytes: [Double])) -> [FixtureSeries] {
            [
                FixtureSeries(
                    benchmark: "observeOn.subscription", variant: variant, params: "lifecycles=5000",
                    metric: "allocs_per_lifecycle", unit: "allocations", allocator: "jemalloc",
                    values: values.allocations),
                FixtureSeries(
                    benchmark: "observeOn.subscription", variant: variant, params: "lifecycles=5000",
                    metric: "bytes_per_lifecycle", unit: "bytes", allocator: "jemalloc", values: values.bytes),
            ]
        }
        return try fixture.compare(base: counts(base), new: counts(new), options: CompareOptions(gate: .exact))
    }

    func testACachedContinuationsFractionOfOneAllocationPerLifecycleIsSame() throws {
        // As counted for one binary in two runs: libdispatch served a few
        // continuations of the counted batch from its per-thread cache.
        let outcome = try compareLifecycles(
            "operation-queue",
            base: ([25.987, 25.997, 26], [2303.2, 2303.8, 2304]),
            new: ([26, 26, 25.998], [2304, 2304, 2303.9]))
        XCTAssertEqual(outcome.report?.comparisons.map(\.verdict), [.same, .same])
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertTrue(outcome.output.contains("Counted in whole allocations per operation (observeOn.subscription)"), outcome.output)
    }

    func testOneMoreAllocationPerLifecycleIsStillWorse() throws {
        let outcome = try compareLifecycles(
            "fast-path", base: ([13, 13, 13], [1500, 1500, 1500]), new: ([14, 14, 14], [1516, 1516, 1516]))
        XCTAssertEqual(outcome.report?.comparisons.map(\.verdict), [.worse, .worse])
        XCTAssertEqual(outcome.status, .regression)
    }

    func testAnObjectGrowingIntoTheNextSizeClassIsStillWorse() throws {
        let outcome = try compareLifecycles(
            "generic", base: ([14, 14, 14], [1600, 1600, 1600]), new: ([14, 14, 14], [1616, 1616, 1616]))
        XCTAssertEqual(outcome.report?.comparisons.map(\.verdict), [.same, .worse])
    }

    func testOtherBenchmarksStayExactToTheLastFraction() throws {
        let base = FixtureSeries(
            benchmark: "observeOn.throughput", variant: "fast-path", params: "elements=500000",
            metric: "allocs_per_element", unit: "allocations", allocator: "jemalloc", values: [0.001, 0.001, 0.001])
        var new = base
        new.values = [0.002, 0.002, 0.002]
        let outcome = try fixture.compare(base: [base], new: [new], options: CompareOptions(gate: .exact))
        XCTAssertEqual(outcome.report?.comparisons.first?.verdict, .worse)
        XCTAssertFalse(outcome.output.contains("Counted in whole allocations"), outcome.output)
    }
}
