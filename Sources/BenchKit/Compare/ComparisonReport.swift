/// Every pair of series of two result files, compared: the whole outcome of
/// `BenchRunner compare` before it is formatted.
public struct ComparisonReport: Sendable {
    public let basePath: String
    public let newPath: String
    public let options: CompareOptions
    /// Series of the base file in its order, then series only in the new file in theirs.
    public let comparisons: [SeriesComparison]

    /// Pairs the series of `base` and `new`. Throws when a pair's units
    /// differ: comparing nanoseconds with microseconds would be a silent wrong
    /// answer.
    public init(base: ResultFile, new: ResultFile, options: CompareOptions) throws(CompareInputError) {
        basePath = base.path
        newPath = new.path
        self.options = options
        var newByKey: [ResultSeriesKey: ResultSeries] = [:]
        for series in new.series {
            newByKey[series.key] = series
        }
        let drift = MachineDrift(base: base.series, newByKey: newByKey)
        var baseKeys = Set<ResultSeriesKey>()
        var comparisons: [SeriesComparison] = []
        for series in base.series {
            baseKeys.insert(series.key)
            if let counterpart = newByKey[series.key], counterpart.unit != series.unit {
                throw CompareInputError(
                    file: new.path, line: counterpart.firstLine,
                    message: "unit \"\(counterpart.unit)\" of \(series.key) differs from \"\(series.unit)\" "
                        + "in \(base.path) line \(series.firstLine)")
            }
            comparisons.append(
                SeriesComparison(
                    base: series, new: newByKey[series.key], options: options,
                    machineDrift: drift.factor(for: series.key)))
        }
        for series in new.series where !baseKeys.contains(series.key) {
            comparisons.append(SeriesComparison(base: nil, new: series, options: options))
        }
        self.comparisons = comparisons
    }

    /// Gated regressions.
    public var regressions: [SeriesComparison] { comparisons.filter(\.isRegression) }

    /// 1 when any gated series got worse, else 0.
    public var exitStatus: CompareExitStatus { regressions.isEmpty ? .noRegression : .regression }

    /// How many series got each verdict.
    public func count(of verdict: CompareVerdict) -> Int {
        comparisons.reduce(0) { $0 + ($1.verdict == verdict ? 1 : 0) }
    }
}
