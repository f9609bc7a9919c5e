/// One series through history: one metric of one benchmark variant, with
/// one configuration (parameters, allocator) on one machine, summarised per
/// run and grouped by revision in commit order.
package struct HistorySeries: Sendable {
    /// What the series is of (the key `compare` pairs rows by).
    let key: ResultSeriesKey
    /// The machine its runs were made on (``RunFacts/machine``).
    let machine: String
    /// The `unit` column.
    let unit: String
    /// How its changes are found.
    let kind: HistorySeriesKind
    /// One point per revision, in commit order.
    let points: [HistoryPoint]

    init(key: ResultSeriesKey, machine: String, unit: String = "", kind: HistorySeriesKind, points: [HistoryPoint]) {
        self.key = key
        self.machine = machine
        self.unit = unit
        self.kind = kind
        self.points = points
    }
}

/// The runs of one revision in one series.
package struct HistoryPoint: Sendable, Equatable {
    /// The revision as the runs wrote it (`git_rev`).
    let revision: String
    /// Each run's summary of its repetitions (their median, at the usual
    /// level where the benchmark reads one), in run order.
    let runValues: [Double]
    /// The result files of those runs, in the same order.
    let runPaths: [String]

    init(revision: String, runValues: [Double], runPaths: [String]) {
        self.revision = revision
        self.runValues = runValues
        self.runPaths = runPaths
    }
}

/// How a series' changes are found: which way is better, and whether its
/// values are exact counts or timings with noise.
package struct HistorySeriesKind: Sendable, Equatable {
    /// What the values are.
    enum Measure: Sendable, Equatable {
        /// A timing: a change counts beyond `threshold` (a fraction of the
        /// level before) and beyond the series' noise.
        case timing(threshold: Double)
        /// An exact count: a change counts beyond `absolute` or `relative`
        /// (a fraction of the level before), whichever is larger.
        case exact(absolute: Double, relative: Double)
    }

    /// Which direction is an improvement (never `.informational`).
    let preference: MetricComparisonRule.Preference
    /// Timing or exact count.
    let measure: Measure
    /// Whether a change at the newest run decides the exit status: this
    /// project's variants, not the peers and references, which measure the machine.
    let isGated: Bool

    init(preference: MetricComparisonRule.Preference, measure: Measure, isGated: Bool) {
        self.preference = preference
        self.measure = measure
        self.isGated = isGated
    }

    /// The kind `compare` would judge `key` by (its ``MetricComparisonRule``),
    /// with `compare`'s thresholds and exact tolerances; nil for what compare
    /// only shows (tails, per-tick samples, machine facts, varying counts,
    /// undeclared metrics).
    init?(rule: MetricComparisonRule, key: ResultSeriesKey, options: HistoryOptions) {
        guard rule.preference != .informational else { return nil }
        preference = rule.preference
        isGated = !MachineDrift.isAnchor(variant: key.variant)
        if rule.isExact {
            let declared = CSVSchema.benchmark(named: key.benchmark)?.countTolerance(metric: key.metric) ?? 0
            let given = ExactTolerance.amount(for: key.metric, in: options.exactTolerances)
            let relative = rule.kind == .instructions ? MetricKind.instructionTolerance : 0
            measure = .exact(absolute: max(declared, given), relative: relative)
        } else {
            measure = .timing(threshold: rule.isWakeUpBound ? options.wakeUpThreshold : options.threshold)
        }
    }

    /// Whether going from `before` to `after` is a move in the harmful direction.
    func isHarmful(from before: Double, to after: Double) -> Bool {
        switch preference {
        case .higherIsBetter: after < before
        case .lowerIsBetter: after > before
        case .informational: false
        }
    }
}
