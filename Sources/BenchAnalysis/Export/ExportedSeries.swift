import ToolSupport

/// One series of a result file as every export format carries it: a name a
/// dashboard keeps from run to run, which way it improves, its unit, and the
/// median of its repetitions with their lowest and highest value.
///
/// The median is the figure `compare` and `report` use; the lowest and
/// highest repetition bound it, so a dashboard draws the run's own spread
/// rather than an interval the run did not measure.
package struct ExportedSeries: Sendable, Equatable {
    /// `benchmark/variant`, followed by ` params` when the series has
    /// parameters: the benchmark a dashboard tracks.
    let subject: String
    /// The `benchmark` column.
    let benchmark: String
    /// The `variant` column.
    let variant: String
    /// The `params` column split into its `key=value` pairs, in file order.
    let parameters: [(key: String, value: String)]
    /// The metric's name, followed by ` [allocator]` when the file holds the
    /// same metric of the same subject under more than one allocator
    /// (`--allocator both`), so every measure of a subject is unique.
    let measure: String
    /// The `unit` column.
    let unit: String
    /// Which way the metric improves: ``MetricDirection/higherIsBetter`` or
    /// ``MetricDirection/lowerIsBetter``, never informational.
    let direction: MetricDirection
    /// The repetitions' values, in file order (never empty).
    let values: [Double]

    /// The median of ``values``.
    var median: Double { Statistics.median(values) ?? 0 }
    /// The lowest repetition.
    var lowest: Double { values.min() ?? 0 }
    /// The highest repetition.
    var highest: Double { values.max() ?? 0 }

    package static func == (lhs: ExportedSeries, rhs: ExportedSeries) -> Bool {
        lhs.subject == rhs.subject && lhs.measure == rhs.measure && lhs.unit == rhs.unit
            && lhs.direction == rhs.direction && lhs.values == rhs.values
            && lhs.parameters.map(\.key) == rhs.parameters.map(\.key)
            && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }
}

/// The series of a result file that an export carries, and how many it leaves out.
package struct ExportSelection: Sendable {
    /// Every series with a direction and at least one value, in file order.
    let series: [ExportedSeries]
    /// Series left out: their metric is informational (it describes the
    /// machine or the run), not declared by this BenchRunner (so its
    /// direction is unknown), or has no value in this run.
    let leftOut: Int

    /// Selects the series of `file` an export carries. A metric's direction
    /// comes from its declaration in ``CSVSchema`` (for its benchmark, else
    /// for any benchmark), never from its name.
    init(_ file: ResultFile) {
        var allocatorsOfMeasure: [String: Set<String>] = [:]
        for series in file.series {
            allocatorsOfMeasure[Self.subject(of: series.key) + "\u{0}" + series.key.metric, default: []]
                .insert(series.key.allocator)
        }
        var selected: [ExportedSeries] = []
        var leftOut = 0
        for series in file.series {
            let key = series.key
            let declared = CSVSchema.metric(key.metric, in: key.benchmark) ?? CSVSchema.metric(named: key.metric)
            guard let direction = declared?.direction, direction != .informational, !series.values.isEmpty else {
                leftOut += 1
                continue
            }
            let subject = Self.subject(of: key)
            let ambiguous = (allocatorsOfMeasure[subject + "\u{0}" + key.metric]?.count ?? 0) > 1
            selected.append(
                ExportedSeries(
                    subject: subject, benchmark: key.benchmark, variant: key.variant,
                    parameters: Self.parameters(key.params),
                    measure: ambiguous && !key.allocator.isEmpty ? "\(key.metric) [\(key.allocator)]" : key.metric,
                    unit: series.unit, direction: direction, values: series.values))
        }
        self.series = selected
        self.leftOut = leftOut
    }

    private static func subject(of key: ResultSeriesKey) -> String {
        key.params.isEmpty ? "\(key.benchmark)/\(key.variant)" : "\(key.benchmark)/\(key.variant) \(key.params)"
    }

    private static func parameters(_ params: String) -> [(key: String, value: String)] {
        params.split(separator: CSVSchema.paramsSeparator).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }
}
