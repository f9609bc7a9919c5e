/// Every pair of series of two result files, compared: the whole outcome of
/// `BenchRunner compare` before it is formatted.
///
/// Each series' evidence is first gathered alone (``SeriesComparison``);
/// then the p-values of every tested series are adjusted together
/// (``FalseDiscoveryRate``, Benjamini–Hochberg), so that two runs of one
/// revision come out without a regression although they have a hundred
/// series; and the scale sweeps are read as a whole (``GrowthComparison``).
/// ``VerdictTable`` turns that evidence into each series' verdict and the
/// exit status.
package struct ComparisonReport: Sendable {
    /// The base file as given.
    let basePath: String
    /// The new file as given.
    let newPath: String
    /// The options the series were judged under.
    let options: CompareOptions
    /// Series of the base file in its order, then series only in the new file in theirs.
    let comparisons: [SeriesComparison]

    /// Pairs the series of `base` and `new`. Throws when a pair's units
    /// differ: comparing nanoseconds with microseconds would be a silent wrong
    /// answer.
    init(base: ResultFile, new: ResultFile, options: CompareOptions) throws(CompareInputError) {
        basePath = base.path
        newPath = new.path
        // Two runs of one CPU model are judged by its calibration where it has one.
        var options = options
        options.resolution = options.resolution?.onMachine(base: base.facts.cpu, new: new.facts.cpu)
        self.options = options
        var newByKey: [ResultSeriesKey: ResultSeries] = [:]
        for series in new.series {
            newByKey[series.key] = series
        }
        let drift = MachineDrift(base: base.series, newByKey: newByKey)
        let missed = base.benchmarksMissingTheirUsualLevel.union(new.benchmarksMissingTheirUsualLevel)
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
                    machineDrift: drift.factor(for: series.key), missedUsualLevel: missed.contains(series.key.benchmark)))
        }
        for series in new.series where !baseKeys.contains(series.key) {
            comparisons.append(SeriesComparison(base: nil, new: series, options: options))
        }
        // Control the false discovery rate across every tested series: the
        // "worse" claims form one family, the "better" claims another.
        let tested = comparisons.indices.filter { comparisons[$0].worseTest != nil }
        let worse = FalseDiscoveryRate.benjaminiHochbergAdjusted(tested.map { comparisons[$0].worseTest?.pValue ?? 1 })
        let better = FalseDiscoveryRate.benjaminiHochbergAdjusted(
            tested.map { comparisons[$0].betterTest?.pValue ?? 1 })
        for (position, index) in tested.enumerated() {
            comparisons[index].correctAcrossRun(adjustedWorseP: worse[position], adjustedBetterP: better[position])
        }
        testedCount = tested.count
        self.comparisons = comparisons
        baseReferences = ReferenceBound.assess(base.series)
        newReferences = ReferenceBound.assess(new.series)
        growth = GrowthComparison(base: base, new: new, threshold: options.threshold, resolution: options.resolution)
    }

    /// The scale sweeps read as a whole: whether a sweep's growth changed.
    let growth: GrowthComparison

    /// The base file's references: their spread, and whether each is a
    /// stable bound for the library's series beside it (``ReferenceBound``).
    let baseReferences: [ReferenceBound]
    /// The new file's references, likewise.
    let newReferences: [ReferenceBound]

    /// How many series were tested and so share the false-discovery correction.
    let testedCount: Int

    /// Gated regressions.
    var regressions: [SeriesComparison] { comparisons.filter(\.isRegression) }

    /// Series that should have been judged but could not be (gated or not).
    var unjudged: [SeriesComparison] { comparisons.filter(\.verdict.isUnjudged) }

    /// How many series a lone regression competes with in the correction:
    /// the tested series plus those that had too few repetitions to be tested.
    var judgeableCount: Int { testedCount + count(of: .tooFewRepetitions) }

    /// The fewest repetitions a side with which a single series, every new
    /// repetition worse than every base one beyond the threshold, is `worse`
    /// even when every other of the ``judgeableCount`` series is unchanged.
    var repetitionsForALoneChange: Int? {
        MannWhitneyUTest.repetitionsNeeded(forOneSidedLevel: options.alpha / Double(max(1, judgeableCount)))
    }

    /// The fewest repetitions a side with which a series can be judged at all
    /// (3 at alpha 0.05).
    var repetitionsForAnyVerdict: Int? {
        MannWhitneyUTest.repetitionsNeeded(forOneSidedLevel: options.alpha)
    }

    /// What decides the exit status, for ``VerdictTable/exitStatus(for:)``.
    var runEvidence: VerdictTable.RunEvidence {
        VerdictTable.RunEvidence(
            gatedWorse: regressions.count, gatedWorseGrowth: growth.hasWorseGrowth && options.gate == .all,
            gatedUnjudged: comparisons.filter(\.isGatedUnjudged).count)
    }

    /// The exit status ``VerdictTable`` gives this run: 1 for a gated
    /// regression (a series or, under `--gate all`, a sweep's growth); else 3
    /// when a gated series could not be judged; else 0.
    var exitStatus: CompareExitStatus {
        VerdictTable.exitStatus(for: runEvidence)
    }

    /// How many series got each verdict.
    func count(of verdict: CompareVerdict) -> Int {
        comparisons.reduce(0) { $0 + ($1.verdict == verdict ? 1 : 0) }
    }
}
