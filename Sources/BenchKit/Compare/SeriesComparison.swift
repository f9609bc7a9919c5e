import ToolSupport

/// The comparison of one series (benchmark, variant, params, metric,
/// allocator) between a base and a new result file.
///
/// - Noisy metrics: the two medians, the change of the medians relative to
///   the base median, and two one-sided ``MannWhitneyUTest``s of the new
///   repetitions against the base ones shifted by the declared threshold: "worse by
///   more than the threshold" (in the metric's harmful direction) and
///   "better by more than the threshold". The confidence interval is the
///   ``HodgesLehmannInterval`` of the shift at `1 - 2·alpha` (each bound a
///   one-sided `1 - alpha` bound, the level of the tests), in per cent of the
///   base median. The verdict:
///   - `worse`/`better` when the test's p-value, adjusted for the false
///     discovery rate across the run (``FalseDiscoveryRate``), is at most
///     alpha, and, for a series whose resolution raised its threshold, the
///     median also moved beyond the resolution; so 3 against 3 repetitions,
///     every new one worse than every base one by more than the threshold,
///     give p = 1/20 and are `worse` at 0.05 when the series is compared alone;
///   - `worse?` when every new repetition is worse than every base one by
///     more than the threshold (p at its smallest for these repetition
///     counts, and at most alpha) but the adjusted p-value is above alpha: as
///     clear a regression as these repetitions can show, which only more
///     repetitions can confirm (not judged). With overlapping repetitions
///     that do not pass the correction the verdict is `~`;
///   - `moved worse?` (not judged) when the median moved beyond the
///     threshold in the harmful direction, as measured and after the drift
///     correction, but no test confirmed it: a harmful move never passes
///     quietly (the 40 % drop of a noisy 5-against-5 series is not `~`);
///   - `same` when the interval lies within ±threshold (equivalence; the
///     declared threshold, never one a resolution raised);
///   - `~` (cannot tell: not shown equal) otherwise;
///   - `too few repetitions` (not judged) when even non-overlapping samples
///     could not reach alpha (2 against 3 at 0.05), or when a series read at
///     its usual level comes from a run that did not measure that level
///     (``missedItsUsualLevel``).
///   For a wake-up-bound time (``MetricComparisonRule/isWakeUpBound``) the
///   threshold is the larger of `threshold` and `wakeUpThreshold`.
/// - Exact metrics (``MetricComparisonRule/isExact``): medians only, no test;
///   any change in the bad direction is `worse`, in the good one `better`,
///   whatever the threshold; equal counts, or a change within the metric's
///   ``ExactTolerance`` (none by default), are `same`.
/// - Informational metrics: medians and change only, verdict `shown only`.
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
    /// Confidence interval of the shift (new minus base, after the machine
    /// drift correction) at `1 - 2·alpha`, as fractions of `|base median|`.
    public private(set) var interval: ClosedRange<Double>?
    /// The one-sided test of "worse by more than ``threshold``": the new
    /// repetitions against the base ones moved by the threshold in the
    /// harmful direction. Nil when no test was run.
    public private(set) var worseTest: MannWhitneyUTest?
    /// The one-sided test of "better by more than ``threshold``".
    public private(set) var betterTest: MannWhitneyUTest?
    /// ``worseTest``'s p-value adjusted for the false discovery rate across
    /// the series of the comparison (equal to it for a series compared alone).
    public private(set) var adjustedWorseP: Double?
    /// ``betterTest``'s p-value, adjusted likewise.
    public private(set) var adjustedBetterP: Double?
    /// The smallest one-sided p-value the repetition counts allow (nil when
    /// the series has no test by design).
    public private(set) var minimumPValue: Double?
    /// The threshold this series was judged against, as a fraction.
    public let threshold: Double
    /// The threshold the options declare for it (``CompareOptions/threshold``,
    /// or ``CompareOptions/wakeUpThreshold`` for a wake-up-bound time):
    /// ``threshold`` before a resolution raised it, and the bound of `same`.
    public let declaredThreshold: Double
    public private(set) var verdict: CompareVerdict
    /// Whether this verdict counts toward the exit status under the chosen gate.
    public let isGated: Bool
    /// The machine's drift factor the verdict was corrected for (new/base of
    /// the same run's anchors), when one applied.
    public let machineDrift: Double?
    /// Whether the interval lies within ±threshold, or every value is equal.
    private var isWithinThreshold: Bool
    /// Whether the median moved beyond the threshold in the harmful
    /// direction, as measured and after the drift correction.
    public private(set) var movedHarmfully: Bool
    /// Whether the median moved beyond the declared threshold in the harmful
    /// direction but not beyond the series' resolution: a move two runs of
    /// one binary on this machine make by chance, so not judged a change,
    /// and never `same`.
    public private(set) var movedWithinResolution = false
    /// Whether a series read at its usual level comes from a run that did
    /// not measure that level (``ResultFile/benchmarksMissingTheirUsualLevel``):
    /// not judged (`too few repetitions`), whatever else it shows.
    public private(set) var missedItsUsualLevel = false
    /// Whether the median moved beyond the threshold in the good direction,
    /// as measured and after the drift correction.
    private var movedBeneficially = false
    private let alpha: Double

    /// A gated `worse`.
    public var isRegression: Bool { verdict == .worse && isGated }

    /// A gated series that should have been judged but could not be.
    public var isGatedUnjudged: Bool { verdict.isUnjudged && isGated }

    /// The test in the direction the series moved (after the drift
    /// correction): ``betterTest`` when it moved the good way, else ``worseTest``.
    public var reportedTest: MannWhitneyUTest? {
        movedTheGoodWay ? betterTest : worseTest
    }

    /// ``reportedTest``'s adjusted p-value.
    public var reportedAdjustedP: Double? {
        movedTheGoodWay ? adjustedBetterP : adjustedWorseP
    }

    private var movedTheGoodWay: Bool {
        guard let worse = worseTest, let better = betterTest else { return false }
        return better.pValue < worse.pValue
    }

    /// Compares one key; at least one of `base` and `new` must be given. The
    /// verdict is that of the series tested alone; ``ComparisonReport``
    /// adjusts it for the run's other series.
    /// `missedUsualLevel`: whether either run did not measure the usual
    /// level of this series' benchmark (``ResultFile/benchmarksMissingTheirUsualLevel``).
    public init(
        base: ResultSeries?, new: ResultSeries?, options: CompareOptions, machineDrift: Double? = nil,
        missedUsualLevel: Bool = false
    ) {
        guard let any = base ?? new else {
            preconditionFailure("base or new must be given")
        }
        key = any.key
        unit = base?.unit ?? any.unit
        rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
        baseValues = base?.values
        newValues = new?.values
        isGated = options.gate == .all || rule.isExact
        alpha = options.alpha
        declaredThreshold = SeriesVerdicts.threshold(rule: rule, options: options)
        threshold = SeriesVerdicts.threshold(
            declared: declaredThreshold, resolution: options.resolution?.resolution(of: key), rule: rule)
        // The machine's drift may only excuse a change, never make one: a
        // series is worse (or better) only if it is so both as measured and
        // corrected for the drift (an intersection-union test, whose p-value
        // is the larger of the two). So anchors that moved against the library
        // (a peer's lateness fell while the library's rose, a peer sped up
        // while the library stayed) cannot turn an unchanged series into a
        // regression, and wake-up-bound times, which do not always move with
        // their anchors, get the correction only where it agrees.
        let judgedDrift = SeriesVerdicts.drift(rule: rule, machineDrift: machineDrift)
        self.machineDrift = judgedDrift
        // A benchmark read at its usual level is judged on it throughout:
        // medians, change, tests and interval (`baseValues` and `newValues`
        // keep every repetition, for the counts and spreads shown).
        let seriesRule = rule
        let judgedBase = base.map { seriesRule.judgedValues($0.values) }
        let judgedNew = new.map { seriesRule.judgedValues($0.values) }
        let baseMedian = judgedBase.flatMap { Statistics.median($0) }
        let newMedian = judgedNew.flatMap { Statistics.median($0) }
        self.baseMedian = baseMedian
        self.newMedian = newMedian
        interval = nil
        worseTest = nil
        betterTest = nil
        minimumPValue = nil
        isWithinThreshold = false
        movedHarmfully = false

        guard let base = judgedBase, let new = judgedNew else {
            change = nil
            verdict = SeriesVerdicts.oneSided(inBase: base != nil, rule: rule)
            return
        }
        guard let baseMedian, let newMedian else {
            change = nil
            verdict = .noValues
            return
        }
        change = SeriesVerdicts.relativeChange(base: baseMedian, new: newMedian)

        if rule.preference == .informational {
            verdict = .informational
            return
        }
        if rule.isExact {
            let tolerance = SeriesVerdicts.exactTolerance(
                metric: key.metric, benchmark: key.benchmark, kind: rule.kind, baseMedian: baseMedian, newMedian: newMedian,
                options: options)
            verdict = SeriesVerdicts.exact(baseMedian: baseMedian, newMedian: newMedian, tolerance: tolerance, rule: rule)
            return
        }
        if MachineDrift.isAnchor(variant: key.variant) {
            // Peers and the reference measure the machine, not this project.
            verdict = .informational
            return
        }

        let repetitions = SeriesVerdicts.repetitionsSuffice(
            m: base.count, n: new.count, alpha: options.alpha)
        minimumPValue = repetitions.minimumP
        // A run that spent most of its repetitions at the machine's slower
        // levels did not measure the usual level (``ResultFile/benchmarksMissingTheirUsualLevel``).
        missedItsUsualLevel = seriesRule.readsUsualLevel && missedUsualLevel
        guard repetitions.suffice, !missedItsUsualLevel else {
            verdict = .tooFewRepetitions
            return
        }

        // Judge against the machine: new values as if the machine had not drifted.
        let corrected = SeriesVerdicts.corrected(new, drift: judgedDrift)
        let scale = abs(baseMedian)
        // The tests ask whether the repetitions show a change beyond the
        // declared threshold; whether it is beyond what two runs of one binary
        // do by chance is the resolution's question, asked of the medians
        // below (``SeriesVerdicts/tested``). A resolution is a bound on how
        // far the medians of two runs move apart, not on how far one run's
        // repetitions sit from another's, so moving every repetition by it
        // (as the tests did until the usual level) asked for the resolution
        // twice: a real 20 % slowdown beyond a 14 % resolution reached
        // p = 0.001, short of what the correction across a run's hundred
        // series asks.
        let tests = SeriesVerdicts.thresholdTests(
            base: base, new: new, corrected: corrected,
            shift: declaredThreshold * scale, preference: rule.preference)
        worseTest = tests.worse
        betterTest = tests.better
        // Sameness of a wake-up-bound time is read as measured: its anchors do
        // not reliably move with it, so the correction may not make it "same".
        // `same` keeps the declared threshold: a move the resolution cannot
        // tell from the machine's noise is not shown equal (`~`).
        let equivalence = SeriesVerdicts.equivalence(
            base: base, new: rule.isWakeUpBound ? new : corrected ?? new, scale: scale,
            threshold: declaredThreshold, alpha: options.alpha)
        interval = equivalence.interval
        isWithinThreshold = equivalence.isWithinThreshold
        // As in the tests, the drift may excuse a move (every anchor moved as
        // much), never create one.
        let correctedChange = corrected.flatMap { Statistics.median($0) }.flatMap {
            SeriesVerdicts.relativeChange(base: baseMedian, new: $0)
        }
        movedHarmfully = SeriesVerdicts.movedHarmfully(
            change: change, correctedChange: correctedChange, threshold: threshold, preference: rule.preference)
        movedBeneficially = SeriesVerdicts.movedHarmfully(
            change: change, correctedChange: correctedChange, threshold: threshold,
            preference: rule.preference.reversed)
        movedWithinResolution = !movedHarmfully && threshold > declaredThreshold
            && SeriesVerdicts.movedHarmfully(
                change: change, correctedChange: correctedChange, threshold: declaredThreshold,
                preference: rule.preference)
        verdict = .cannotTell
        decide(adjustedWorseP: tests.worse.pValue, adjustedBetterP: tests.better.pValue)
    }

    /// Sets the verdict of a tested series from its p-values adjusted across
    /// the run's series (see ``FalseDiscoveryRate``).
    mutating func decide(adjustedWorseP: Double?, adjustedBetterP: Double?) {
        guard let worseTest, let adjustedWorseP, let adjustedBetterP else { return }
        self.adjustedWorseP = adjustedWorseP
        self.adjustedBetterP = adjustedBetterP
        if rule.isProcessBound {
            verdict = SeriesVerdicts.processBound(isWithinThreshold: isWithinThreshold, movedHarmfully: movedHarmfully)
            return
        }
        verdict = SeriesVerdicts.tested(
            worseTest: worseTest, betterTest: betterTest, adjustedWorseP: adjustedWorseP,
            adjustedBetterP: adjustedBetterP,
            isWithinThreshold: isWithinThreshold, movedHarmfully: movedHarmfully,
            movedBeneficially: movedBeneficially, raisedByResolution: threshold > declaredThreshold, alpha: alpha)
    }
}
