@testable import ToolSupport
import XCTest

final class CSVTests: XCTestCase {
    func testEscapeQuotesOnlyFieldsThatNeedIt() {
        XCTAssertEqual(CSV.escape("plain"), "plain")
        XCTAssertEqual(CSV.escape("4, 7"), "\"4, 7\"")
        XCTAssertEqual(CSV.escape("say \"hi\""), "\"say \"\"hi\"\"\"")
        XCTAssertEqual(CSV.escape("two\nlines"), "\"two\nlines\"")
        XCTAssertEqual(CSV.escape("cr\r"), "\"cr\r\"")
        XCTAssertEqual(CSV.line(["a", "b,c", ""]), "a,\"b,c\",")
    }

    func testReaderHandlesQuotesCommasAndLineBreaks() throws {
        let records = try CSVReader.records(in: "a,\"b,c\",\"d\"\"e\"\n\"x\ny\",,\"\"\n")
        XCTAssertEqual(records, [
            CSVRecord(line: 1, fields: ["a", "b,c", "d\"e"]),
            CSVRecord(line: 2, fields: ["x\ny", "", ""]),
        ])
    }

    func testReaderSkipsBlankLinesAndAcceptsCRLFAndAMissingFinalBreak() throws {
        let records = try CSVReader.records(in: "a,b\r\n\r\n  \nc,d")
        XCTAssertEqual(records, [CSVRecord(line: 1, fields: ["a", "b"]), CSVRecord(line: 4, fields: ["c", "d"])])
    }

    func testWhatTheWriterWritesTheReaderReadsBack() throws {
        let fields = ["plain", "comma, inside", "quote \"q\"", "line\nbreak", ""]
        let records = try CSVReader.records(in: CSV.line(fields) + "\n" + CSV.line(fields) + "\n")
        XCTAssertEqual(records.map(\.fields), [fields, fields])
        XCTAssertEqual(records.map(\.line), [1, 3])
    }

    func testMalformedTextIsAnErrorNamingTheLine() {
        let cases: [(String, CSVReadError)] = [
            ("a,b\nc,\"open\n\n", CSVReadError(line: 2, message: "not a valid CSV file: quoted field is never closed")),
            ("a\n\"x\"y\n", CSVReadError(
                line: 2,
                message: "not a valid CSV file: unexpected character after a closing quote "
                    + "(a quote inside a field must be doubled)")),
            ("a\nb\nc\"d\n", CSVReadError(
                line: 3,
                message: "not a valid CSV file: a quote inside an unquoted field "
                    + "(quote the whole field and double the quote)")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try CSVReader.records(in: text), text) { error in
                XCTAssertEqual(error as? CSVReadError, expected, text)
            }
        }
        XCTAssertEqual(CSVReadError(line: 4, message: "bad").description, "line 4: bad")
    }

    func testTableLooksFieldsUpByTrimmedHeaderNameFirstColumnWinning() throws {
        let table = try XCTUnwrap(try CSVTable(text: "b, a ,a\n1,2,3\n"))
        XCTAssertEqual(table.header, CSVRecord(line: 1, fields: ["b", " a ", "a"]))
        XCTAssertTrue(table.hasColumn("a"))
        XCTAssertFalse(table.hasColumn("c"))
        XCTAssertEqual(table.missingColumns(["c", "a", "d"]), ["c", "d"])
        let row = try table.row(try XCTUnwrap(table.records.first))
        XCTAssertEqual(row["a"], "2")
        XCTAssertEqual(row["b"], "1")
        XCTAssertEqual(row["c"], "")
        XCTAssertEqual(row.line, 2)
    }

    func testTableRejectsARowOfTheWrongWidthAndIsNilForEmptyText() throws {
        XCTAssertNil(try CSVTable(text: ""))
        XCTAssertNil(try CSVTable(text: "\n\n"))
        let table = try XCTUnwrap(try CSVTable(text: "a,b\n1,2\n1\n"))
        XCTAssertThrowsError(try table.row(table.records[1])) { error in
            XCTAssertEqual(error as? CSVReadError, CSVReadError(line: 3, message: "row has 1 fields but the header has 2"))
        }
        XCTAssertThrowsError(try CSVTable(text: "a\n\"b\n")) { error in
            XCTAssertEqual((error as? CSVReadError)?.line, 2)
        }
    }
}
