import ToolSupport
import XCTest

final class NumberFormatTests: XCTestCase {
    func testFourDecimalsWritesIntegersWholeAndRoundsTheRest() {
        XCTAssertEqual(NumberFormat.fourDecimals(42), "42")
        XCTAssertEqual(NumberFormat.fourDecimals(1.23456789), "1.2346")
        XCTAssertEqual(NumberFormat.fourDecimals(28_571_428.571428), "28571428.5714")
        XCTAssertEqual(NumberFormat.fourDecimals(12.5), "12.5")
        XCTAssertEqual(NumberFormat.fourDecimals(2.99999), "3")
        XCTAssertEqual(NumberFormat.fourDecimals(.nan), "")
        XCTAssertEqual(NumberFormat.fourDecimals(.infinity), "")
    }

    func testPlainIsTheShortestRoundTripWithoutPointZero() {
        XCTAssertEqual(NumberFormat.plain(2), "2")
        XCTAssertEqual(NumberFormat.plain(2.0001), "2.0001")
        XCTAssertEqual(NumberFormat.plain(0.05), "0.05")
    }

    func testFourSignificantDigits() {
        XCTAssertEqual(NumberFormat.fourSignificantDigits(12_345_678), "12.35M")
        XCTAssertEqual(NumberFormat.fourSignificantDigits(12_345), "12.35k")
        XCTAssertEqual(NumberFormat.fourSignificantDigits(9_999.96), "10k")
        XCTAssertEqual(NumberFormat.fourSignificantDigits(179.64), "179.6")
        XCTAssertEqual(NumberFormat.fourSignificantDigits(98), "98")
        XCTAssertEqual(NumberFormat.fourSignificantDigits(-0.5), "-0.5")
        XCTAssertEqual(NumberFormat.fourSignificantDigits(0.000_123_4), "1.234e-04")
        XCTAssertEqual(NumberFormat.fourSignificantDigits(0), "0")
    }

    func testCompact() {
        XCTAssertEqual(NumberFormat.compact(1_234_567), "1.23M")
        XCTAssertEqual(NumberFormat.compact(42), "42")
        XCTAssertEqual(NumberFormat.compact(0.5), "0.50")
        XCTAssertEqual(NumberFormat.compact(25_000), "25.0k")
        XCTAssertEqual(NumberFormat.compact(2.5e9), "2.50G")
        XCTAssertEqual(NumberFormat.compact(123.4), "123")
    }

    func testExponentHasTwoDecimalsAndNoNegativeZero() {
        XCTAssertEqual(NumberFormat.exponent(0.1288), "0.13")
        XCTAssertEqual(NumberFormat.exponent(-0.397), "-0.40")
        XCTAssertEqual(NumberFormat.exponent(-0.0017), "0.00")
        XCTAssertEqual(NumberFormat.exponent(0), "0.00")
    }

    func testPercentage() {
        XCTAssertEqual(NumberFormat.percentage(-0.368), "-36.8%")
        XCTAssertEqual(NumberFormat.percentage(0.05), "+5.0%")
    }

    func testTwoDecimals() {
        XCTAssertEqual(NumberFormat.twoDecimals(1.5), "1.50")
        XCTAssertEqual(NumberFormat.twoDecimals(0.041), "0.04")
        XCTAssertEqual(NumberFormat.twoDecimals(12.345), "12.35")
        XCTAssertEqual(NumberFormat.twoDecimals(0), "0.00")
    }
}
