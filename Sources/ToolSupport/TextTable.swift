/// A plain-text table with aligned columns, for terminals and logs.
///
/// Each column is as wide as its widest cell (title included) and at least its
/// `minimumWidth`; cells are padded left or right by the column's alignment and
/// joined by `separator`; each line starts with `indent` and has no trailing spaces.
package struct TextTable: Sendable {
    /// Where a cell sits in its column.
    package enum Alignment: Sendable {
        /// Text: padded on the right.
        case left
        /// Numbers: padded on the left.
        case right
    }

    /// One column's title and layout.
    package struct Column: Sendable {
        /// The header cell.
        let title: String
        /// How cells are padded.
        let alignment: Alignment
        /// The narrowest the column may be.
        let minimumWidth: Int

        /// Creates a column.
        package init(_ title: String, alignment: Alignment = .left, minimumWidth: Int = 0) {
            self.title = title
            self.alignment = alignment
            self.minimumWidth = minimumWidth
        }
    }

    /// The columns, left to right.
    let columns: [Column]
    /// Written before every line.
    let indent: String
    /// Written between two cells.
    let separator: String
    /// Whether a line of dashes follows the titles.
    let underlinesTitles: Bool

    /// Creates a table layout.
    package init(columns: [Column], indent: String = "", separator: String = "  ", underlinesTitles: Bool = false) {
        self.columns = columns
        self.indent = indent
        self.separator = separator
        self.underlinesTitles = underlinesTitles
    }

    /// The lines of the table (titles, optional dashes, then `rows`), without
    /// line breaks. Every row must have one cell per column.
    package func lines(_ rows: [[String]]) -> [String] {
        precondition(rows.allSatisfy { $0.count == columns.count }, "every row needs one cell per column")
        var widths = columns.map { max($0.minimumWidth, $0.title.count) }
        for row in rows {
            for (index, cell) in row.enumerated() {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (index, cell) in cells.enumerated() {
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                parts.append(columns[index].alignment == .left ? cell + padding : padding + cell)
            }
            var text = indent + parts.joined(separator: separator)
            while text.last == " " {
                text.removeLast()
            }
            return text
        }
        var lines = [line(columns.map(\.title))]
        if underlinesTitles {
            lines.append(line(widths.map { String(repeating: "-", count: $0) }))
        }
        lines += rows.map(line)
        return lines
    }
}
