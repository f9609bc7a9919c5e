/// Settings of `BenchRunner compare`.
package struct CompareOptions: Sendable, Equatable {
    /// Which verdicts decide the exit status.
    package enum Gate: String, Sendable, CaseIterable {
        /// Every metric: a significant timing regression fails like an allocation increase.
        case all
        /// Only exact counts (allocations `allocs_*`, `bytes_*`, `depth`, instructions `instructions_*`). Timing
        /// changes are still computed and printed but never fail: for CI on a
        /// shared machine, where timings cannot be trusted to gate.
        case exact
    }

    /// How the report is written.
    package enum Format: String, Sendable, CaseIterable {
        /// An aligned text table with a summary, for a terminal.
        case table
        /// A GitHub-flavoured Markdown table with a summary, for pull requests.
        case markdown
        /// One CSV row per compared series, for scripts; the summary goes to standard error.
        case csv
    }

    /// The smallest change that counts, as a fraction (0.05 = 5 %): `worse` and
    /// `better` mean beyond it, `same` means the confidence interval lies within it.
    var threshold: Double
    /// The threshold for wake-up-bound times (hop latency, timer lateness and
    /// drift, delivery on the main queue; see `Metric.isWakeUpBound`):
    /// 0.40 by default. On a shared machine two runs of the same revision
    /// move such medians by several times what they move CPU-bound times,
    /// with every repetition agreeing (so the test calls it significant): a
    /// run-to-run swing of the kernel's scheduling, not of the code. An extra
    /// thread hop (+50-100 %) or drift that accumulates (x100) still clears it.
    var wakeUpThreshold: Double
    /// Level of the one-sided Mann-Whitney U tests and of the false discovery
    /// rate across the run; the confidence interval is at `1 - 2·alpha`, so
    /// that each of its bounds is a one-sided bound at `1 - alpha`.
    var alpha: Double
    /// Which verdicts decide the exit status.
    var gate: Gate
    /// How the report is written.
    var format: Format
    /// How far exact counts may move before they count as a change; none by default.
    var exactTolerances: [ExactTolerance]
    /// Each timing series' resolution on this machine (`BenchRunner
    /// calibrate`): a calibrated series is worse or better only when its
    /// median also moved beyond the larger of its threshold and its
    /// resolution (``SeriesEvidence/confirmedWorse``). None by default.
    var resolution: ResolutionTable?

    /// Options with the command line's defaults: 5 %, 40 % for wake-up-bound
    /// times, alpha 0.05, every metric gated, a text table, no exact
    /// tolerance and no resolution table.
    package init(
        threshold: Double = 0.05, wakeUpThreshold: Double = 0.40, alpha: Double = 0.05, gate: Gate = .all,
        format: Format = .table, exactTolerances: [ExactTolerance] = [], resolution: ResolutionTable? = nil
    ) {
        self.threshold = threshold
        self.wakeUpThreshold = wakeUpThreshold
        self.alpha = alpha
        self.gate = gate
        self.format = format
        self.exactTolerances = exactTolerances
        self.resolution = resolution
    }

    /// A message saying what is wrong with the options, or nil when they are usable.
    var problem: String? {
        if !threshold.isFinite || threshold < 0 {
            return "--threshold must be a percentage of 0 or more, e.g. --threshold 5"
        }
        if !wakeUpThreshold.isFinite || wakeUpThreshold < 0 {
            return "--wakeup-threshold must be a percentage of 0 or more, e.g. --wakeup-threshold 40"
        }
        if !alpha.isFinite || alpha <= 0 || alpha >= 0.5 {
            return "--alpha must lie strictly between 0 and 0.5 (a one-sided level), e.g. --alpha 0.05"
        }
        return nil
    }
}
