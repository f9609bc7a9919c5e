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
    /// resolution are those of ``judgedValues(_:)``.
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

    /// The repetitions a run's series is judged on: all of `values`, or for
    /// a rule that ``readsUsualLevel``, those within
    /// ``BenchmarkSchema/usualLevelBand`` of the best one (a time at most 1.25
    /// times the lowest, a rate at least the highest over 1.25), in their order.
    /// The share of `values` at the usual level (1 for a rule that does not
    /// ``readsUsualLevel``).
    func usualLevelShare(_ values: [Double]) -> Double {
        guard readsUsualLevel, !values.isEmpty else { return 1 }
        return Double(judgedValues(values).count) / Double(values.count)
    }

    func judgedValues(_ values: [Double]) -> [Double] {
        guard readsUsualLevel else { return values }
        let band = BenchmarkSchema.usualLevelBand
        switch preference {
        case .higherIsBetter:
            guard let best = values.max(), best > 0 else { return values }
            return values.filter { $0 * band >= best }
        case .lowerIsBetter:
            guard let best = values.min(), best > 0 else { return values }
            return values.filter { $0 <= best * band }
        case .informational:
            return values
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
