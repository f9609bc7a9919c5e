/// Sizes of a suite run. `standard` takes about seven minutes on two cores,
/// `quick` one to two minutes (a CI smoke run), `tiny` a fraction of a second
/// (tests).
public struct SuiteConfiguration: Sendable {
    /// Drift is measured at each period for this many ticks.
    public struct DriftPeriod: Sendable, Equatable {
        public var periodMilliseconds: Int
        public var ticks: Int
        /// The variants measured at this period; `nil` for all of them.
        public var variants: [String]?
        public init(periodMilliseconds: Int, ticks: Int, variants: [String]? = nil) {
            self.periodMilliseconds = periodMilliseconds
            self.ticks = ticks
            self.variants = variants
        }
    }

    public var name: String
    public var repetitions: Int
    /// Run every plan once, unrecorded, before the first repetition.
    public var warmUp: Bool
    public var throughputElements: Int
    public var latencySamples: Int
    public var latencyRatePerSecond: Int
    /// Subscription lifecycles per timing repetition of `observeOn.subscription`.
    public var subscriptionLifecycles: Int
    public var trampolineDepth: Int
    /// Levels of the `scheduleRecursive` chain (`current-thread.recursive`).
    public var recursiveTrampolineDepth: Int
    public var driftPeriods: [DriftPeriod]
    /// How many per-tick lateness samples a drift repetition writes for the plot.
    public var driftTraceSamples: Int
    /// How to start the child process that measures plain recursion; `nil`
    /// leaves `plain_recursion_limit` empty.
    public var recursionProbe: PlainRecursionProbe?
    /// Repetitions of the allocation-counting pass. Counts are exact, so a
    /// few repetitions only show that they agree.
    public var countingRepetitions: Int
    /// Operations in one counted region: elements of one batch of a hop,
    /// schedules of one trampoline chain. The same in every suite, so that
    /// counts of a quick run and a default run are comparable.
    public var countingBatch: Int

    public init(
        name: String, repetitions: Int, warmUp: Bool, throughputElements: Int, latencySamples: Int,
        latencyRatePerSecond: Int, subscriptionLifecycles: Int = 1_000, trampolineDepth: Int,
        recursiveTrampolineDepth: Int? = nil,
        driftPeriods: [DriftPeriod],
        driftTraceSamples: Int, recursionProbe: PlainRecursionProbe?,
        countingRepetitions: Int = 3, countingBatch: Int = SuiteConfiguration.defaultCountingBatch
    ) {
        self.name = name
        self.repetitions = repetitions
        self.warmUp = warmUp
        self.throughputElements = throughputElements
        self.latencySamples = latencySamples
        self.latencyRatePerSecond = latencyRatePerSecond
        self.subscriptionLifecycles = subscriptionLifecycles
        self.trampolineDepth = trampolineDepth
        self.recursiveTrampolineDepth = recursiveTrampolineDepth ?? trampolineDepth
        self.driftPeriods = driftPeriods
        self.driftTraceSamples = driftTraceSamples
        self.recursionProbe = recursionProbe
        self.countingRepetitions = countingRepetitions
        self.countingBatch = countingBatch
    }

    /// Operations per counted region in the standard and quick suites.
    public static let defaultCountingBatch = 1000

    /// The default suite: about seven minutes on two cores (7 min 08 s for run 20261123T212442Z).
    public static func standard(recursionProbe: PlainRecursionProbe?) -> SuiteConfiguration {
        SuiteConfiguration(
            name: "standard", repetitions: 5, warmUp: true, throughputElements: 500_000,
            latencySamples: 10_000, latencyRatePerSecond: 20_000, subscriptionLifecycles: 5_000,
            trampolineDepth: 10_000_000, recursiveTrampolineDepth: 100_000_000,
            driftPeriods: [
                DriftPeriod(periodMilliseconds: 1, ticks: 500),
                DriftPeriod(periodMilliseconds: 10, ticks: 100),
                // Long enough (10 s) to show whether drift accumulates: a
                // fixed-rate job's last tick is as late as any other, a
                // fixed-delay one's is late by the sum of every tick's delay.
                DriftPeriod(
                    periodMilliseconds: 1, ticks: 10_000,
                    variants: ["serial-dispatch.native", "serial-dispatch.emulated", "user-scheduler.emulated"]),
            ],
            driftTraceSamples: 20, recursionProbe: recursionProbe)
    }

    /// The reduced suite: about two minutes, every benchmark and variant present.
    ///
    /// 7 repetitions so that `BenchRunner compare` can tell a clear change
    /// between two quick runs: it controls the false discovery rate across
    /// the run's ~85 judged timing series, so a lone series that got worse
    /// must reach p ≤ 0.05/85 ≈ 0.0006, and with 7 against 7 repetitions
    /// that do not overlap the one-sided rank test gives 1/3432 ≈ 0.0003
    /// (6 give 0.0011, 5 give 0.004, 3 give 0.05: too few).
    public static func quick(recursionProbe: PlainRecursionProbe?) -> SuiteConfiguration {
        SuiteConfiguration(
            name: "quick", repetitions: 7, warmUp: true, throughputElements: 100_000,
            latencySamples: 2_000, latencyRatePerSecond: 20_000, subscriptionLifecycles: 1_000,
            trampolineDepth: 10_000_000,
            driftPeriods: [
                DriftPeriod(periodMilliseconds: 1, ticks: 150),
                DriftPeriod(periodMilliseconds: 10, ticks: 25),
            ],
            driftTraceSamples: 10, recursionProbe: recursionProbe)
    }

    /// A sub-second configuration for tests: every benchmark, tiny sizes.
    public static func tiny(recursionProbe: PlainRecursionProbe?) -> SuiteConfiguration {
        SuiteConfiguration(
            name: "tiny", repetitions: 2, warmUp: false, throughputElements: 500,
            latencySamples: 50, latencyRatePerSecond: 50_000, subscriptionLifecycles: 20, trampolineDepth: 10_000,
            driftPeriods: [
                DriftPeriod(periodMilliseconds: 1, ticks: 4),
            ],
            driftTraceSamples: 2, recursionProbe: recursionProbe, countingRepetitions: 2, countingBatch: 100)
    }
}
