import Foundation
import ToolSupport

/// One row of the long-form CSV: the run's fixed columns plus one measured value.
public struct CSVRow: Sendable, Equatable {
    public var benchmark: String
    public var variant: String
    public var params: String
    public var metric: String
    public var unit: String
    public var repetition: Int
    /// `nil` when the value could not be measured (for example allocation
    /// counts without jemalloc): written as an empty field.
    public var value: Double?
    /// The allocator the value was measured under, when it is not the run's
    /// (the allocation counts of a default run come from a jemalloc child).
    public var allocator: String?

    public init(
        benchmark: String, variant: String, params: String, metric: String,
        unit: String, repetition: Int, value: Double?, allocator: String? = nil
    ) {
        self.benchmark = benchmark
        self.variant = variant
        self.params = params
        self.metric = metric
        self.unit = unit
        self.repetition = repetition
        self.value = value
        self.allocator = allocator
    }
}

/// Formats rows as CSV text (RFC 4180 quoting) with the columns of `CSVSchema`.
public struct CSVWriter: Sendable {
    public let environment: RunEnvironment

    public init(environment: RunEnvironment) {
        self.environment = environment
    }

    /// The header line, without a line break.
    public static var header: String {
        CSVSchema.columns.joined(separator: ",")
    }

    /// The whole file: header, then one line per row, each ending in `\n`.
    public func document(_ rows: [CSVRow]) -> String {
        var text = CSVWriter.header + "\n"
        for row in rows {
            text += line(row) + "\n"
        }
        return text
    }

    /// One row as a CSV line, without a line break.
    public func line(_ row: CSVRow) -> String {
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
public func formatParams(_ pairs: KeyValuePairs<String, String>) -> String {
    pairs.map { "\($0.key)=\($0.value)" }.joined(separator: String(CSVSchema.paramsSeparator))
}
