import ToolSupport
import XCTest

final class StatisticsTests: XCTestCase {
    func testPercentileOfKnownInputInterpolatesBetweenRanks() {
        let values: [Double] = [15, 20, 35, 40, 50]
        XCTAssertEqual(Statistics.percentile(values, 0), 15)
        XCTAssertEqual(Statistics.percentile(values, 100), 50)
        XCTAssertEqual(Statistics.percentile(values, 50), 35)
        XCTAssertEqual(Statistics.percentile(values, 40) ?? 0, 29, accuracy: 1e-9)
        XCTAssertEqual(Statistics.percentile(values, 75), 40)
    }

    func testPercentileIgnoresInputOrder() {
        let values: [Double] = (1...100).map(Double.init).shuffled()
        XCTAssertEqual(Statistics.percentile(values, 99) ?? 0, 99.01, accuracy: 1e-9)
        XCTAssertEqual(Statistics.median(values) ?? 0, 50.5, accuracy: 1e-9)
    }

    func testMedianOfEvenCountIsMeanOfMiddlePair() {
        XCTAssertEqual(Statistics.median([4, 1, 3, 2]), 2.5)
        XCTAssertEqual(Statistics.median([3, 1, 2]), 2)
        XCTAssertEqual(Statistics.median(sorted: [1, 2, 3, 10]), 2.5)
        XCTAssertEqual(Statistics.median(sorted: [-1, 7, 8]), 7)
        XCTAssertNil(Statistics.median(sorted: []))
    }

    func testEmptyInputHasNoPercentile() {
        XCTAssertNil(Statistics.percentile([], 50))
        XCTAssertNil(Statistics.median([]))
        XCTAssertNil(Statistics.mean([]))
    }

    func testSingleValueIsEveryPercentile() {
        XCTAssertEqual(Statistics.percentile([7], 0), 7)
        XCTAssertEqual(Statistics.percentile([7], 99.9), 7)
    }

    func testMeanOfKnownInput() {
        XCTAssertEqual(Statistics.mean([1, 2, 3, 4]), 2.5)
    }

    func testSlopeIsTheLeastSquaresLineThroughThePoints() throws {
        XCTAssertEqual(try XCTUnwrap(Statistics.slope([(x: 0, y: 1), (x: 1, y: 3), (x: 2, y: 5)])), 2, accuracy: 1e-12)
        // Scattered points: the slope that minimises the squared residuals.
        XCTAssertEqual(try XCTUnwrap(Statistics.slope([(x: 0, y: 0), (x: 1, y: 2), (x: 2, y: 1)])), 0.5, accuracy: 1e-12)
        XCTAssertNil(Statistics.slope([(x: 1, y: 1), (x: 1, y: 2)]))
        XCTAssertNil(Statistics.slope([]))
    }
}
