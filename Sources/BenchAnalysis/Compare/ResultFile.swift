import Foundation
import ToolSupport

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
    static let requiredColumns = ["benchmark", "variant", "params", "metric", "value"]

    /// The file as the user named it.
    public let path: String
    /// One series per key, in order of the key's first row.
    public let series: [ResultSeries]
    /// The distinct values of the `git_rev` column, in order of first
    /// appearance (none when the file has no such column): which binary wrote it.
    public let revisions: [String]
    /// The `timestamp`, `host`, `cpu` and `cores` columns of the first data
    /// row (empty where the file has no such column): when and where the
    /// run was made, which `history` orders and groups runs by.
    public let facts: RunFacts

    /// A result file made of `series` (keys must be unique); `path` names it in messages.
    init(path: String, series: [ResultSeries], revisions: [String] = [], facts: RunFacts = RunFacts()) {
        self.path = path
        self.series = series
        self.revisions = revisions
        self.facts = facts
    }

    /// Reads and parses the file at `path`.
    public static func load(path: String) throws(CompareInputError) -> ResultFile {
        try parse(text: CSVInput.text(atPath: path, missing: "no such file"), path: path)
    }

    /// Parses CSV `text`; `path` names it in errors.
    static func parse(text: String, path: String) throws(CompareInputError) -> ResultFile {
        let table = try CSVInput.table(
            text: text, path: path,
            empty: "is empty: expected a header row with the columns " + requiredColumns.joined(separator: ", "))
        let missing = table.missingColumns(requiredColumns)
        guard missing.isEmpty else {
            let columns = missing.count == 1 ? "column" : "columns"
            throw CompareInputError(
                file: path, line: table.header.line,
                message: "header lacks the \(columns) \(missing.joined(separator: ", ")) "
                    + "(is this a BenchRunner result CSV?)")
        }

        var series: [ResultSeries] = []
        var positionOfKey: [ResultSeriesKey: Int] = [:]
        var revisions: [String] = []
        let hasRevision = table.hasColumn("git_rev")
        let hasRepetition = table.hasColumn("repetition")
        var facts: RunFacts?
        for row in try CSVInput.rows(of: table, path: path) {
            if facts == nil {
                facts = RunFacts(timestamp: row["timestamp"], host: row["host"], cpu: row["cpu"], cores: row["cores"])
            }
            let key = ResultSeriesKey(
                benchmark: row["benchmark"], variant: row["variant"], params: row["params"],
                metric: row["metric"], allocator: row["allocator"])
            if hasRevision {
                let revision = row["git_rev"]
                if !revision.isEmpty && !revisions.contains(revision) { revisions.append(revision) }
            }
            let unit = row["unit"]
            let rawValue = row["value"].trimmedOfSpaces
            var value: Double?
            if !rawValue.isEmpty {
                guard let number = Double(rawValue), number.isFinite else {
                    throw CompareInputError(
                        file: path, line: row.line,
                        message: "value \"\(rawValue)\" of \(key) is not a finite number")
                }
                value = number
            }
            let position: Int
            if let known = positionOfKey[key] {
                guard series[known].unit == unit else {
                    throw CompareInputError(
                        file: path, line: row.line,
                        message: "unit \"\(unit)\" of \(key) differs from \"\(series[known].unit)\" "
                            + "on line \(series[known].firstLine)")
                }
                position = known
            } else {
                position = series.count
                positionOfKey[key] = position
                series.append(ResultSeries(key: key, unit: unit, values: [], firstLine: row.line))
            }
            if let value {
                series[position].values.append(value)
                // A repetition that is not a whole number leaves the series without
                // repetition numbers (`repetitions` then falls short of `values`).
                if hasRepetition, let repetition = Int(row["repetition"].trimmedOfSpaces) {
                    series[position].repetitions.append(repetition)
                }
            }
        }
        return ResultFile(path: path, series: series, revisions: revisions, facts: facts ?? RunFacts())
    }
}

extension String {
    /// `trimmingCharacters(in: .whitespaces)`, called only when an end of
    /// the text is whitespace: the text itself otherwise (every field
    /// BenchRunner writes), without Foundation's work per row.
    var trimmedOfSpaces: String {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        else { return self }
        return trimmingCharacters(in: .whitespaces)
    }
}

/// When and on which machine a run was made, as its rows say.
public struct RunFacts: Sendable, Equatable {
    /// The `timestamp` column (ISO 8601, UTC).
    public let timestamp: String
    /// The `host` column.
    public let host: String
    /// The `cpu` column.
    public let cpu: String
    /// The `cores` column.
    public let cores: String

    /// Facts with these column values (empty for a column the file lacks).
    init(timestamp: String = "", host: String = "", cpu: String = "", cores: String = "") {
        self.timestamp = timestamp
        self.host = host
        self.cpu = cpu
        self.cores = cores
    }

    /// `host, cpu, N cores`: the machine a series is kept apart by.
    public var machine: String {
        "\(host.isEmpty ? "?" : host), \(cpu.isEmpty ? "?" : cpu), \(cores.isEmpty ? "?" : cores) cores"
    }
}

/// Reading the CSV files compare takes (result files, resolution tables):
/// every problem a `CompareInputError` naming the file and, where one
/// applies, the line.
enum CSVInput {
    /// The UTF-8 text of the file at `path`; `missing` is the message when
    /// there is no such file.
    static func text(atPath path: String, missing: String) throws(CompareInputError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CompareInputError(file: path, line: nil, message: missing)
        }
        guard !isDirectory.boolValue else {
            throw CompareInputError(file: path, line: nil, message: "is a directory, not a CSV file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CompareInputError(file: path, line: nil, message: "cannot be read (check its permissions)")
        }
        // Data's own search: a byte-by-byte loop over Data is slow in a
        // debug build, which reads every committed run in the tests.
        if data.range(of: Data([0])) != nil {
            throw CompareInputError(file: path, line: nil, message: "is a binary file, not a CSV file")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CompareInputError(file: path, line: nil, message: "is not UTF-8 text, not a CSV file")
        }
        return text
    }

    /// `text` read as a CSV table with a header; `empty` is the message
    /// when it has no header row.
    static func table(text: String, path: String, empty: String) throws(CompareInputError) -> CSVTable {
        let read: CSVTable?
        do throws(CSVReadError) {
            read = try CSVTable(text: text)
        } catch {
            throw CompareInputError(file: path, line: error.line, message: error.message)
        }
        guard let table = read else { throw CompareInputError(file: path, line: nil, message: empty) }
        return table
    }

    /// Every data row of `table`; a malformed one names its line.
    static func rows(of table: CSVTable, path: String) throws(CompareInputError) -> [CSVTable.Row] {
        var rows: [CSVTable.Row] = []
        for record in table.records {
            do throws(CSVReadError) {
                rows.append(try table.row(record))
            } catch {
                throw CompareInputError(file: path, line: error.line, message: error.message)
            }
        }
        return rows
    }
}

extension ResultFile {
    /// The benchmarks read at their usual level
    /// (``BenchmarkSchema/readsUsualLevel``) whose usual level this run did
    /// not measure: the median share of repetitions at the usual level over
    /// the benchmark's judged timing series (this project's variants, not
    /// the peers and references) is below
    /// ``BenchmarkSchema/usualLevelMinimumShare``. That is a property of
    /// the run, not of one series: an episode of the machine's slower levels
    /// takes every hop's repetitions at once, while one variant whose
    /// repetitions just spread wider (the actor executor's) keeps fewer of
    /// them in any run.
    var benchmarksMissingTheirUsualLevel: Set<String> {
        Set(Self.usualLevelShares(of: series).filter { $0.value < BenchmarkSchema.usualLevelMinimumShare }.keys)
    }

    /// Per benchmark read at its usual level, the median share of its
    /// repetitions at that level over its judged timing series (the rule of
    /// ``benchmarksMissingTheirUsualLevel``), from a run's rows: what a run
    /// reads of its own measurements before it writes them. A benchmark
    /// without such rows has no entry.
    package static func usualLevelShares(of rows: [CSVRow]) -> [String: Double] {
        usualLevelShares(of: ResultSeries.grouping(rows))
    }

    private static func usualLevelShares(of series: [ResultSeries]) -> [String: Double] {
        var shares: [String: [Double]] = [:]
        for series in series {
            let rule = MetricComparisonRule(
                metric: series.key.metric, benchmark: series.key.benchmark, variant: series.key.variant)
            guard rule.readsUsualLevel, !MachineDrift.isAnchor(variant: series.key.variant), !series.values.isEmpty
            else { continue }
            shares[series.key.benchmark, default: []].append(rule.usualLevelShare(series.values))
        }
        return shares.compactMapValues { Statistics.median($0) }
    }
}
