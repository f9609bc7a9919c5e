@testable import BenchAnalysis
import BenchKit
import XCTest

/// Unusable input gives exit status 2 and a message naming the file and line.
final class CompareInputTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private var fixture: CompareFixture!
    private var goodPath = ""

    override func setUpWithError() throws {
        fixture = try CompareFixture()
        goodPath = try fixture.writeResults([FixtureSeries(values: [1, 2, 3, 4])], to: "good.csv")
    }

    override func tearDown() {
        fixture = nil
    }

    private var header: String { CompareFixture.standardColumns.joined(separator: ",") }

    private func row(value: String = "1.5", params: String = "elements=10") -> String {
        "r,t,g,h,c,2,6.3,system,observeOn,serial,\(params),elements_per_s,1/s,0,\(value)"
    }

    /// Compares a good base with `text` as the new file and checks status 2 and the message.
    private func assertUnusable(
        _ text: String, named name: String = "new.csv", mentions expected: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let path = try fixture.write(text, to: name)
        let outcome = CompareTool.run(basePath: goodPath, newPath: path, options: CompareOptions())
        XCTAssertEqual(outcome.status, .unusableInput, file: file, line: line)
        XCTAssertNil(outcome.report, file: file, line: line)
        XCTAssertEqual(outcome.output, "", file: file, line: line)
        XCTAssertTrue(
            outcome.diagnostics.contains(expected), "\(outcome.diagnostics) lacks \(expected)", file: file, line: line)
        // The file is named both ways round.
        let swapped = CompareTool.run(basePath: path, newPath: goodPath, options: CompareOptions())
        XCTAssertEqual(swapped.status, .unusableInput, file: file, line: line)
        XCTAssertTrue(swapped.diagnostics.contains(expected), swapped.diagnostics, file: file, line: line)
    }

    /// A value or repetition with spaces or tabs at its ends is read as its
    /// number (a file edited by hand); one with a blank inside is not a number.
    func testBlanksAtTheEndsOfAValueAreTrimmedAndInsideItAreAnError() throws {
        let lines = [header, row(value: " 1.5"), row(value: "2.5\t").replacingOccurrences(of: ",0,", with: ", 1 ,"), row(value: "3.5")]
        let file = try ResultFile.parse(text: lines.joined(separator: "\n") + "\n", path: "blanks.csv")
        XCTAssertEqual(file.series.map(\.values), [[1.5, 2.5, 3.5]])
        XCTAssertEqual(file.series.map(\.repetitions), [[0, 1, 0]])
        XCTAssertThrowsError(try ResultFile.parse(text: [header, row(value: "1 .5")].joined(separator: "\n"), path: "inside.csv")) {
            XCTAssertTrue("\($0)".contains("value \"1 .5\""), "\($0)")
        }
    }

    func testMissingFileGivesStatusTwoNamingTheFile() {
        let path = fixture.directory.appendingPathComponent("absent.csv").path
        let outcome = CompareTool.run(basePath: path, newPath: goodPath, options: CompareOptions())
        XCTAssertEqual(outcome.status, .unusableInput)
        XCTAssertTrue(outcome.diagnostics.contains("\(path): no such file"), outcome.diagnostics)
    }

    func testDirectoryGivesStatusTwo() {
        let outcome = CompareTool.run(basePath: goodPath, newPath: fixture.directory.path, options: CompareOptions())
        XCTAssertEqual(outcome.status, .unusableInput)
        XCTAssertTrue(outcome.diagnostics.contains("is a directory"), outcome.diagnostics)
    }

    func testEmptyFileGivesStatusTwo() throws {
        try assertUnusable("", named: "empty.csv", mentions: "empty.csv: is empty")
    }

    func testBinaryFileGivesStatusTwo() throws {
        let path = fixture.directory.appendingPathComponent("binary.csv")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0x00, 0x01]).write(to: path)
        let outcome = CompareTool.run(basePath: goodPath, newPath: path.path, options: CompareOptions())
        XCTAssertEqual(outcome.status, .unusableInput)
        XCTAssertTrue(outcome.diagnostics.contains("binary.csv: is a binary file"), outcome.diagnostics)
    }

    func testTextThatIsNotCSVGivesStatusTwoAtLineOne() throws {
        try assertUnusable(
            "{\"json\": true}\n", named: "notes.json",
            mentions: "notes.json:1: not a valid CSV file: a quote inside an unquoted field")
    }

    func testMissingColumnsGiveStatusTwoNamingThem() throws {
        let columns = CompareFixture.standardColumns.filter { $0 != "metric" && $0 != "value" }
        try assertUnusable(
            columns.joined(separator: ",") + "\n", named: "narrow.csv",
            mentions: "narrow.csv:1: header lacks the columns metric, value")
    }

    func testNonNumericValueGivesStatusTwoNamingFileAndLine() throws {
        let text = [header, row(), row(), row(value: "fast")].joined(separator: "\n") + "\n"
        try assertUnusable(text, named: "words.csv", mentions: "words.csv:4: value \"fast\"")
    }

    func testNotANumberValueGivesStatusTwo() throws {
        let text = [header, row(value: "nan")].joined(separator: "\n") + "\n"
        try assertUnusable(text, named: "nan.csv", mentions: "nan.csv:2: value \"nan\"")
    }

    func testRowWithTooFewFieldsGivesStatusTwoNamingFileAndLine() throws {
        let text = [header, row(), "r,t,g"].joined(separator: "\n") + "\n"
        try assertUnusable(text, named: "short.csv", mentions: "short.csv:3: row has 3 fields but the header has 15")
    }

    func testUnterminatedQuoteGivesStatusTwoAtTheLineItOpens() throws {
        let text = [header, row(), row(params: "\"elements=10"), row(), row()].joined(separator: "\n") + "\n"
        try assertUnusable(text, named: "open.csv", mentions: "open.csv:3: not a valid CSV file: quoted field is never closed")
    }

    func testCharacterAfterClosingQuoteGivesStatusTwo() throws {
        let text = [header, row(params: "\"elements\"=10")].joined(separator: "\n") + "\n"
        try assertUnusable(text, named: "junk.csv", mentions: "junk.csv:2: not a valid CSV file: unexpected character")
    }

    func testLineNumbersCountLinesInsideQuotedFields() throws {
        let text = [header, row(params: "\"elements=10\nbatch=2\""), row(value: "x")].joined(separator: "\n") + "\n"
        try assertUnusable(text, named: "multiline.csv", mentions: "multiline.csv:4: value \"x\"")
    }

    func testConflictingUnitsForOneSeriesGiveStatusTwo() throws {
        let other = row().replacingOccurrences(of: ",1/s,", with: ",ops/s,")
        let text = [header, row(), other].joined(separator: "\n") + "\n"
        try assertUnusable(text, named: "units.csv", mentions: "units.csv:3: unit \"ops/s\"")
    }

    func testUnitsThatDifferBetweenTheFilesGiveStatusTwo() throws {
        let basePath = try fixture.writeResults([FixtureSeries(unit: "ns", values: [1, 2])], to: "base.csv")
        let newPath = try fixture.writeResults([FixtureSeries(unit: "us", values: [1, 2])], to: "new.csv")
        let outcome = CompareTool.run(basePath: basePath, newPath: newPath, options: CompareOptions())
        XCTAssertEqual(outcome.status, .unusableInput)
        XCTAssertTrue(outcome.diagnostics.contains("new.csv:2: unit \"us\""), outcome.diagnostics)
        XCTAssertTrue(outcome.diagnostics.contains("base.csv line 2"), outcome.diagnostics)
    }

    func testOptionsOutOfRangeGiveStatusTwo() {
        for options in [CompareOptions(threshold: -0.01), CompareOptions(alpha: 0), CompareOptions(alpha: 1)] {
            let outcome = CompareTool.run(basePath: goodPath, newPath: goodPath, options: options)
            XCTAssertEqual(outcome.status, .unusableInput)
            XCTAssertTrue(outcome.diagnostics.hasPrefix("error: --"), outcome.diagnostics)
        }
    }

    func testCRLFLineEndingsAndBlankLinesAreAccepted() throws {
        let text = [header, row(), "", row(), row(), row()].joined(separator: "\r\n") + "\r\n\r\n"
        let path = try fixture.write(text, to: "windows.csv")
        let outcome = CompareTool.run(basePath: path, newPath: path, options: CompareOptions())
        XCTAssertEqual(outcome.status, .noRegression, outcome.diagnostics)
        XCTAssertEqual(outcome.report?.comparisons.first?.baseValues, [1.5, 1.5, 1.5, 1.5])
    }

    func testHeaderOnlyFileComparesAsAllRemoved() throws {
        let path = try fixture.write(header + "\n", to: "header-only.csv")
        let outcome = CompareTool.run(basePath: goodPath, newPath: path, options: CompareOptions())
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertEqual(outcome.report?.comparisons.map(\.verdict), [.removed])
    }
}
