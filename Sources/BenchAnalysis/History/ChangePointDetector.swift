import Foundation
import ToolSupport

/// Finds the change points of one ``HistorySeries``.
///
/// **Timings** go through binary segmentation with a significance test at
/// each step, the scheme of E-Divisive and of Apache Otava with the
/// least-squares cost and a rank test in place of the permutation test:
///
/// 1. Each revision is one point, the median of its runs' log summaries
///    (a run of one binary cannot hold a change of the code, so runs of one
///    revision are replicates, never two sides of a change).
/// 2. ``BinarySegmentation`` proposes splits, the largest drop of the
///    squared error first.
/// 3. A proposed split stands when the medians of the runs on its two sides
///    (within the segment it splits) differ by more than the series' limit,
///    and the two-sided Mann-Whitney test of those runs (compare's
///    ``MannWhitneyUTest``) gives p at most alpha. The limit is the larger of
///    the threshold (compare's `--threshold`, `--wakeup-threshold` for
///    wake-up-bound times) and the series' noise band: how far the medians
///    of two runs of one binary drift apart by chance, `exp(z·√2·s) - 1`
///    with `s` the series' robust spread (``noiseSpread(of:)``) and `z` the
///    normal quantile at `1 - alpha/2`.
/// 4. A split beyond the limit right before the series' newest revision,
///    when that revision holds the newest run read, whose sides have too few
///    runs for the test ever to reach alpha (one run after a change) stands
///    as ``ChangePoint/Evidence/unconfirmed``: more runs of the newest
///    revision judge it.
/// 5. The first split that falls short (within the limit, not significant,
///    or untestable anywhere else) ends the series' segmentation.
/// 6. Across every series analysed together, a confirmed split stands only
///    when its test's p, adjusted by Benjamini-Hochberg over every test made
///    in every series (compare's ``FalseDiscoveryRate``; a split that stopped
///    within the limit counts as a test with p = 1), is at most alpha:
///    hundreds of series tested at alpha each would otherwise show changes
///    in a history of one binary.
///
/// A series with a value of 0 or less is segmented on its values, its
/// threshold then a fraction of the level before each split.
///
/// A change point's levels and the interval of its shift come from the runs
/// between it and its neighbouring change points; its `p` is that of the
/// test that accepted it (the runs on either side within the segment it split).
///
/// **Exact counts** change wherever a revision's value differs from the
/// level before by more than its tolerance (compare's exact tolerance;
/// instructions within ``MetricKind/instructionTolerance`` of the level).
package struct ChangePointDetector: Sendable {
    /// The level of each test; the interval is at `1 - 2·alpha`.
    let alpha: Double
    /// The newest run's file: only a series whose newest revision holds it
    /// can have an unconfirmed change point (step 4).
    let newestRun: String?

    init(alpha: Double, newestRun: String?) {
        precondition(alpha > 0 && alpha < 0.5, "alpha must lie strictly between 0 and 0.5")
        self.alpha = alpha
        self.newestRun = newestRun
    }

    /// What the first phase found in one series: the splits it accepted at
    /// `alpha` and the p-value of every test it made (in order), for the
    /// false discovery rate across every series.
    struct Segmentation: Sendable {
        let series: HistorySeries
        let splits: [AcceptedSplit]
        let pValues: [Double]
    }

    /// Phase one for `series`: the splits of its timing's segmentation with
    /// their tests, none for an exact count (``changePoints(of:keeping:)``
    /// finds those).
    func segment(_ series: HistorySeries) -> Segmentation {
        guard series.points.count >= 2, case .timing(let threshold) = series.kind.measure else {
            return Segmentation(series: series, splits: [], pValues: [])
        }
        return timingSegmentation(of: series, threshold: threshold)
    }

    /// The change points of `segmentation`'s series: for a timing, its
    /// accepted splits that `keeps` (the false discovery rate across every
    /// series: a confirmed split's index into ``Segmentation/pValues``, its
    /// adjusted p); for an exact count, every move beyond its tolerance.
    func changePoints(
        of segmentation: Segmentation, keeping keeps: (_ testIndex: Int) -> Double? = { _ in nil }
    ) -> [ChangePoint] {
        let series = segmentation.series
        guard series.points.count >= 2 else { return [] }
        switch series.kind.measure {
        case .exact(let absolute, let relative):
            return exactChangePoints(of: series, absolute: absolute, relative: relative)
        case .timing:
            let kept = segmentation.splits.compactMap { split -> (AcceptedSplit, Double?)? in
                guard let index = split.testIndex else { return (split, nil) }
                guard let q = keeps(index) else {
                    return FalseDiscoveryRate.isSignificant(segmentation.pValues[index], at: alpha) ? (split, nil) : nil
                }
                return FalseDiscoveryRate.isSignificant(q, at: alpha) ? (split, q) : nil
            }
            return describe(series, splits: kept)
        }
    }

    /// The change points of one series alone (every test at `alpha`, no
    /// adjustment across series).
    func changePoints(of series: HistorySeries) -> [ChangePoint] {
        changePoints(of: segment(series))
    }

    // MARK: Timings

    /// The value a timing is segmented on: the logarithm when every run
    /// summary is positive (a change is a ratio), else the value itself.
    static func scale(of series: HistorySeries) -> (Double) -> Double {
        let positive = series.points.allSatisfy { $0.runValues.allSatisfy { $0 > 0 } }
        return positive ? { log($0) } : { $0 }
    }

    /// One value per point: the median of its runs' scaled summaries.
    static func pointValues(of series: HistorySeries) -> [Double] {
        let scaled = scale(of: series)
        return series.points.map { Statistics.median($0.runValues.map(scaled)) ?? 0 }
    }

    /// The spread `s` of one run's summary on the segmentation's scale,
    /// robustly: the smaller of two estimates, each the median absolute
    /// difference over `0.6745·√2` (a normal spread's median absolute
    /// difference of two draws), each wanting three differences: of runs of
    /// one revision (what one binary's runs differ by, inflated where a
    /// revision's runs fall into two levels of a process-bound benchmark) and
    /// of successive runs in order (inflated by the changes themselves).
    /// 0 with neither.
    static func noiseSpread(of series: HistorySeries) -> Double {
        let scaled = scale(of: series)
        var withinRevision: [Double] = []
        for point in series.points where point.runValues.count > 1 {
            let values = point.runValues.map(scaled)
            for first in 0..<(values.count - 1) {
                for second in (first + 1)..<values.count {
                    withinRevision.append(abs(values[first] - values[second]))
                }
            }
        }
        let runs = series.points.flatMap { $0.runValues.map(scaled) }
        let successive = zip(runs, runs.dropFirst()).map { abs($1 - $0) }
        let estimates = [withinRevision, successive].compactMap { differences -> Double? in
            guard differences.count >= 3, let median = Statistics.median(differences) else { return nil }
            return median / (0.6745 * 2.0.squareRoot())
        }
        return estimates.min() ?? 0
    }

    /// The noise band on the segmentation's scale: `z·√2·s`, `z` the normal
    /// quantile at `1 - alpha/2`: how far the medians of two runs of one
    /// binary drift apart by chance in all but alpha of the pairs.
    func noiseBand(of series: HistorySeries) -> Double {
        let z = HodgesLehmannInterval.standardNormalQuantile(1 - alpha / 2)
        return z * 2.0.squareRoot() * Self.noiseSpread(of: series)
    }

    /// Whether the medians `left` and `right` (on the segmentation's scale)
    /// differ by more than the larger of the noise band and the threshold:
    /// on the log scale `log(1 + threshold)`, else `threshold` times the
    /// level before.
    func movesBeyondLimit(
        _ left: Double, _ right: Double, band: Double, threshold: Double, logarithmic: Bool
    ) -> Bool {
        let thresholdMove = logarithmic ? log(1 + threshold) : threshold * abs(left)
        return abs(right - left) > max(band, thresholdMove)
    }

    /// A split that stands: where, how sure, and the segment it split.
    struct AcceptedSplit: Sendable, Equatable {
        /// Index of the first point after the change.
        let split: Int
        let evidence: ChangePoint.Evidence
        /// The segment the split was tested in: its runs on either side of
        /// `split` are the two samples of the test.
        let segment: Range<Int>
        /// Its test's index in ``Segmentation/pValues`` (nil when untestable).
        let testIndex: Int?
    }

    /// The splits accepted at `alpha`, in order of position, and every test made (see the type's comment).
    func timingSegmentation(of series: HistorySeries, threshold: Double) -> Segmentation {
        let scaled = Self.scale(of: series)
        let logarithmic = series.points.allSatisfy { $0.runValues.allSatisfy { $0 > 0 } }
        let band = noiseBand(of: series)
        let steps = BinarySegmentation(Self.pointValues(of: series)).steps(limit: series.points.count - 1)
        var accepted: [AcceptedSplit] = []
        var pValues: [Double] = []
        for step in steps {
            let left = series.points[step.segment.lowerBound..<step.split].flatMap { $0.runValues.map(scaled) }
            let right = series.points[step.split..<step.segment.upperBound].flatMap { $0.runValues.map(scaled) }
            guard let leftMedian = Statistics.median(left), let rightMedian = Statistics.median(right),
                movesBeyondLimit(leftMedian, rightMedian, band: band, threshold: threshold, logarithmic: logarithmic)
            else {
                // A move within the limit is a test that did not reject: it
                // counts in the false discovery rate's family as p = 1.
                pValues.append(1)
                break
            }
            let floor = MannWhitneyUTest.minimumAchievablePValue(m: left.count, n: right.count, alternative: .twoSided)
            if !FalseDiscoveryRate.isSignificant(floor, at: alpha) {
                // Untestable: only the newest revision may wait for more runs.
                guard step.split == series.points.count - 1, let newestRun,
                    series.points[step.split].runPaths.contains(newestRun)
                else { break }
                accepted.append(
                    AcceptedSplit(split: step.split, evidence: .unconfirmed, segment: step.segment, testIndex: nil))
                continue
            }
            let test = MannWhitneyUTest(left, right, alternative: .twoSided)
            pValues.append(test.pValue)
            guard FalseDiscoveryRate.isSignificant(test.pValue, at: alpha) else { break }
            accepted.append(
                AcceptedSplit(split: step.split, evidence: .confirmed, segment: step.segment, testIndex: pValues.count - 1))
        }
        return Segmentation(series: series, splits: accepted.sorted { $0.split < $1.split }, pValues: pValues)
    }

    /// Each accepted split: its levels and the interval of its shift from
    /// the runs between it and its neighbouring change points; `p` and the
    /// runs on either side from the test that accepted it (within the
    /// segment it split).
    private func describe(_ series: HistorySeries, splits: [(AcceptedSplit, Double?)]) -> [ChangePoint] {
        let boundaries = [0] + splits.map(\.0.split) + [series.points.count]
        return splits.enumerated().map { index, kept in
            let (accepted, q) = kept
            let left = series.points[accepted.segment.lowerBound..<accepted.split].flatMap(\.runValues)
            let right = series.points[accepted.split..<accepted.segment.upperBound].flatMap(\.runValues)
            let levelBefore = series.points[boundaries[index]..<accepted.split].flatMap(\.runValues)
            let levelAfter = series.points[accepted.split..<boundaries[index + 2]].flatMap(\.runValues)
            let before = Statistics.median(levelBefore) ?? 0
            let after = Statistics.median(levelAfter) ?? 0
            var interval: ClosedRange<Double>?
            if before != 0, let shift = HodgesLehmannInterval(levelBefore, levelAfter, confidence: 1 - 2 * alpha) {
                interval = (shift.lower / abs(before))...(shift.upper / abs(before))
            }
            return ChangePoint(
                position: accepted.split, revisionBefore: series.points[accepted.split - 1].revision,
                revisionAfter: series.points[accepted.split].revision, before: before, after: after,
                interval: interval, pValue: MannWhitneyUTest(left, right, alternative: .twoSided).pValue, qValue: q,
                evidence: accepted.evidence, isHarmful: series.kind.isHarmful(from: before, to: after),
                runsBefore: left.count, runsAfter: right.count)
        }
    }

    // MARK: Exact counts

    private func exactChangePoints(of series: HistorySeries, absolute: Double, relative: Double) -> [ChangePoint] {
        let values = series.points.map { Statistics.median($0.runValues) ?? 0 }
        var changes: [(position: Int, before: Double)] = []
        var level = values[0]
        for (position, value) in values.enumerated().dropFirst() {
            let tolerance = max(absolute, relative * abs(level))
            if abs(value - level) > tolerance * (1 + 1e-9) {
                changes.append((position, level))
                level = value
            }
        }
        let boundaries = [0] + changes.map(\.position) + [values.count]
        return changes.enumerated().map { index, change in
            let after = values[change.position]
            let runsBefore = series.points[boundaries[index]..<change.position].reduce(0) { $0 + $1.runValues.count }
            let runsAfter = series.points[change.position..<boundaries[index + 2]].reduce(0) { $0 + $1.runValues.count }
            return ChangePoint(
                position: change.position, revisionBefore: series.points[change.position - 1].revision,
                revisionAfter: series.points[change.position].revision, before: change.before, after: after,
                interval: nil, pValue: nil, qValue: nil, evidence: .exact,
                isHarmful: series.kind.isHarmful(from: change.before, to: after),
                runsBefore: runsBefore, runsAfter: runsAfter)
        }
    }
}
