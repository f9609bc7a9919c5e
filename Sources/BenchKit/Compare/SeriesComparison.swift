import ToolSupport

/// The comparison of one series (benchmark, variant, params, metric,
/// allocator) between a base and a new result file.
///
/// - Noisy metrics: the two medians, the change of the medians relative to
///   the base median, a two-sided ``MannWhitneyUTest`` on the repetitions and
///   the ``HodgesLehmannInterval`` of the shift at `1 - alpha`, expressed in
///   per cent of the base median. The verdict is `better`/`worse` only if
///   `p < alpha` and `|change| ≥ threshold`, in the metric's direction; `~`
///   otherwise; `too few repetitions` if no outcome could reach alpha. For a
///   wake-up-bound time (``MetricComparisonRule/isWakeUpBound``) the
///   threshold is the larger of `threshold` and `wakeUpThreshold`.
/// - Exact metrics (``MetricComparisonRule/isExact``): medians only, no test;
///   any change in the bad direction is `worse`, in the good one `better`,
///   whatever the threshold; only a change within the metric's
///   ``ExactTolerance`` (none by default) is `~`.
/// - Informational metrics: medians and change only, verdict `not judged`.
/// - Machine drift: the peers and the reference measured in the same run
///   (variants `peer.*`, `reference.*`) run code this project does not
///   change, so their common change between the two files is the machine's
///   (``MachineDrift``). This project's timing series are judged after
///   dividing the new values by that factor; the anchors themselves are
///   shown, not judged. `change` stays the raw change of the medians.
///   Wake-up-bound times are not corrected: between two runs of one
///   revision, timer lateness of the peers fell by 25 % while the library's
///   rose by 26 %, so their ratio is not the machine's.
public struct SeriesComparison: Sendable {
    public let key: ResultSeriesKey
    public let unit: String
    public let rule: MetricComparisonRule
    /// Values in the base file; nil when the series is not there.
    public let baseValues: [Double]?
    /// Values in the new file; nil when the series is not there.
    public let newValues: [Double]?
    public let baseMedian: Double?
    public let newMedian: Double?
    /// `(new median - base median) / |base median|`; nil when the base median
    /// is zero and the new one is not, or when a side has no values.
    public let change: Double?
    /// Confidence interval of the shift as fractions of `|base median|`.
    public let interval: ClosedRange<Double>?
    public let test: MannWhitneyUTest?
    public let verdict: CompareVerdict
    /// Whether this verdict counts toward the exit status under the chosen gate.
    public let isGated: Bool
    /// The machine's drift factor the verdict was corrected for (new/base of
    /// the same run's anchors), when one applied.
    public let machineDrift: Double?

    /// A gated `worse`.
    public var isRegression: Bool { verdict == .worse && isGated }

    /// Compares one key; at least one of `base` and `new` must be given.
    public init(base: ResultSeries?, new: ResultSeries?, options: CompareOptions, machineDrift: Double? = nil) {
        guard let any = base ?? new else {
            preconditionFailure("base or new must be given")
        }
        key = any.key
        unit = base?.unit ?? any.unit
        rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
        baseValues = base?.values
        newValues = new?.values
        isGated = options.gate == .all || rule.isExact
        // Wake-up-bound times do not move together between runs (a peer's
        // lateness can fall while the library's rises): no common factor to
        // divide out; `wakeUpThreshold` covers their run-to-run swing.
        let judgedDrift = rule.isExact || rule.preference == .informational || rule.isWakeUpBound ? nil : machineDrift
        self.machineDrift = judgedDrift
        let baseMedian = base.flatMap { Self.median($0.values) }
        let newMedian = new.flatMap { Self.median($0.values) }
        self.baseMedian = baseMedian
        self.newMedian = newMedian

        guard let base, let new else {
            change = nil
            interval = nil
            test = nil
            // Informational series (per-tick samples, machine facts) come and go
            // with the run: one side only is not a change in the suite.
            verdict = rule.preference == .informational ? .informational : (base == nil ? .added : .removed)
            return
        }
        guard let baseMedian, let newMedian else {
            change = nil
            interval = nil
            test = nil
            verdict = .noValues
            return
        }
        let scale = abs(baseMedian)
        let change: Double? =
            if scale > 0 { (newMedian - baseMedian) / scale } else if newMedian == baseMedian { 0 } else { nil }
        self.change = change

        if rule.preference == .informational {
            interval = nil
            test = nil
            verdict = .informational
            return
        }

        if rule.isExact {
            interval = nil
            test = nil
            // The user's tolerance, or at least the rounding of a decimal written to the CSV.
            let tolerance = max(
                ExactTolerance.amount(for: key.metric, in: options.exactTolerances),
                1e-9 * max(scale, abs(newMedian)))
            if abs(newMedian - baseMedian) <= tolerance {
                verdict = .unchanged
            } else {
                verdict = rule.isWorse(from: baseMedian, to: newMedian) ? .worse : .better
            }
            return
        }

        if MachineDrift.isAnchor(variant: key.variant) {
            // Peers and the reference measure the machine, not this project.
            interval = nil
            test = nil
            verdict = .informational
            return
        }

        // Judge against the machine: new values as if the machine had not drifted.
        let drift = judgedDrift ?? 1
        let newJudged = drift == 1 ? new.values : new.values.map { $0 / drift }
        let newJudgedMedian = newMedian / drift
        let judgedChange: Double? =
            if scale > 0 { (newJudgedMedian - baseMedian) / scale } else if newJudgedMedian == baseMedian { 0 } else { nil }

        let minimumP = MannWhitneyUTest.minimumAchievablePValue(m: base.values.count, n: new.values.count)
        guard minimumP <= options.alpha else {
            interval = nil
            test = nil
            verdict = .tooFewRepetitions
            return
        }
        let test = MannWhitneyUTest(base.values, newJudged)
        self.test = test
        if scale > 0, let shift = HodgesLehmannInterval(base.values, newJudged, confidence: 1 - options.alpha) {
            interval = (shift.lower / scale)...(shift.upper / scale)
        } else {
            interval = nil
        }
        // A nil change means growth from zero: larger than any threshold.
        let threshold = rule.isWakeUpBound ? max(options.threshold, options.wakeUpThreshold) : options.threshold
        let isLargeEnough = judgedChange.map { abs($0) >= threshold } ?? true
        if test.pValue < options.alpha && isLargeEnough && newJudgedMedian != baseMedian {
            verdict = rule.isWorse(from: baseMedian, to: newJudgedMedian) ? .worse : .better
        } else {
            verdict = .unchanged
        }
    }

    /// The median of `values`, nil when empty.
    public static func median(_ values: [Double]) -> Double? {
        Statistics.median(values)
    }
}
