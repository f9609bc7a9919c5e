import BenchAnalysis
/// Which suite a run is. Each benchmark declares its own sizes for each
/// (its `Configuration(_:)`), and may declare its own repetitions
/// (``Benchmark/repetitions(in:)``).
package enum SuiteSize: String, Sendable, CaseIterable {
    /// The default suite: about six minutes on two quiet cores, each
    /// benchmark taking repetitions until compare can judge it or its time
    /// budget is spent (``AdaptiveRepetitions``).
    case standard
    /// The reduced suite: about two minutes, every benchmark and variant present.
    case quick
    /// A sub-second suite for tests: every benchmark, tiny sizes.
    case tiny

    /// Repetitions of every variant unless a benchmark declares its own:
    /// in the default suite only where its repetitions are a fixed count
    /// (`--forks`); otherwise it chooses them (``AdaptiveRepetitions``).
    ///
    /// Quick runs 7 so that `BenchRunner compare` can tell a clear change
    /// between two quick runs: it controls the false discovery rate across
    /// the run's ~85 judged timing series, so a lone series that got worse
    /// must reach p ≤ 0.05/85 ≈ 0.0006, and with 7 against 7 repetitions
    /// that do not overlap the one-sided rank test gives 1/3432 ≈ 0.0003
    /// (6 give 0.0011, 5 give 0.004, 3 give 0.05: too few).
    var repetitions: Int {
        switch self {
        case .standard: 5
        case .quick: 7
        case .tiny: 2
        }
    }
}

/// How the default suite chooses a benchmark's timing repetitions, as
/// BenchmarkDotNet stops a benchmark once its error is below a target and
/// package-benchmark at a time budget: after ``minimum`` rounds (every
/// variant once a round, interleaved), a benchmark takes another round
/// while one of its judged series is wider than compare needs
/// (`RepetitionTarget`: the interval of the change compare would find
/// against a run like it lies within ±the series' threshold), unless that
/// round would take its timing past ``budgetSeconds`` or past ``maximum``
/// rounds. A series still too wide then has hit the budget: the run writes
/// a `budget_reached` row for it (1; 0 for a series that became narrow
/// enough) and its summary names it.
package struct AdaptiveRepetitions: Sendable, Equatable {
    /// The fewest rounds: in the default suite what compare needs to judge
    /// a series at all (3 against 3 reach p = 0.05).
    package var minimum: Int
    /// The most rounds, however narrow a series is not yet.
    package var maximum: Int
    /// Seconds a benchmark's timed rounds may take (its warm-up and
    /// counting pass apart): no round starts that would end past it, by the
    /// mean of the rounds so far. The ``minimum`` rounds run whatever they take.
    var budgetSeconds: Double

    /// `minimum` to `maximum` rounds within `budgetSeconds`.
    init(minimum: Int, maximum: Int, budgetSeconds: Double) {
        self.minimum = max(minimum, 1)
        self.maximum = max(maximum, self.minimum)
        self.budgetSeconds = max(budgetSeconds, 0)
    }

    /// The default suite's: 3 to 30 rounds within 12 s a benchmark. A
    /// series whose three repetitions already lie within its threshold
    /// (most CPU-bound times on a quiet machine) stops there; one that
    /// spreads wider takes more, up to the budget.
    static let standard = AdaptiveRepetitions(
        minimum: RepetitionTarget.fewestJudged(), maximum: 30, budgetSeconds: 12)

    /// The same with another budget (a benchmark whose round takes longer
    /// than most declares its own).
    func budget(_ seconds: Double) -> AdaptiveRepetitions {
        AdaptiveRepetitions(minimum: minimum, maximum: maximum, budgetSeconds: seconds)
    }

    /// Whether a round beyond ``minimum`` can ever start (a budget and a
    /// maximum above the minimum): a benchmark that cannot is planned at its
    /// fewest rounds whatever the others took.
    var mayExceedMinimum: Bool {
        maximum > minimum && budgetSeconds > 0
    }

    /// Whether another round may start after `rounds` rounds that took
    /// `elapsed` seconds, given whether a series is still too wide: while
    /// fewer than ``minimum`` ran always; else only while a series is too
    /// wide, fewer than ``maximum`` ran and one more round of the mean
    /// length so far ends within ``budgetSeconds`` (none with no budget).
    ///
    /// `missedUsualLevel`: for a benchmark read at its usual level
    /// (`BenchmarkSchema.readsUsualLevel`), whether its rounds so far keep
    /// fewer than a quarter of their repetitions at that level (an episode
    /// of the machine's slower levels took them). compare judges none of
    /// such a run's series, so while it holds another round starts, narrow
    /// or not, as long as fewer than ``maximum`` ran and the round ends
    /// within twice ``budgetSeconds``: an episode that ends in time leaves
    /// the run judged.
    func continues(after rounds: Int, elapsed: Double, anySeriesTooWide: Bool, missedUsualLevel: Bool = false) -> Bool {
        if rounds < minimum { return true }
        guard anySeriesTooWide || missedUsualLevel, rounds < maximum, budgetSeconds > 0 else { return false }
        let perRound = rounds > 0 ? elapsed / Double(rounds) : 0
        return elapsed + perRound <= budgetSeconds * (missedUsualLevel ? 2 : 1)
    }
}

/// What a suite run shares across its benchmarks: its size, warm-up, the
/// allocation-counting pass and the `--repetitions` override. What each
/// benchmark measures at that size (elements, samples, depths, periods) the
/// benchmark declares itself.
package struct SuiteConfiguration: Sendable {
    package var size: SuiteSize
    /// Every benchmark this many times instead of its own count (`--repetitions`).
    package var repetitionsOverride: Int?
    /// How the suite chooses repetitions adaptively (the default suite);
    /// nil: a fixed count. ``repetitionsOverride`` turns it off.
    package var adaptive: AdaptiveRepetitions?
    /// Run every plan once, unrecorded, before the first repetition.
    var warmUp: Bool
    /// How to start the child process that measures plain recursion; `nil`
    /// leaves `plain_recursion_limit` empty.
    var recursionProbe: PlainRecursionProbe?
    /// Repetitions of the allocation-counting pass. Counts are exact, so a
    /// few repetitions only show that they agree.
    package var countingRepetitions = 3
    /// Operations in one counted region: elements of one batch of a hop,
    /// schedules of one trampoline chain. The same in every suite, so that
    /// counts of a quick run and a default run are comparable.
    package var countingBatch = SuiteConfiguration.defaultCountingBatch
    /// The shortest a timing repetition may be, in seconds: a measurement
    /// shorter than this runs again within the repetition until the time
    /// is spent (at most ``maximumRunsPerRepetition`` times), and the
    /// repetition reports the median of its runs per metric. A flood of a
    /// few milliseconds is at the mercy of one preemption, and its rate
    /// spreads by more than twice between repetitions; the median of runs
    /// filling 50 ms does not depend on one preemption. 0 turns it off
    /// (`--min-repetition-ms 0`).
    package var minimumRepetitionSeconds: Double = SuiteConfiguration.defaultMinimumRepetitionSeconds
    /// The most runs one repetition takes to fill ``minimumRepetitionSeconds``.
    var maximumRunsPerRepetition = 25
    /// How far the `scale.*` sweeps go (`--scale`, `--scale-n`).
    package var scale = ScaleOptions()
    /// Floods of each kind in a repetition of `observeOn.busyQueue`'s flood
    /// series instead of the suite's (``BusyQueueFloods/floods(in:)``):
    /// `--floods`. The count is in the series' params, so runs of different
    /// counts are different series to compare.
    package var floodsOverride: Int?

    /// 50 ms: long enough for a median over a dozen quick floods, short
    /// enough that the quick suite stays under two minutes.
    static let defaultMinimumRepetitionSeconds = 0.05

    /// A suite of `size`; what else differs between suites (the counting
    /// pass, the shortest repetition) starts at its default and is set on the result.
    init(size: SuiteSize, warmUp: Bool, recursionProbe: PlainRecursionProbe?) {
        self.size = size
        self.warmUp = warmUp
        self.recursionProbe = recursionProbe
    }

    /// The suite's name, as the run's header line says it.
    package var name: String { size.rawValue }

    /// The repetitions of a benchmark that does not declare its own.
    package var repetitions: Int { repetitionsOverride ?? size.repetitions }

    /// How many timing repetitions `benchmark` runs in this suite: a fixed
    /// count, or for a benchmark whose repetitions are chosen adaptively
    /// (``adaptiveRepetitions(of:)``) the fewest.
    package func repetitions(of benchmark: any Benchmark) -> Int {
        if let adaptive = adaptiveRepetitions(of: benchmark) { return adaptive.minimum }
        return repetitionsOverride ?? benchmark.repetitions(in: size)
    }

    /// How `benchmark` chooses its repetitions in this suite; nil for a
    /// fixed count (the quick and tiny suites, `--repetitions`, or a
    /// benchmark that declares a fixed count: ``Benchmark/adaptiveRepetitions(in:suite:)``).
    func adaptiveRepetitions(of benchmark: any Benchmark) -> AdaptiveRepetitions? {
        guard repetitionsOverride == nil, let adaptive else { return nil }
        return benchmark.adaptiveRepetitions(in: size, suite: adaptive)
    }

    /// Operations per counted region in the standard and quick suites.
    static let defaultCountingBatch = 1000

    /// The default suite, its repetitions chosen adaptively (``AdaptiveRepetitions/standard``).
    package static func standard(recursionProbe: PlainRecursionProbe?) -> SuiteConfiguration {
        var configuration = SuiteConfiguration(size: .standard, warmUp: true, recursionProbe: recursionProbe)
        configuration.adaptive = .standard
        return configuration
    }

    /// The reduced suite (see ``SuiteSize/repetitions`` for its 7 repetitions).
    package static func quick(recursionProbe: PlainRecursionProbe?) -> SuiteConfiguration {
        SuiteConfiguration(size: .quick, warmUp: true, recursionProbe: recursionProbe)
    }

    /// A sub-second configuration for tests: no warm-up, smaller counted regions.
    static func tiny(recursionProbe: PlainRecursionProbe?) -> SuiteConfiguration {
        var configuration = SuiteConfiguration(size: .tiny, warmUp: false, recursionProbe: recursionProbe)
        configuration.countingRepetitions = 2
        configuration.countingBatch = 100
        configuration.minimumRepetitionSeconds = 0
        return configuration
    }
}
