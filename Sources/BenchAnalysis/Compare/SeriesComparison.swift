import ToolSupport

/// One series (benchmark, variant, params, metric, allocator) of a base and
/// a new result file, and the evidence gathered about it.
///
/// - Timing series: the two medians, their change relative to the base
///   median, and two one-sided ``MannWhitneyUTest``s of the new repetitions
///   against the base ones moved by the declared threshold ("worse by more
///   than the threshold" in the metric's harmful direction, and "better by
///   more than it"); the ``HodgesLehmannInterval`` of the shift at
///   `1 - 2·alpha` (each bound a one-sided `1 - alpha` bound, the level of
///   the tests), in fractions of the base median; whether the median moved
///   beyond the threshold (raised by the series' resolution, if any, and for
///   a count of chance events by its chance move,
///   ``EvidenceSteps/chanceCountMove(metric:baseMedian:newMedian:)``) in the
///   harmful or the good direction. For a wake-up-bound time
///   (``MetricComparisonRule/isWakeUpBound``) the threshold is the larger of
///   `threshold` and `wakeUpThreshold`.
/// - Exact counts (``MetricComparisonRule/isExact``): medians and whether
///   they differ beyond the count's tolerance (``ExactTolerance``, the
///   benchmark's, the instruction tolerance, or the CSV's rounding).
/// - Machine drift: the peers and references measured in the same run
///   (variants `peer.*`, `reference.*`) run code this project does not
///   change, so their common change between the two files is the machine's
///   (``MachineDrift``). The library's CPU-bound times are tested both as
///   measured and after dividing the new values by that factor, and must
///   agree: the drift may excuse a change, never make one. Wake-up-bound
///   times are shown equal only as measured, since their anchors do not
///   reliably move with them. `change` stays the raw change of the medians.
///
/// ``evidence`` states what was found; ``VerdictTable`` alone maps it to
/// ``verdict``. ``ComparisonReport`` adjusts the p-values across the run.
package struct SeriesComparison: Sendable {
    /// The series compared.
    let key: ResultSeriesKey
    /// The `unit` column (the base file's when both have the series).
    let unit: String
    let rule: MetricComparisonRule
    /// Values in the base file; nil when the series is not there.
    let baseValues: [Double]?
    /// Values in the new file; nil when the series is not there.
    let newValues: [Double]?
    /// The median of the base values the series is judged on (for a series
    /// read at its usual level, those at that level); nil when there are none.
    let baseMedian: Double?
    /// The median of the new values, likewise.
    let newMedian: Double?
    /// `(new median - base median) / |base median|`; nil when the base median
    /// is zero and the new one is not, or when a side has no values.
    let change: Double?
    /// Confidence interval of the shift (new minus base, after the machine
    /// drift correction) at `1 - 2·alpha`, as fractions of `|base median|`.
    private(set) var interval: ClosedRange<Double>?
    /// The one-sided test of "worse by more than ``threshold``": the new
    /// repetitions against the base ones moved by the threshold in the
    /// harmful direction. Nil when no test was run.
    private(set) var worseTest: MannWhitneyUTest?
    /// The one-sided test of "better by more than ``threshold``".
    private(set) var betterTest: MannWhitneyUTest?
    /// ``worseTest``'s p-value adjusted for the false discovery rate across
    /// the series of the comparison (equal to it for a series compared alone).
    private(set) var adjustedWorseP: Double?
    /// ``betterTest``'s p-value, adjusted likewise.
    private(set) var adjustedBetterP: Double?
    /// The smallest one-sided p-value the repetition counts allow (nil when
    /// the series has no test by design).
    private(set) var minimumPValue: Double?
    /// The threshold this series was judged against, as a fraction.
    let threshold: Double
    /// The threshold the options declare for it (``CompareOptions/threshold``,
    /// or ``CompareOptions/wakeUpThreshold`` for a wake-up-bound time):
    /// ``threshold`` before a resolution raised it, and the bound of `same`.
    let declaredThreshold: Double
    /// The verdict: ``VerdictTable``'s row for ``evidence``.
    var verdict: CompareVerdict { VerdictTable.verdict(for: evidence) }
    /// Whether this verdict counts toward the exit status under the chosen gate.
    let isGated: Bool
    /// The machine's drift factor the verdict was corrected for (new/base of
    /// the same run's anchors), when one applied.
    let machineDrift: Double?
    /// Whether the interval lies within ±threshold, or every value is equal.
    private var isWithinThreshold: Bool
    /// Whether the median moved beyond the threshold in the harmful
    /// direction, as measured and after the drift correction.
    private(set) var movedHarmfully: Bool
    /// Whether the median moved beyond the declared threshold in the harmful
    /// direction but not beyond the series' resolution: a move two runs of
    /// one binary on this machine make by chance, so not judged a change,
    /// and never `same`.
    private(set) var movedWithinResolution = false
    /// Whether a series read at its usual level comes from a run that did
    /// not measure that level (``ResultFile/benchmarksMissingTheirUsualLevel``):
    /// not judged (`too few repetitions`), whatever else it shows.
    private(set) var missedItsUsualLevel = false
    /// For a series that ``missedItsUsualLevel`` because a run's median sits
    /// beyond the level its CPU model's calibration runs measured (rather
    /// than a run that kept too few repetitions at its own), the factor.
    private(set) var factorBeyondCalibratedLevel: Double?
    /// For a series read at its usual level, the level the calibration runs
    /// of the compared runs' CPU model measured, when there is one
    /// (``ResolutionTable/calibratedLevel(of:repetitions:)``): both runs'
    /// repetitions are judged with it.
    let calibratedLevel: Double?
    /// How many of each run's repetitions were judged
    /// (``MetricComparisonRule/judgedValues(_:calibratedLevel:)``; all of
    /// them for a series not read at its usual level), 0 for a run without
    /// the series.
    let judgedRepetitions: (base: Int, new: Int)
    /// Whether the median moved beyond the threshold in the good direction,
    /// as measured and after the drift correction.
    private var movedBeneficially = false
    private let alpha: Double
    /// Which files have the series.
    private let presence: SeriesEvidence.Presence
    /// How the series is read (``SeriesEvidence/Reading``).
    private let reading: SeriesEvidence.Reading
    /// For an exact count with values on both sides, how it moved.
    private var countChange: SeriesEvidence.CountChange?
    /// Whether even repetitions that do not overlap could reach alpha.
    private var repetitionsSuffice = true

    /// A gated `worse`.
    var isRegression: Bool { verdict == .worse && isGated }

    /// A gated series that should have been judged but could not be.
    var isGatedUnjudged: Bool { verdict.isUnjudged && isGated }

    /// A gated series that could not be judged and whose median moved
    /// beyond its threshold in the harmful direction, as measured and after
    /// the drift correction: `worse?`, `moved worse?`, and a `too few
    /// repetitions` (or not at the usual level) whose medians moved so. The
    /// summary's last line names these before saying how many could not be
    /// judged, so it never reads "No regression found" while one moved.
    var isSuspectedRegression: Bool {
        isGatedUnjudged && (verdict.isSuspectedRegression || movedHarmfully)
    }

    /// The test in the direction the series moved (after the drift
    /// correction): ``betterTest`` when it moved the good way, else ``worseTest``.
    var reportedTest: MannWhitneyUTest? {
        movedTheGoodWay ? betterTest : worseTest
    }

    /// ``reportedTest``'s adjusted p-value.
    var reportedAdjustedP: Double? {
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
    init(
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
        declaredThreshold = EvidenceSteps.threshold(rule: rule, options: options)
        // The machine's drift may only excuse a change, never make one: a
        // series is worse (or better) only if it is so both as measured and
        // corrected for the drift (an intersection-union test, whose p-value
        // is the larger of the two). So anchors that moved against the library
        // (a peer's lateness fell while the library's rose, a peer sped up
        // while the library stayed) cannot turn an unchanged series into a
        // regression, and wake-up-bound times, which do not always move with
        // their anchors, get the correction only where it agrees.
        let judgedDrift = EvidenceSteps.drift(rule: rule, machineDrift: machineDrift)
        self.machineDrift = judgedDrift
        // A benchmark read at its usual level is judged on it throughout:
        // medians, change, tests and interval (`baseValues` and `newValues`
        // keep every repetition, for the counts and spreads shown).
        // A run's fast tail is read against the level its CPU model's
        // calibration runs measured (``MetricComparisonRule/judgedValues(_:calibratedLevel:)``).
        let seriesRule = rule
        let repetitionCount = max(base?.values.count ?? 0, new?.values.count ?? 0)
        let level = options.resolution?.calibratedLevel(of: key, repetitions: repetitionCount)
        calibratedLevel = level
        let judgedBase = base.map { seriesRule.judgedValues($0.values, calibratedLevel: level) }
        let judgedNew = new.map { seriesRule.judgedValues($0.values, calibratedLevel: level) }
        judgedRepetitions = (judgedBase?.count ?? 0, judgedNew?.count ?? 0)
        let baseMedian = judgedBase.flatMap { Statistics.median($0) }
        let newMedian = judgedNew.flatMap { Statistics.median($0) }
        self.baseMedian = baseMedian
        self.newMedian = newMedian
        threshold = EvidenceSteps.threshold(
            declared: declaredThreshold,
            resolution: options.resolution?.resolution(of: key, repetitions: repetitionCount),
            rule: rule,
            chanceCountMove: EvidenceSteps.chanceCountMove(metric: key.metric, baseMedian: baseMedian, newMedian: newMedian))
        interval = nil
        worseTest = nil
        betterTest = nil
        minimumPValue = nil
        isWithinThreshold = false
        movedHarmfully = false

        presence = base == nil ? .newOnly : new == nil ? .baseOnly : .both
        reading =
            if rule.preference == .informational {
                .shownOnly
            } else if rule.isExact {
                .exactCount
            } else if MachineDrift.isAnchor(variant: key.variant) {
                .anchorTime
            } else if rule.isProcessBound {
                .processBoundTime
            } else {
                .time
            }
        guard let base = judgedBase, let new = judgedNew, let baseMedian, let newMedian else {
            change = nil
            return
        }
        change = EvidenceSteps.relativeChange(base: baseMedian, new: newMedian)

        switch reading {
        case .shownOnly, .anchorTime:
            return
        case .exactCount:
            let tolerance = EvidenceSteps.exactTolerance(
                metric: key.metric, benchmark: key.benchmark, kind: rule.kind, baseMedian: baseMedian, newMedian: newMedian,
                options: options)
            countChange = EvidenceSteps.countChange(
                baseMedian: baseMedian, newMedian: newMedian, tolerance: tolerance, rule: rule)
            return
        case .time, .processBoundTime:
            break
        }

        let repetitions = EvidenceSteps.repetitionsSuffice(m: base.count, n: new.count, alpha: options.alpha)
        minimumPValue = repetitions.minimumP
        repetitionsSuffice = repetitions.suffice
        // A run that spent most of its repetitions at the machine's slower
        // levels did not measure the usual level (``ResultFile/benchmarksMissingTheirUsualLevel``).
        // A run the slow level held throughout reads as at its own usual
        // level; the calibration runs of its CPU model tell
        // (``ResolutionTable/factorBeyondCalibratedLevel(of:median:repetitions:)``).
        if !missedUsualLevel, let table = options.resolution {
            factorBeyondCalibratedLevel = [baseMedian, newMedian].compactMap {
                table.factorBeyondCalibratedLevel(of: key, median: $0, repetitions: repetitionCount)
            }.max()
        }
        missedItsUsualLevel = seriesRule.readsUsualLevel && (missedUsualLevel || factorBeyondCalibratedLevel != nil)

        // Judge against the machine: new values as if the machine had not drifted.
        let corrected = EvidenceSteps.corrected(new, drift: judgedDrift)
        // As in the tests, the drift may excuse a move (every anchor moved as
        // much), never create one. Whether the median moved harmfully is
        // asked of every time, judged or not: a series too few repetitions
        // cannot judge still leads the summary when it moved
        // (``SeriesEvidence/medianMovedHarmfully``).
        let correctedChange = corrected.flatMap { Statistics.median($0) }.flatMap {
            EvidenceSteps.relativeChange(base: baseMedian, new: $0)
        }
        movedHarmfully = EvidenceSteps.movedHarmfully(
            change: change, correctedChange: correctedChange, threshold: threshold, preference: rule.preference)
        guard repetitions.suffice, !missedItsUsualLevel else { return }

        let scale = abs(baseMedian)
        // The tests ask whether the repetitions show a change beyond the
        // declared threshold. Whether it is beyond what two runs of one binary
        // do by chance is the resolution's question, asked of the medians
        // (``SeriesEvidence/confirmedWorse``): a resolution bounds how far the
        // medians of two runs move apart, not how far one run's repetitions
        // sit from another's, so the repetitions are not moved by it.
        let tests = EvidenceSteps.thresholdTests(
            base: base, new: new, corrected: corrected,
            shift: declaredThreshold * scale, preference: rule.preference)
        worseTest = tests.worse
        betterTest = tests.better
        adjustedWorseP = tests.worse.pValue
        adjustedBetterP = tests.better.pValue
        // Sameness of a wake-up-bound time is read as measured: its anchors do
        // not reliably move with it, so the correction may not make it "same".
        // `same` keeps the declared threshold: a move the resolution cannot
        // tell from the machine's noise is not shown equal (`~`).
        let equivalence = EvidenceSteps.equivalence(
            base: base, new: rule.isWakeUpBound ? new : corrected ?? new, scale: scale,
            threshold: declaredThreshold, alpha: options.alpha)
        interval = equivalence.interval
        isWithinThreshold = equivalence.isWithinThreshold
        movedBeneficially = EvidenceSteps.movedHarmfully(
            change: change, correctedChange: correctedChange, threshold: threshold,
            preference: rule.preference.reversed)
        movedWithinResolution = !movedHarmfully && threshold > declaredThreshold
            && EvidenceSteps.movedHarmfully(
                change: change, correctedChange: correctedChange, threshold: declaredThreshold,
                preference: rule.preference)
    }

    /// Sets the p-values adjusted for the false discovery rate across the
    /// run's tested series (``FalseDiscoveryRate``); until then they are the
    /// series' own, as if it were compared alone.
    mutating func correctAcrossRun(adjustedWorseP: Double, adjustedBetterP: Double) {
        guard worseTest != nil else { return }
        self.adjustedWorseP = adjustedWorseP
        self.adjustedBetterP = adjustedBetterP
    }

    /// What was found about this series, for ``VerdictTable``.
    var evidence: SeriesEvidence {
        var evidence = SeriesEvidence(presence: presence, reading: reading)
        evidence.hasValuesOnBothSides = baseMedian != nil && newMedian != nil
        evidence.countChange = countChange
        evidence.repetitionsCanReachAlpha = repetitionsSuffice
        evidence.measuredUsualLevel = !missedItsUsualLevel
        evidence.medianMovedHarmfully = movedHarmfully
        evidence.shownEqual = isWithinThreshold
        guard let worseTest, let adjustedWorseP, let adjustedBetterP else { return evidence }
        // Where a resolution raised the threshold, a change also needs the
        // median beyond it: both the repetitions and the medians must mislead
        // for a false alarm, so its rate is at most either's.
        let raised = threshold > declaredThreshold
        let worseMoved = !raised || movedHarmfully
        let betterMoved = !raised || movedBeneficially
        func separated(_ test: MannWhitneyUTest?) -> Bool {
            guard let test else { return false }
            return test.isCompleteSeparation && FalseDiscoveryRate.isSignificant(test.pValue, at: alpha)
        }
        evidence.confirmedWorse = worseMoved && FalseDiscoveryRate.isSignificant(adjustedWorseP, at: alpha)
        evidence.confirmedBetter = betterMoved && FalseDiscoveryRate.isSignificant(adjustedBetterP, at: alpha)
        evidence.separatedWorse = worseMoved && separated(worseTest)
        evidence.separatedBetter = betterMoved && separated(betterTest)
        return evidence
    }
}
