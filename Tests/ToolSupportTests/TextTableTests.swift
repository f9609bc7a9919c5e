import ToolSupport
import XCTest

final class TextTableTests: XCTestCase {
    func testColumnsAreAsWideAsTheirWidestCellAndAligned() {
        let table = TextTable(columns: [TextTable.Column("name"), TextTable.Column("n", alignment: .right)])
        XCTAssertEqual(table.lines([["a", "100"], ["longer", "2"]]), [
            "name      n",
            "a       100",
            "longer    2",
        ])
    }

    func testMinimumWidthIndentSeparatorAndUnderline() {
        let table = TextTable(
            columns: [TextTable.Column("id", minimumWidth: 4), TextTable.Column("x", alignment: .right, minimumWidth: 3)],
            indent: "  ", separator: " | ", underlinesTitles: true)
        XCTAssertEqual(table.lines([["a", "1"]]), [
            "  id   |   x",
            "  ---- | ---",
            "  a    |   1",
        ])
    }

    func testLinesHaveNoTrailingSpaces() {
        let table = TextTable(columns: [TextTable.Column("n", alignment: .right), TextTable.Column("text")])
        XCTAssertEqual(table.lines([["1", "short"], ["22", "much longer"]]), [
            " n  text",
            " 1  short",
            "22  much longer",
        ])
    }
}
