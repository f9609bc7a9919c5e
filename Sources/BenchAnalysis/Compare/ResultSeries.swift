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
