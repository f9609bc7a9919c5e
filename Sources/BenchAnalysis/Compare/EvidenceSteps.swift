import ToolSupport

/// The steps of gathering one series' evidence (``SeriesEvidence``), each a
/// pure function of its inputs, in the order ``SeriesComparison`` applies
/// them. None decides a verdict: ``VerdictTable`` does.
enum EvidenceSteps {
    /// `(new - base) / |base|`; 0 when both are 0; nil when only the base is 0.
    static func relativeChange(base: Double, new: Double) -> Double? {
        let scale = abs(base)
        if scale > 0 { return (new - base) / scale }
        return new == base ? 0 : nil
    }

    /// The threshold the options declare for a series: a wake-up-bound time
    /// gets the larger of `threshold` and `wakeUpThreshold`.
    static func threshold(rule: MetricComparisonRule, options: CompareOptions) -> Double {
        rule.isWakeUpBound ? max(options.threshold, options.wakeUpThreshold) : options.threshold
    }

    /// The threshold a series is judged against: `declared`, or for a timing
    /// series the resolution table calibrated, the larger of that and its resolution.
    static func threshold(
        declared: Double, resolution: Double?, rule: MetricComparisonRule, chanceCountMove: Double? = nil
    ) -> Double {
        guard !rule.isExact else { return declared }
        return max(declared, resolution ?? 0, chanceCountMove ?? 0)
    }

    /// Metrics that count events a loaded machine causes by chance (a tick
    /// skipped because its thread woke late): a handful per run, so a
    /// relative threshold reads 1 → 2 as +100 %.
    static let chanceEventCounts: Set<String> = ["skipped_ticks"]

    /// How far the median of such a count moves between two runs of one
    /// binary by chance, as a fraction of the base median: the difference of
    /// two Poisson counts of the medians' sizes has variance `base + new`, and
    /// a move within three of its standard deviations, `3·√(base + new)`, is
    /// chance. From a base of 0 no relative move is defined: a new median
    /// within that chance move (0 → 1, … 0 → 9) gives an infinite threshold,
    /// so it is never beyond chance; one beyond it (0 → 10 or more) gives
    /// nil, and the repetitions' tests judge it at the declared threshold.
    /// nil for any other metric.
    static func chanceCountMove(metric: String, baseMedian: Double?, newMedian: Double?) -> Double? {
        guard chanceEventCounts.contains(metric), let baseMedian, let newMedian, baseMedian >= 0 else { return nil }
        let chance = 3 * (baseMedian + max(newMedian, 0)).squareRoot()
        guard baseMedian > 0 else { return newMedian <= chance ? .infinity : nil }
        return chance / baseMedian
    }

    /// The machine's drift the series is judged against: none for exact and
    /// informational metrics, which no test judges, and none for a series
    /// read at its usual level (``MetricComparisonRule/readsUsualLevel``):
    /// that reading already leaves the machine's levels out, while the
    /// anchors' medians (peers whose repetitions spread by 40-100 %, read
    /// whole) would excuse a real change of 20 % as the machine's.
    static func drift(rule: MetricComparisonRule, machineDrift: Double?) -> Double? {
        rule.isExact || rule.preference == .informational || rule.readsUsualLevel ? nil : machineDrift
    }

    /// How far apart two exact counts may be and still be `same`: the user's
    /// tolerance for the metric, the benchmark's tolerance for its kind
    /// (``BenchmarkSchema/countTolerance(metric:)``), for an instruction
    /// count ``MetricKind/instructionTolerance`` of the base count, or at
    /// least the rounding of a decimal written to the CSV.
    static func exactTolerance(
        metric: String, benchmark: String? = nil, kind: MetricKind? = nil, baseMedian: Double, newMedian: Double,
        options: CompareOptions
    ) -> Double {
        max(
            ExactTolerance.amount(for: metric, in: options.exactTolerances),
            benchmark.flatMap { CSVSchema.benchmark(named: $0) }?.countTolerance(metric: metric) ?? 0,
            kind == .instructions ? MetricKind.instructionTolerance * abs(baseMedian) : 0,
            1e-9 * max(abs(baseMedian), abs(newMedian)))
    }

    /// How an exact count moved: within `tolerance`, otherwise harmfully or
    /// beneficially by the rule's direction, whatever the threshold.
    static func countChange(baseMedian: Double, newMedian: Double, tolerance: Double, rule: MetricComparisonRule)
        -> SeriesEvidence.CountChange
    {
        if abs(newMedian - baseMedian) <= tolerance { return .withinTolerance }
        return rule.isWorse(from: baseMedian, to: newMedian) ? .harmful : .beneficial
    }

    /// The smallest one-sided p-value `m` against `n` repetitions allow, and
    /// whether it reaches `alpha`; when it does not, no test can judge them.
    static func repetitionsSuffice(m: Int, n: Int, alpha: Double) -> (minimumP: Double, suffice: Bool) {
        let minimumP = MannWhitneyUTest.minimumAchievablePValue(m: m, n: n, alternative: .secondGreater)
        return (minimumP, FalseDiscoveryRate.isSignificant(minimumP, at: alpha))
    }

    /// The new values as if the machine had not drifted (divided by
    /// `drift`); nil when no correction applies (no drift, or exactly 1).
    static func corrected(_ values: [Double], drift: Double?) -> [Double]? {
        guard let drift, drift != 1 else { return nil }
        return values.map { $0 / drift }
    }

    /// The two one-sided tests: "worse by more than `shift`" as "worse than
    /// the base moved by `shift` in the harmful direction", and "better"
    /// likewise, so the threshold is part of the question each answers. With
    /// a drift correction each is the intersection-union of the corrected and
    /// the measured test (``bothAgree(_:_:)``): the drift may only excuse a
    /// change, never make one.
    static func thresholdTests(
        base: [Double], new: [Double], corrected: [Double]?, shift: Double, preference: MetricComparisonRule.Preference
    ) -> (worse: MannWhitneyUTest, better: MannWhitneyUTest) {
        let harmfulSign: Double = preference == .higherIsBetter ? -1 : 1
        let towardsWorse: MannWhitneyUTest.Alternative = harmfulSign > 0 ? .secondGreater : .secondLess
        let towardsBetter: MannWhitneyUTest.Alternative = harmfulSign > 0 ? .secondLess : .secondGreater
        let worseBase = base.map { $0 + harmfulSign * shift }
        let betterBase = base.map { $0 - harmfulSign * shift }
        func test(_ moved: [Double], _ alternative: MannWhitneyUTest.Alternative) -> MannWhitneyUTest {
            let measured = MannWhitneyUTest(moved, new, alternative: alternative)
            guard let corrected else { return measured }
            return bothAgree(MannWhitneyUTest(moved, corrected, alternative: alternative), measured) ?? measured
        }
        return (test(worseBase, towardsWorse), test(betterBase, towardsBetter))
    }

    /// The confidence interval of the shift (new minus base) at
    /// `1 - 2·alpha`, in fractions of `scale`, and whether the series is
    /// `same`: the interval lies within ±`threshold`, or every value is equal.
    static func equivalence(base: [Double], new: [Double], scale: Double, threshold: Double, alpha: Double)
        -> (interval: ClosedRange<Double>?, isWithinThreshold: Bool)
    {
        let everyValueEqual = Set(base + new).count == 1
        guard scale > 0, let shift = HodgesLehmannInterval(base, new, confidence: 1 - 2 * alpha) else {
            return (nil, everyValueEqual)
        }
        let relative = (shift.lower / scale)...(shift.upper / scale)
        return (relative, everyValueEqual || (relative.lowerBound >= -threshold && relative.upperBound <= threshold))
    }

    /// Whether the median moved beyond `threshold` in the harmful direction
    /// both as measured and after the drift correction (`correctedChange`,
    /// nil when none applies): the drift may excuse a move, never create one.
    static func movedHarmfully(
        change: Double?, correctedChange: Double?, threshold: Double, preference: MetricComparisonRule.Preference
    ) -> Bool {
        func harmful(_ value: Double?) -> Bool {
            guard let value else { return false }
            switch preference {
            case .higherIsBetter: return value < -threshold
            case .lowerIsBetter: return value > threshold
            case .informational: return false
            }
        }
        guard harmful(change) else { return false }
        guard let correctedChange else { return true }
        return harmful(correctedChange)
    }

    /// The test with the larger p-value: the intersection-union test of
    /// "changed as corrected" and "changed as measured".
    static func bothAgree(_ corrected: MannWhitneyUTest?, _ measured: MannWhitneyUTest?) -> MannWhitneyUTest? {
        guard let corrected else { return measured }
        guard let measured else { return corrected }
        return measured.pValue > corrected.pValue ? measured : corrected
    }
}
