import ToolSupport

/// How many repetitions of a series compare needs, asked by a run while it
/// measures: BenchRunner's default suite takes repetitions of a benchmark
/// until each of its judged series is as narrow as this says, within the
/// benchmark's time budget.
///
/// The rule: a series is narrow enough when compare, comparing the run with
/// a run just like it (the same repetitions on both sides), would find the
/// interval of the change within ±the series' declared threshold, so that
/// `same` can be shown (docs/Compare.md, "Verdicts"): the Hodges-Lehmann
/// interval of the shift at `1 - 2·alpha`, in fractions of the median,
/// with the threshold compare declares for the series (`--threshold`, or
/// `--wakeup-threshold` for a wake-up-bound time), on the values compare
/// judges (for a series read at its usual level, those at that level).
/// Exact counts, series compare only shows, and the peers' and references'
/// times (they measure the machine) ask for nothing.
package enum RepetitionTarget {
    /// Whether compare judges `metric` of `variant` in `benchmark` as a
    /// time (``isNarrowEnough(_:metric:benchmark:variant:options:)`` has
    /// something to ask of it).
    package static func isJudgedTime(metric: String, benchmark: String, variant: String) -> Bool {
        let rule = MetricComparisonRule(metric: metric, benchmark: benchmark, variant: variant)
        return !rule.isExact && rule.preference != .informational && !MachineDrift.isAnchor(variant: variant)
    }

    /// The half-width of the interval of the change compare would find
    /// between `values` and a run just like them, over the series'
    /// threshold: at most 1 is narrow enough. Nil when compare asks nothing
    /// of the series, or when the values are too few for an interval (a
    /// zero median, fewer than two values).
    static func widthOverThreshold(
        _ values: [Double], metric: String, benchmark: String, variant: String, options: CompareOptions = CompareOptions()
    ) -> Double? {
        guard isJudgedTime(metric: metric, benchmark: benchmark, variant: variant) else { return nil }
        let rule = MetricComparisonRule(metric: metric, benchmark: benchmark, variant: variant)
        let judged = rule.judgedValues(values)
        guard judged.count >= 2, let median = Statistics.median(judged), median != 0 else { return nil }
        if Set(judged).count == 1 { return 0 }
        let threshold = EvidenceSteps.threshold(rule: rule, options: options)
        guard threshold > 0,
            let interval = HodgesLehmannInterval(judged, judged, confidence: 1 - 2 * options.alpha)
        else { return nil }
        let halfWidth = max(abs(interval.lower), abs(interval.upper)) / abs(median)
        return halfWidth / threshold
    }

    /// Whether `values` are as narrow as compare needs (see the type's
    /// comment); true for a series compare asks nothing of.
    package static func isNarrowEnough(
        _ values: [Double], metric: String, benchmark: String, variant: String, options: CompareOptions = CompareOptions()
    ) -> Bool {
        guard isJudgedTime(metric: metric, benchmark: benchmark, variant: variant) else { return true }
        guard
            let ratio = widthOverThreshold(
                values, metric: metric, benchmark: benchmark, variant: variant, options: options)
        else { return false }
        return ratio <= 1
    }

    /// The fewest repetitions a side for which compare can judge a series
    /// at all at `alpha`: even repetitions that do not overlap reach alpha
    /// only from this many on (3 against 3 at 0.05).
    package static func fewestJudged(alpha: Double = CompareOptions().alpha) -> Int {
        var count = 2
        while !EvidenceSteps.repetitionsSuffice(m: count, n: count, alpha: alpha).suffice { count += 1 }
        return count
    }
}
