import Foundation

/// Writing CSV (RFC 4180): the one place the tools quote a field.
package enum CSV {
    /// `field` as it must appear in a CSV line: unchanged, or in double quotes
    /// with inner quotes doubled when it holds a comma, a quote or a line break.
    package static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `fields` escaped and joined by commas: one record, without a line break.
    package static func line(_ fields: [String]) -> String {
        fields.map(escape).joined(separator: ",")
    }
}
