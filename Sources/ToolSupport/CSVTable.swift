import Foundation

/// CSV read by column name: the first record is the header, the others are
/// rows whose fields are looked up by the header's names.
///
/// Column order does not matter and extra columns are ignored. Header names
/// are trimmed of spaces; when a name repeats, the first column wins.
package struct CSVTable: Sendable {
    /// The header record.
    package let header: CSVRecord
    /// The records after the header, unchecked (see ``row(_:)``).
    package let records: [CSVRecord]
    private let columnIndex: [String: Int]

    /// Reads `text` strictly (``CSVReader``); `nil` when it holds no record at all.
    package init?(text: String) throws(CSVReadError) {
        let all = try CSVReader.records(in: text)
        guard let header = all.first else { return nil }
        self.header = header
        self.records = Array(all.dropFirst())
        var columnIndex: [String: Int] = [:]
        for (index, name) in header.fields.enumerated() {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if columnIndex[trimmed] == nil {
                columnIndex[trimmed] = index
            }
        }
        self.columnIndex = columnIndex
    }

    /// The names among `names` the header lacks, in the order given.
    package func missingColumns(_ names: [String]) -> [String] {
        names.filter { columnIndex[$0] == nil }
    }

    /// Whether the header has a column called `name`.
    package func hasColumn(_ name: String) -> Bool {
        columnIndex[name] != nil
    }

    /// `record` for lookup by column name; throws when its field count is
    /// not the header's (a broken row must not shift values between columns).
    package func row(_ record: CSVRecord) throws(CSVReadError) -> Row {
        guard record.fields.count == header.fields.count else {
            throw CSVReadError(
                line: record.line,
                message: "row has \(record.fields.count) fields but the header has \(header.fields.count)")
        }
        return Row(record: record, columnIndex: columnIndex)
    }

    /// A record whose fields are looked up by column name.
    package struct Row: Sendable {
        /// The record itself.
        let record: CSVRecord
        fileprivate let columnIndex: [String: Int]

        /// The line the record starts on.
        package var line: Int { record.line }

        /// The field of column `name`, or `""` when the header has no such column.
        package subscript(name: String) -> String {
            guard let index = columnIndex[name] else { return "" }
            return record.fields[index]
        }
    }
}
