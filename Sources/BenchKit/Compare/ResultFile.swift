import Foundation

/// A BenchRunner result CSV read for comparison: its rows grouped into one
/// ``ResultSeries`` per ``ResultSeriesKey``, in order of first appearance.
///
/// Reads the long form BenchRunner writes (one measured value a row, a header
/// row naming the columns). Column order does not matter and extra columns are
/// ignored; `benchmark`, `variant`, `params`, `metric` and `value` are
/// required, `allocator` and `unit` are used when present. An empty `value`
/// means "not measured" (no allocation counter in that run): the row is
/// skipped, not an error. Anything else that is not a finite number is an
/// error naming the file and line.
public struct ResultFile: Sendable {
    /// Columns without which rows cannot be paired or compared.
    public static let requiredColumns = ["benchmark", "variant", "params", "metric", "value"]

    /// The file as the user named it.
    public let path: String
    /// One series per key, in order of the key's first row.
    public let series: [ResultSeries]

    /// A result file made of `series` (keys must be unique); `path` names it in messages.
    public init(path: String, series: [ResultSeries]) {
        self.path = path
        self.series = series
    }

    /// Reads and parses the file at `path`.
    public static func load(path: String) throws(CompareInputError) -> ResultFile {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CompareInputError(file: path, line: nil, message: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw CompareInputError(file: path, line: nil, message: "is a directory, not a CSV file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CompareInputError(file: path, line: nil, message: "cannot be read (check its permissions)")
        }
        if data.contains(0) {
            throw CompareInputError(file: path, line: nil, message: "is a binary file, not a CSV file")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CompareInputError(file: path, line: nil, message: "is not UTF-8 text, not a CSV file")
        }
        return try parse(text: text, path: path)
    }

    /// Parses CSV `text`; `path` names it in errors.
    public static func parse(text: String, path: String) throws(CompareInputError) -> ResultFile {
        let records = try RFC4180Reader.records(in: text, file: path)
        guard let header = records.first else {
            throw CompareInputError(
                file: path, line: nil,
                message: "is empty: expected a header row with the columns "
                    + requiredColumns.joined(separator: ", "))
        }
        var columnIndex: [String: Int] = [:]
        for (index, name) in header.fields.enumerated() {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if columnIndex[trimmed] == nil {
                columnIndex[trimmed] = index
            }
        }
        let missing = requiredColumns.filter { columnIndex[$0] == nil }
        guard missing.isEmpty else {
            let columns = missing.count == 1 ? "column" : "columns"
            throw CompareInputError(
                file: path, line: header.line,
                message: "header lacks the \(columns) \(missing.joined(separator: ", ")) "
                    + "(is this a BenchRunner result CSV?)")
        }

        func column(_ name: String, in fields: [String]) -> String {
            guard let index = columnIndex[name] else { return "" }
            return fields[index]
        }

        var series: [ResultSeries] = []
        var positionOfKey: [ResultSeriesKey: Int] = [:]
        for record in records.dropFirst() {
            guard record.fields.count == header.fields.count else {
                throw CompareInputError(
                    file: path, line: record.line,
                    message: "row has \(record.fields.count) fields but the header has \(header.fields.count)")
            }
            let key = ResultSeriesKey(
                benchmark: column("benchmark", in: record.fields),
                variant: column("variant", in: record.fields),
                params: column("params", in: record.fields),
                metric: column("metric", in: record.fields),
                allocator: column("allocator", in: record.fields))
            let unit = column("unit", in: record.fields)
            let rawValue = column("value", in: record.fields).trimmingCharacters(in: .whitespaces)
            var value: Double?
            if !rawValue.isEmpty {
                guard let number = Double(rawValue), number.isFinite else {
                    throw CompareInputError(
                        file: path, line: record.line,
                        message: "value \"\(rawValue)\" of \(key) is not a finite number")
                }
                value = number
            }
            if let position = positionOfKey[key] {
                guard series[position].unit == unit else {
                    throw CompareInputError(
                        file: path, line: record.line,
                        message: "unit \"\(unit)\" of \(key) differs from \"\(series[position].unit)\" "
                            + "on line \(series[position].firstLine)")
                }
                if let value {
                    series[position].values.append(value)
                }
            } else {
                positionOfKey[key] = series.count
                series.append(
                    ResultSeries(key: key, unit: unit, values: value.map { [$0] } ?? [], firstLine: record.line))
            }
        }
        return ResultFile(path: path, series: series)
    }
}
