import ToolSupport

/// How `BenchRunner compare` judges one metric: which direction is better,
/// and whether its values are exact counts or noisy measurements.
///
/// The rule comes from the metric's declaration in ``CSVSchema`` (the table
/// of every metric BenchRunner writes), for its benchmark or else for any
/// benchmark: its ``MetricKind`` and polarity (``Metric/direction``). So a
/// metric is judged the way the code that writes it declares, and both
/// sides of the CSV contract read one table; a metric's name is never
/// parsed. A metric this BenchRunner does not declare (a file from another
/// version, a hand-made CSV) has no known kind: it is shown, not judged,
/// rather than guessed at.
///
/// Exact counts are deterministic (allocations counted by jemalloc; the depth
/// the trampoline is driven to; instructions counted by callgrind, within
/// ``MetricKind/instructionTolerance``), so any change in the bad direction is a
/// regression and no statistical test is needed; being exact, they can gate
/// CI, which timings cannot. Informational metrics describe the machine rather than
/// the code (the plain recursion limit) and get no verdict.
package struct MetricComparisonRule: Sendable, Equatable {
    /// Which direction of change is an improvement.
    enum Preference: String, Sendable {
        case higherIsBetter = "higher is better"
        case lowerIsBetter = "lower is better"
        /// Describes the machine or the run, not the code: shown, never judged.
        case informational = "informational"

        /// The opposite direction (informational stays informational): a
        /// move the reversed preference calls harmful is a gain.
        var reversed: Preference {
            switch self {
            case .higherIsBetter: return .lowerIsBetter
            case .lowerIsBetter: return .higherIsBetter
            case .informational: return .informational
            }
        }
    }

    /// The metric's name as written in the CSV `metric` column.
    let metric: String
    /// The declared kind; nil for a metric the schema does not declare.
    let kind: MetricKind?
    /// Which direction is better.
    let preference: Preference
    /// Exact counts are compared without a test: any change in the bad direction is worse.
    let isExact: Bool
    /// A time set by thread wake-ups and timers (``CSVSchema/isWakeUpBound(metric:variant:in:)``):
    /// judged against ``CompareOptions/wakeUpThreshold`` rather than ``CompareOptions/threshold``.
    let isWakeUpBound: Bool
    /// A time of a benchmark whose level is set by the process's state
    /// (``BenchmarkSchema/timesBoundToProcess``): one process's repetitions
    /// can show it `same` or `moved worse?`, never confirm `worse` or `better`.
    let isProcessBound: Bool
    /// A time of a benchmark read from the repetitions at each run's usual
    /// level (``BenchmarkSchema/readsUsualLevel``): its medians, tests and
    /// resolution are those of ``judgedValues(_:calibratedLevel:)``.
    let readsUsualLevel: Bool

    /// The rule for `metric` of `variant` in `benchmark`, from its declaration (see the type comment).
    init(metric: String, benchmark: String? = nil, variant: String? = nil) {
        self.metric = metric
        isWakeUpBound = benchmark.map { CSVSchema.isWakeUpBound(metric: metric, variant: variant ?? "", in: $0) } ?? false
        let declared = benchmark.flatMap { CSVSchema.metric(metric, in: $0) } ?? CSVSchema.metric(named: metric)
        kind = declared?.kind
        isProcessBound = declared?.kind == .measured
            && benchmark.flatMap { CSVSchema.benchmark(named: $0) }?.timesBoundToProcess == true
        readsUsualLevel = declared?.kind == .measured
            && benchmark.flatMap { CSVSchema.benchmark(named: $0) }?.readsUsualLevel == true
        guard let declared else {
            preference = .informational
            isExact = false
            return
        }
        let countsVary = declared.isExactCount
            && benchmark.flatMap { CSVSchema.benchmark(named: $0) }?.countsVary(for: variant ?? "") == true
        switch (declared.kind, countsVary) {
        case (.singleRunTail, _), (.informational, _), (_, true):
            // Shown, not judged: see `MetricKind.singleRunTail` and
            // `BenchmarkSchema.varyingCountVariants`.
            preference = .informational
            isExact = false
        case (.measured, false), (.wakeUpBound, false), (.allocations, false), (.allocatedBytes, false),
            (.exactCount, false), (.instructions, false):
            preference =
                switch declared.direction {
                case .higherIsBetter: .higherIsBetter
                case .lowerIsBetter: .lowerIsBetter
                case .informational: .informational
                }
            isExact = declared.isExactCount
        }
    }

    /// The share of `values` at the usual level (1 for a rule that does not
    /// ``readsUsualLevel``): those within ``BenchmarkSchema/usualLevelBand``
    /// of the twentieth-best one (the k-th best, k a twentieth of the
    /// repetitions rounded up: the best of up to 20, the second of 30, the
    /// third of 60; a time at most 1.25 times it, a rate at least it over
    /// 1.25; better ones count in). Whether a run measured its usual level
    /// is read from it (``ResultFile/benchmarksMissingTheirUsualLevel``).
    ///
    /// Not from the best alone: on a host whose hops run at one level with a
    /// fast tail (an Intel Xeon host), one lone repetition 20-40 % below the
    /// rest left a run that measured its level with a tenth of its
    /// repetitions in the band, so it timed its hops again, compare left
    /// them unjudged and calibrate left the run out. Not from the
    /// tenth-best, as the band: where the slow level is 1.5 times the usual
    /// one (an AMD EPYC host), a run that kept five of thirty repetitions at
    /// the usual level then reached the quarter with three of the slow
    /// level's fastest, and read as a run that measured it.
    func usualLevelShare(_ values: [Double]) -> Double {
        guard readsUsualLevel, preference != .informational, !values.isEmpty else { return 1 }
        let best = anchor(values, rank: (values.count + 19) / 20)
        guard best > 0 else { return 1 }
        return Double(values.filter { isWithinBand($0, of: best) }.count) / Double(values.count)
    }

    /// The repetitions a run's series is judged on: all of `values`, or for
    /// a rule that ``readsUsualLevel``, those at the fastest level that
    /// holds a quarter of them (``BenchmarkSchema/usualLevelMinimumShare``):
    /// within ``BenchmarkSchema/usualLevelBand`` of the run's tenth-best
    /// repetition (the k-th best, k a tenth of the repetitions rounded up:
    /// the best of up to 10, the third of 30), or, when fewer than a
    /// quarter are and the next-best lies within that band (a tail that
    /// runs on into the rest), of the next-best, and so on up to the first
    /// whose band keeps a quarter; better ones count in; in their order. A
    /// faster group set apart from the rest by more than the band stays
    /// the level however few it holds (such a run missed its usual level,
    /// ``usualLevelShare(_:)``).
    ///
    /// `calibratedLevel`: the level the calibration runs of the compared
    /// runs' CPU model measured for the series
    /// (``ResolutionTable/calibratedLevel(of:repetitions:)``), when there is
    /// one. Then a band that does not reach it (every repetition in it
    /// better than the level by more than the band) is a tail too, however
    /// many it keeps, and the band moves up in the same way, while the
    /// next-best lies within it, to the first that reaches the level and
    /// keeps a quarter. The level applies to a run whose median lies within
    /// the band of it either way: a run of a binary that times the series
    /// otherwise, or one changed by more than the band, is judged as
    /// without it, as is a run whose tenth-best is within the band of the
    /// level or worse than it; and the band only ever moves up, so no run
    /// reads better for the level.
    ///
    /// Not of the best one: on a host whose hops run at one level with a
    /// fast tail, one lucky repetition set the band so low that it kept
    /// only the run's fastest few, and a fast path made 20 % slower read as
    /// 14 %. Not of the tenth-best alone: on the same host (an Intel Xeon)
    /// three repetitions of thirty landed in that tail, 26 % below the
    /// rest, and the band of the third kept those and two more, so the run
    /// read 26 % faster than the eight other runs of its binary and the
    /// fast path's resolution there came out at 114 % (10 % now). A level
    /// must hold a quarter of a run's repetitions to count as measured, so
    /// a tail of fewer is not one. And a quarter is not enough where the
    /// level is known: in a later run on that host three repetitions at
    /// 25.6-28.2 ns and six of the level's fastest (32.3-34.7) made the
    /// band of the third a quarter, the run read 33.2 ns against a
    /// calibrated 37.6, and as a base it made six of the host's nine
    /// calibration runs a regression.
    func judgedValues(_ values: [Double], calibratedLevel: Double? = nil) -> [Double] {
        guard readsUsualLevel, preference != .informational, !values.isEmpty else { return values }
        let sorted = preference == .higherIsBetter ? values.sorted(by: >) : values.sorted()
        let quarter = Double(values.count) * BenchmarkSchema.usualLevelMinimumShare
        var rank = max((values.count + 9) / 10, 1)
        guard sorted[rank - 1] > 0 else { return values }
        // The level speaks for a run at it: one whose median lies within
        // the band of the level either way (not a binary that times the
        // series otherwise, nor a change beyond the band).
        let level = calibratedLevel.flatMap { level -> Double? in
            // `sorted` is in order, best first: its middle is the median either way round.
            guard level > 0, let median = Statistics.median(sorted: sorted),
                isWithinBand(median, of: level), isWithinBand(level, of: median)
            else { return nil }
            return level
        }
        // `within` counts the sorted values in the band of the rank-th best;
        // a later anchor's band holds all of an earlier one's.
        var within = 0
        while true {
            while within < sorted.count, isWithinBand(sorted[within], of: sorted[rank - 1]) { within += 1 }
            // The next-best is beyond the band: the faster repetitions are
            // a level of their own, not a tail.
            if rank == sorted.count || !isWithinBand(sorted[rank], of: sorted[rank - 1]) { break }
            // A quarter kept, at the calibrated level where there is one.
            let reachesTheLevel = level.map { isWithinBand($0, of: sorted[rank - 1]) } ?? true
            if Double(within) >= quarter && reachesTheLevel { break }
            rank += 1
        }
        let anchor = sorted[rank - 1]
        return values.filter { isWithinBand($0, of: anchor) }
    }

    /// The `rank`-th best of `values` (1: the best).
    private func anchor(_ values: [Double], rank: Int) -> Double {
        let sorted = preference == .higherIsBetter ? values.sorted(by: >) : values.sorted()
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Whether `value` is within ``BenchmarkSchema/usualLevelBand`` of `anchor`.
    private func isWithinBand(_ value: Double, of anchor: Double) -> Bool {
        switch preference {
        case .higherIsBetter: value * BenchmarkSchema.usualLevelBand >= anchor
        case .lowerIsBetter: value <= anchor * BenchmarkSchema.usualLevelBand
        case .informational: true
        }
    }

    /// Whether going from `base` to `new` moves in the bad direction.
    func isWorse(from base: Double, to new: Double) -> Bool {
        switch preference {
        case .higherIsBetter: new < base
        case .lowerIsBetter: new > base
        case .informational: false
        }
    }
}
