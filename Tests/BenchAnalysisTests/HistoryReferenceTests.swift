@testable import BenchAnalysis
import Foundation
import XCTest

/// `history`'s binary segmentation against ruptures' `Binseg` (model "l2",
/// min_size 1, jump 1) on the committed runs' series:
/// `scripts/history_reference.py` wrote, per series, the points `history`
/// segments and the breakpoints ruptures gives for 1, 2, … splits; CI checks
/// the fixture against ruptures with `--check`.
final class HistoryReferenceTests: XCTestCase {
    private struct Fixture: Decodable {
        struct Series: Decodable {
            let series: String
            let revisions: [String]
            let points: [Double]
            let breakpoints: [[Int]]
        }
        let series: [Series]
    }

    private func fixture() throws -> Fixture {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("scripts/history-reference.json"))
        return try JSONDecoder().decode(Fixture.self, from: data)
    }

    func testTheFixtureHoldsSeriesWithSeveralSplits() throws {
        let series = try fixture().series
        XCTAssertGreaterThanOrEqual(series.count, 20)
        XCTAssertTrue(series.contains { $0.breakpoints.count >= 5 }, "no series with five splits or more")
        XCTAssertTrue(series.contains { $0.series.hasPrefix("trampoline.recursion/current-thread ") })
    }

    func testEverySplitSequenceIsRupturesBinarySegmentation() throws {
        for entry in try fixture().series {
            let steps = BinarySegmentation(entry.points).steps(limit: entry.breakpoints.count)
            XCTAssertEqual(steps.count, entry.breakpoints.count, entry.series)
            for (index, expected) in entry.breakpoints.enumerated() where index < steps.count {
                let splits = steps[0...index].map(\.split).sorted()
                XCTAssertEqual(splits, expected, "\(entry.series): \(index + 1) splits")
            }
        }
    }

    func testAStepIsSplitWhereItIsAndTiesGoToTheLaterSplit() {
        let steps = BinarySegmentation([1, 1, 1, 5, 5, 5, 5]).steps(limit: 1)
        XCTAssertEqual(steps.map(\.split), [3])
        XCTAssertEqual(steps.first?.segment, 0..<7)
        // Two equal values: every split has the same gain (0); ruptures takes the last one.
        XCTAssertEqual(BinarySegmentation([2, 2, 2]).bestSplit(0, 3)?.split, 2)
        XCTAssertTrue(BinarySegmentation([3]).steps(limit: 4).isEmpty)
    }
}
