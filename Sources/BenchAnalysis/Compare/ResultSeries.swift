/// All repetitions of one metric of one benchmark variant in one result file.
public struct ResultSeries: Sendable, Equatable {
    /// What the series is of.
    public let key: ResultSeriesKey
    /// The `unit` column (empty when the file has none).
    public let unit: String
    /// The values of every row with this key, in file order. Rows with an
    /// empty `value` (allocation counting unavailable) are not included, so
    /// this may be empty.
    public var values: [Double]
    /// Line of the first row with this key.
    public let firstLine: Int
    /// The `repetition` column of each value, in the same order as `values`
    /// (as a result file gives them; empty for a series made otherwise, or
    /// when the file has no such column).
    var repetitions: [Int] = []

    init(key: ResultSeriesKey, unit: String, values: [Double], firstLine: Int) {
        self.key = key
        self.unit = unit
        self.values = values
        self.firstLine = firstLine
    }
}

extension ResultSeries {
    /// A run's rows (as written to its CSV) as series, one per key in the
    /// order their first rows come; rows without a value are left out.
    package static func grouping(_ rows: [CSVRow]) -> [ResultSeries] {
        var order: [ResultSeriesKey] = []
        var values: [ResultSeriesKey: [Double]] = [:]
        var units: [ResultSeriesKey: String] = [:]
        for row in rows {
            guard let value = row.value else { continue }
            let key = ResultSeriesKey(
                benchmark: row.benchmark, variant: row.variant, params: row.params, metric: row.metric,
                allocator: row.allocator ?? "")
            if values[key] == nil {
                order.append(key)
                units[key] = row.unit
            }
            values[key, default: []].append(value)
        }
        return order.map { ResultSeries(key: $0, unit: units[$0] ?? "", values: values[$0] ?? [], firstLine: 0) }
    }
}
