@testable import BenchAnalysis
import Foundation
import XCTest

/// The change points of hand-made series: no catalogue, no result file.
final class ChangePointDetectorTests: XCTestCase {
    private let detector = ChangePointDetector(alpha: 0.05, newestRun: "new.csv")

    private let lowerIsBetterTiming = HistorySeriesKind(
        preference: .lowerIsBetter, measure: .timing(threshold: 0.05), isGated: true)

    /// A point per revision `r0`, `r1`, …; `runs[i]` are revision i's run summaries.
    private func series(_ runs: [[Double]], kind: HistorySeriesKind, newestIsNew: Bool = false) -> HistorySeries {
        let points = runs.enumerated().map { index, values in
            let paths = values.indices.map { run -> String in
                newestIsNew && index == runs.count - 1 && run == values.count - 1 ? "new.csv" : "r\(index)-\(run).csv"
            }
            return HistoryPoint(revision: "r\(index)", runValues: values, runPaths: paths)
        }
        return HistorySeries(
            key: ResultSeriesKey(benchmark: "b", variant: "v", params: "", metric: "m", allocator: "system"),
            machine: "vm", kind: kind, points: points)
    }

    /// Deterministic noise of at most ±`spread` around 1: `count` values.
    private func noisy(_ level: Double, count: Int, spread: Double = 0.02, seed: Int) -> [Double] {
        (0..<count).map { index in
            // A SplitMix64-style hash of (seed, index): values spread evenly, no run of them in order.
            var bits = UInt64(seed * 1000 + index + 1) &* 0x9E37_79B9_7F4A_7C15
            bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
            bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
            bits ^= bits >> 31
            let phase = Double(bits % 10_000) / 10_000
            return level * (1 + spread * (2 * phase - 1))
        }
    }

    func testAStepBetweenRevisionsIsOneConfirmedChangeWithItsSizeAndInterval() {
        let runs = (0..<6).map { noisy(20, count: 2, seed: $0) } + (6..<12).map { noisy(40, count: 2, seed: $0) }
        let changes = detector.changePoints(of: series(runs, kind: lowerIsBetterTiming))
        XCTAssertEqual(changes.count, 1)
        guard let change = changes.first else { return }
        XCTAssertEqual(change.position, 6)
        XCTAssertEqual(change.revisionBefore, "r5")
        XCTAssertEqual(change.revisionAfter, "r6")
        XCTAssertEqual(change.evidence, .confirmed)
        XCTAssertTrue(change.isHarmful)
        XCTAssertEqual(change.relativeChange ?? 0, 1, accuracy: 0.05)
        XCTAssertLessThan(change.pValue ?? 1, 0.001)
        guard let interval = change.interval else { return XCTFail("no interval") }
        XCTAssertTrue(interval.contains(1) || abs(interval.lowerBound - 1) < 0.05, "\(interval)")
        XCTAssertGreaterThan(interval.lowerBound, 0.9)
        XCTAssertEqual(change.runsBefore, 12)
        XCTAssertEqual(change.runsAfter, 12)
    }

    func testNoiseAloneAndMovesWithinTheThresholdAreNoChange() {
        let flat = (0..<12).map { noisy(20, count: 2, spread: 0.02, seed: $0) }
        XCTAssertTrue(detector.changePoints(of: series(flat, kind: lowerIsBetterTiming)).isEmpty)
        // 3 % up, every run agreeing: below the 5 % threshold.
        let small = (0..<6).map { noisy(20, count: 2, spread: 0.002, seed: $0) }
            + (6..<12).map { noisy(20.6, count: 2, spread: 0.002, seed: $0) }
        XCTAssertTrue(detector.changePoints(of: series(small, kind: lowerIsBetterTiming)).isEmpty)
    }

    func testAMoveWithinTheSeriesNoiseIsNoChange() {
        // Runs of one revision differ by up to ±30 %: a 20 % move of the level is within that.
        let runs = (0..<6).map { noisy(20, count: 3, spread: 0.3, seed: $0) }
            + (6..<12).map { noisy(24, count: 3, spread: 0.3, seed: $0) }
        XCTAssertTrue(detector.changePoints(of: series(runs, kind: lowerIsBetterTiming)).isEmpty)
    }

    func testOneRunAfterAStepAtTheNewestRunIsUnconfirmedElsewhereNothing() {
        let runs = (0..<8).map { noisy(20, count: 2, seed: $0) } + [[40]]
        let atNewest = detector.changePoints(of: series(runs, kind: lowerIsBetterTiming, newestIsNew: true))
        XCTAssertEqual(atNewest.map(\.evidence), [.unconfirmed])
        XCTAssertEqual(atNewest.first?.position, 8)
        // The same series whose last run is not the newest run read: nothing to wait for.
        XCTAssertTrue(detector.changePoints(of: series(runs, kind: lowerIsBetterTiming)).isEmpty)
    }

    func testARateFallingIsHarmfulAndRisingIsNot() {
        let rate = HistorySeriesKind(preference: .higherIsBetter, measure: .timing(threshold: 0.05), isGated: true)
        let falling = (0..<5).map { noisy(100, count: 2, seed: $0) } + (5..<10).map { noisy(50, count: 2, seed: $0) }
        XCTAssertEqual(detector.changePoints(of: series(falling, kind: rate)).map(\.isHarmful), [true])
        let rising = (0..<5).map { noisy(50, count: 2, seed: $0) } + (5..<10).map { noisy(100, count: 2, seed: $0) }
        XCTAssertEqual(detector.changePoints(of: series(rising, kind: rate)).map(\.isHarmful), [false])
    }

    func testExactCountsChangeWhereTheyMoveBeyondTheirTolerance() {
        let exact = HistorySeriesKind(
            preference: .lowerIsBetter, measure: .exact(absolute: 0, relative: 0), isGated: true)
        let changes = detector.changePoints(of: series([[3, 3], [3], [4], [4], [3]], kind: exact))
        XCTAssertEqual(changes.map(\.position), [2, 4])
        XCTAssertEqual(changes.map(\.evidence), [.exact, .exact])
        XCTAssertEqual(changes.map(\.isHarmful), [true, false])
        XCTAssertEqual(changes.first?.before, 3)
        XCTAssertEqual(changes.first?.after, 4)
        XCTAssertEqual(changes.first?.runsBefore, 3)
        let tolerant = HistorySeriesKind(
            preference: .lowerIsBetter, measure: .exact(absolute: 0.5, relative: 0), isGated: true)
        XCTAssertTrue(detector.changePoints(of: series([[3], [3.4], [3], [2.6]], kind: tolerant)).isEmpty)
        let instructions = HistorySeriesKind(
            preference: .lowerIsBetter, measure: .exact(absolute: 0, relative: 0.005), isGated: true)
        XCTAssertEqual(
            detector.changePoints(of: series([[1000], [1004], [1011]], kind: instructions)).map(\.position), [2])
    }

    func testASeriesOfOneRevisionHasNoChange() {
        XCTAssertTrue(detector.changePoints(of: series([[1, 2, 30]], kind: lowerIsBetterTiming)).isEmpty)
    }
}
