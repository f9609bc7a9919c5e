import Foundation
import ToolSupport

/// Formats rows as CSV text (RFC 4180 quoting) with the columns of `CSVSchema`.
package struct CSVWriter: Sendable {
    let environment: RunEnvironment

    package init(environment: RunEnvironment) {
        self.environment = environment
    }

    /// The header line, without a line break.
    static var header: String {
        CSVSchema.columns.joined(separator: ",")
    }

    /// The whole file: header, then one line per row, each ending in `\n`.
    package func document(_ rows: [CSVRow]) -> String {
        var text = CSVWriter.header + "\n"
        for row in rows {
            text += line(row) + "\n"
        }
        return text
    }

    /// One row as a CSV line, without a line break.
    func line(_ row: CSVRow) -> String {
        let fields: [String] = [
            environment.runID, environment.timestamp, environment.gitRevision, environment.host,
            environment.cpu, String(environment.cores), environment.swiftVersion, row.allocator ?? environment.allocator,
            row.benchmark, row.variant, row.params, row.metric, row.unit, String(row.repetition),
            row.value.map(NumberFormat.fourDecimals) ?? "",
        ]
        return CSV.line(fields)
    }
}

/// `key=value` pairs joined by `;`, in the order given (the `params` column).
func formatParams(_ pairs: KeyValuePairs<String, String>) -> String {
    pairs.map { "\($0.key)=\($0.value)" }.joined(separator: String(CSVSchema.paramsSeparator))
}
