import ToolSupport

/// How widely a series' repetitions spread, as compare reports it.
enum RepetitionSpread {
    /// The interquartile range of `values` over the absolute value of their
    /// median (0.2: the middle half of the repetitions lies within a band 20 %
    /// of the median wide). Nil for fewer than two values or a zero median.
    static func relativeInterquartileRange(_ values: [Double]) -> Double? {
        guard values.count >= 2, let median = Statistics.median(values), median != 0,
            let lower = Statistics.percentile(values, 25), let upper = Statistics.percentile(values, 75)
        else { return nil }
        return (upper - lower) / abs(median)
    }
}
