import Foundation
import ToolSupport

/// The formats `BenchRunner export` writes: the JSON that a dashboard a user
/// already runs reads (docs/Dashboards.md).
package enum ExportFormat: String, Sendable, CaseIterable {
    /// Bencher Metric Format: an object of benchmarks (``ExportedSeries/subject``),
    /// each an object of measures (``ExportedSeries/measure``), each
    /// `{value, lower_value, upper_value}`: the median and the lowest and
    /// highest repetition. BMF carries no direction or unit: Bencher's
    /// thresholds set them per measure.
    case bencher
    /// github-action-benchmark's `customSmallerIsBetter` tool: an array of
    /// `{name, unit, value, range, extra}` of the series whose metric is
    /// lower-is-better.
    case customSmallerIsBetter = "custom-smaller-is-better"
    /// The same for its `customBiggerIsBetter` tool: the higher-is-better series.
    case customBiggerIsBetter = "custom-bigger-is-better"
    /// JMH's JSON result format as package-benchmark writes it: an array of
    /// one element per benchmark, variant and parameter set, whose first
    /// exported metric is the `primaryMetric` (mode `thrpt` when it is
    /// higher-is-better, `avgt` otherwise) and the others `secondaryMetrics`.
    case jmh

    /// The JSON text of `selection` in this format: UTF-8, keys sorted,
    /// indented, ending with a newline.
    func json(_ selection: ExportSelection) -> String {
        switch self {
        case .bencher: Self.encode(Self.bencherDocument(selection.series))
        case .customSmallerIsBetter: Self.encode(Self.customEntries(selection.series, .lowerIsBetter))
        case .customBiggerIsBetter: Self.encode(Self.customEntries(selection.series, .higherIsBetter))
        case .jmh: Self.encode(Self.jmhElements(selection.series))
        }
    }

    /// How many of `selection`'s series this format carries (the custom
    /// tools each carry one direction).
    func count(_ selection: ExportSelection) -> Int {
        switch self {
        case .bencher, .jmh: selection.series.count
        case .customSmallerIsBetter: selection.series.filter { $0.direction == .lowerIsBetter }.count
        case .customBiggerIsBetter: selection.series.filter { $0.direction == .higherIsBetter }.count
        }
    }

    /// `object` (dictionaries, arrays, strings and finite numbers) as JSON text.
    private static func encode(_ object: Any) -> String {
        // Every number is finite (ResultFile refuses anything else), so serialising cannot fail.
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return "" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    // MARK: Bencher Metric Format

    /// Benchmark → measure → `{value, lower_value, upper_value}`.
    static func bencherDocument(_ series: [ExportedSeries]) -> [String: [String: [String: Double]]] {
        var document: [String: [String: [String: Double]]] = [:]
        for item in series {
            document[item.subject, default: [:]][item.measure] = [
                "value": item.median, "lower_value": item.lowest, "upper_value": item.highest,
            ]
        }
        return document
    }

    // MARK: github-action-benchmark

    /// One entry per series of `direction`: `name` (subject and measure),
    /// `unit`, `value` (the median), `range` (`± h`, h half the distance
    /// between the lowest and highest repetition) and `extra` (the
    /// repetitions and their extremes, shown in the chart's tooltip).
    static func customEntries(_ series: [ExportedSeries], _ direction: MetricDirection) -> [[String: Any]] {
        series.filter { $0.direction == direction }.map { item in
            let halfSpread = (item.highest - item.lowest) / 2
            return [
                "name": "\(item.subject) \(item.measure)", "unit": item.unit, "value": item.median,
                "range": "± \(NumberFormat.fourDecimals(halfSpread))",
                "extra": "median of \(item.values.count) repetitions; lowest \(NumberFormat.fourDecimals(item.lowest)), "
                    + "highest \(NumberFormat.fourDecimals(item.highest))",
            ]
        }
    }

    // MARK: JMH

    /// The percentiles JMH reports of a metric.
    static let jmhPercentiles: [Double] = [0, 50, 90, 95, 99, 99.9, 99.99, 99.999, 99.9999, 100]

    /// A JMH metric: `score` the median, `scoreError` half the distance
    /// between the lowest and highest repetition, `scoreConfidence` those
    /// two, `scorePercentiles` ``jmhPercentiles`` keyed as JMH writes them
    /// (`"50.0"`), `scoreUnit` the CSV's unit, `rawData` the repetitions as
    /// one fork's iterations.
    static func jmhMetric(_ item: ExportedSeries) -> [String: Any] {
        let sorted = item.values.sorted()
        var percentiles: [String: Double] = [:]
        for percentile in jmhPercentiles {
            percentiles["\(percentile)"] = Statistics.percentile(sorted: sorted, percentile) ?? item.median
        }
        return [
            "score": item.median, "scoreError": (item.highest - item.lowest) / 2,
            "scoreConfidence": [item.lowest, item.highest], "scorePercentiles": percentiles,
            "scoreUnit": item.unit, "rawData": [item.values],
        ]
    }

    /// One JMH element per subject, in file order: `benchmark` is
    /// `benchmark.variant`, `params` the `params` column's pairs (absent when
    /// empty), `primaryMetric` the first exported metric (`mode` `thrpt` when
    /// it is higher-is-better, else `avgt`), `secondaryMetrics` the others by
    /// measure. One thread, one fork, one warm-up (BenchRunner warms each
    /// plan up once), batches of one; `measurementIterations` the primary
    /// metric's repetitions; the times, which a result file does not
    /// record, are empty.
    static func jmhElements(_ series: [ExportedSeries]) -> [[String: Any]] {
        var groups: [[ExportedSeries]] = []
        var positionOfSubject: [String: Int] = [:]
        for item in series {
            if let position = positionOfSubject[item.subject] {
                groups[position].append(item)
            } else {
                positionOfSubject[item.subject] = groups.count
                groups.append([item])
            }
        }
        return groups.map { members in
            let primary = members[0]
            var secondary: [String: Any] = [:]
            for item in members.dropFirst() {
                secondary[item.measure] = jmhMetric(item)
            }
            var element: [String: Any] = [
                "benchmark": "\(primary.benchmark).\(primary.variant)",
                "mode": primary.direction == .higherIsBetter ? "thrpt" : "avgt",
                "threads": 1, "forks": 1, "warmupIterations": 1, "warmupTime": "", "warmupBatchSize": 1,
                "measurementIterations": primary.values.count, "measurementTime": "", "measurementBatchSize": 1,
                "primaryMetric": jmhMetric(primary), "secondaryMetrics": secondary,
            ]
            if !primary.parameters.isEmpty {
                var params: [String: String] = [:]
                for parameter in primary.parameters {
                    params[parameter.key] = parameter.value
                }
                element["params"] = params
            }
            return element
        }
    }
}
