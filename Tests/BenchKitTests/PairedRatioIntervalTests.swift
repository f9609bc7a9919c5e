@testable import BenchAnalysis
@testable import BenchKit
import XCTest

/// The paired interval behind the run summary's "library against the
/// runtime" lines, against the signed-rank test's published critical values.
final class PairedRatioIntervalTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testBoundRanksMatchTheSignedRankTablesCriticalValues() {
        // Two-sided 5 %: T ≤ 0 rejects at n = 6, T ≤ 8 at n = 10, T ≤ 52 at
        // n = 20, T ≤ 137 at n = 30 (the tables' critical values); k is one more.
        XCTAssertEqual(PairedRatioInterval.rankOfBound(pairs: 6, tail: 0.025), 1)
        XCTAssertEqual(PairedRatioInterval.rankOfBound(pairs: 10, tail: 0.025), 9)
        XCTAssertEqual(PairedRatioInterval.rankOfBound(pairs: 20, tail: 0.025), 53)
        XCTAssertEqual(PairedRatioInterval.rankOfBound(pairs: 30, tail: 0.025), 138)
        // Five pairs cannot reach 95 %: even T = 0 has probability 1/32.
        XCTAssertEqual(PairedRatioInterval.rankOfBound(pairs: 5, tail: 0.025), 0)
        XCTAssertEqual(PairedRatioInterval.fewestPairs(confidence: 0.95), 6)
        // At 90 %, T = 0 with five pairs (1/32) is within the 5 % tail.
        XCTAssertEqual(PairedRatioInterval.fewestPairs(confidence: 0.90), 5)
        // The normal approximation takes over close to where the exact count ends.
        let exact = PairedRatioInterval.rankOfBound(pairs: PairedRatioInterval.maximumExactPairs, tail: 0.025)
        let approximate = PairedRatioInterval.rankOfBound(pairs: PairedRatioInterval.maximumExactPairs + 1, tail: 0.025)
        XCTAssertEqual(exact, 649)
        XCTAssertGreaterThan(approximate, exact)
        XCTAssertLessThan(approximate, exact + 61)
    }

    func testSixPairsSpanTheirSmallestAndLargestRatio() throws {
        let first = [110.0, 120, 105, 130, 100, 115]
        let second = [100.0, 100, 100, 100, 100, 100]
        let interval = try XCTUnwrap(PairedRatioInterval(first, second, confidence: 0.95))
        XCTAssertEqual(interval.pairs, 6)
        XCTAssertEqual(interval.lower, 1.0, accuracy: 1e-12)
        XCTAssertEqual(interval.upper, 1.3, accuracy: 1e-12)
        XCTAssertGreaterThan(interval.estimate, 1.1)
        XCTAssertLessThan(interval.estimate, 1.2)
    }

    func testPairsAreTheRepetitionsBothSidesHaveInRepetitionOrder() {
        let pairs = PairedRatioInterval.pairs([3: 30, 1: 10, 7: 70, 2: 20], [2: 2, 9: 9, 1: 1, 3: 3])
        XCTAssertEqual(pairs.first, [10, 20, 30])
        XCTAssertEqual(pairs.second, [1, 2, 3])
    }

    func testTooFewPairsOrAValueNotPositiveGiveNoInterval() {
        XCTAssertNil(PairedRatioInterval([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], confidence: 0.95))
        XCTAssertNil(PairedRatioInterval([1, 2, 3, 4, 5, 0], [1, 2, 3, 4, 5, 6], confidence: 0.95))
    }

    func testTheSameRatioInEveryPairIsThatRatioExactly() throws {
        let second = (1...12).map { Double($0) * 1000 }
        let interval = try XCTUnwrap(PairedRatioInterval(second.map { $0 * 1.25 }, second, confidence: 0.95))
        XCTAssertEqual(interval.estimate, 1.25, accuracy: 1e-12)
        XCTAssertEqual(interval.lower, 1.25, accuracy: 1e-12)
        XCTAssertEqual(interval.upper, 1.25, accuracy: 1e-12)
    }

    func testPairingCancelsTheMachinesLevelThatTwoSamplesWouldCarry() throws {
        // The machine's level moves from repetition to repetition (×1 to ×3);
        // the first variant is 4 % faster within every repetition.
        let levels = [1.0, 2.8, 1.3, 2.2, 1.1, 3.0, 1.7, 2.5, 1.2, 2.9, 1.5, 2.0]
        let second = levels.map { 400_000 / $0 }
        let first = second.enumerated().map { index, value in value * (index % 2 == 0 ? 1.03 : 1.05) }
        let paired = try XCTUnwrap(PairedRatioInterval(first, second, confidence: 0.95))
        XCTAssertGreaterThan(paired.lower, 1.0)
        XCTAssertLessThan(paired.upper, 1.06)
        // The two samples' own interval, blind to the pairs, cannot tell.
        let unpaired = try XCTUnwrap(HodgesLehmannInterval(second.map(log), first.map(log), confidence: 0.95))
        XCTAssertLessThan(unpaired.lower, 0)
        XCTAssertGreaterThan(unpaired.upper, 0)
    }

    func testTheSummaryHoldsTheExecutorsAgainstTheRuntimeRepetitionByRepetition() {
        func row(_ variant: String, _ repetition: Int, _ value: Double) -> CSVRow {
            CSVRow(
                benchmark: "observeOn.throughput", variant: variant, params: "elements=1000", metric: "elements_per_s",
                unit: "elements/s", repetition: repetition, value: value)
        }
        let levels = [1.0, 2.0, 1.5, 1.2, 1.8, 1.1, 1.4, 1.9]
        var rows: [CSVRow] = []
        for (index, level) in levels.enumerated() {
            rows.append(row("actor-executor", index + 1, 500_000 / level * 0.9))
            rows.append(row("peer.actor", index + 1, 500_000 / level))
            rows.append(row("task-executor", index + 1, 300_000 / level))
        }
        let text = SummaryTable.render(rows)
        XCTAssertTrue(text.contains("actor-executor / peer.actor, elements_per_s: 0.900× (95 % interval 0.900× to 0.900×, 8 pairs): actor-executor is slower"), text)
        // No runtime variant in the rows: no line for the task executor.
        XCTAssertFalse(text.contains("task-executor / peer.task"), text)
    }

    func testATimeRatioAboveOneIsTheFirstBeingSlower() {
        func row(_ variant: String, _ repetition: Int, _ value: Double) -> CSVRow {
            CSVRow(
                benchmark: "trampoline.recursion", variant: variant, params: "depth=1000", metric: "ns_per_schedule",
                unit: "ns", repetition: repetition, value: value)
        }
        let rows = (1...6).flatMap { repetition in
            [row("current-thread", repetition, 30 * Double(repetition)), row("reference.closure-queue", repetition, 10 * Double(repetition))]
        }
        let text = SummaryTable.render(rows)
        XCTAssertTrue(
            text.contains(
                "current-thread / reference.closure-queue, ns_per_schedule: 3.000× (95 % interval 3.000× to 3.000×, 6 pairs): current-thread is slower"),
            text)
    }

    func testTheSummarySaysWhenThePairsAreTooFew() {
        let rows = (1...3).flatMap { repetition in
            ["actor-executor", "peer.actor"].map { variant in
                CSVRow(
                    benchmark: "observeOn.throughput", variant: variant, params: "", metric: "elements_per_s",
                    unit: "elements/s", repetition: repetition, value: 1000)
            }
        }
        XCTAssertTrue(SummaryTable.render(rows).contains("actor-executor / peer.actor, elements_per_s: 3 pairs, too few for an interval"))
    }
}
