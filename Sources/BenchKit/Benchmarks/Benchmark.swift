/// A benchmark: its stable schema and, for a configuration, the
/// measurements it wants made. It declares workloads and parameters only;
/// `SuiteRunner` orders, repeats, times and records them.
package protocol Benchmark: Sendable {
    /// The names this benchmark writes (see `CSVSchema`).
    var schema: BenchmarkSchema { get }
    /// One plan per variant and parameter set, in the order they interleave,
    /// at the sizes this benchmark declares for `configuration.size`.
    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan]
    /// Timing repetitions of every variant in a suite of `size` (unless
    /// `--repetitions` overrides them); by default the suite's own.
    func repetitions(in size: SuiteSize) -> Int
    /// How many fresh processes a top-level run spreads this benchmark's
    /// timing repetitions across (``ForkedRun``), in a suite of `size`; by
    /// default 1 (timed in the run's own process). Declared where a series'
    /// level moves between processes more than its repetitions spread
    /// within one, so that one process would make two runs disagree.
    func processes(in size: SuiteSize) -> Int
    /// The most measurements one timing repetition takes to fill the
    /// suite's minimum repetition time, in a suite of `size`; nil: the
    /// suite's own (``SuiteConfiguration/maximumRunsPerRepetition``).
    /// Declared where more, shorter repetitions tell more than fewer long ones.
    func maximumRunsPerRepetition(in size: SuiteSize) -> Int?
    /// How this benchmark chooses its repetitions in a suite of `size` whose
    /// policy is `suite` (the default suite's ``AdaptiveRepetitions``); by
    /// default the suite's. Nil: its fixed ``repetitions(in:)``, for a
    /// benchmark whose repetitions serve a design of their own (spread
    /// across processes, read at a usual level).
    func adaptiveRepetitions(in size: SuiteSize, suite: AdaptiveRepetitions) -> AdaptiveRepetitions?
    /// Whether the counting pass counts this benchmark before every other
    /// one; by default false (the catalogue's order). Declared by a
    /// benchmark that reads the process's live bytes over a window in which
    /// its own threads work: threads other benchmarks leave behind (their
    /// queues' workers, exiting when idle, their caches) would allocate and
    /// free inside that window; counted first in the counting child, nothing
    /// else has run yet.
    var countsFirst: Bool { get }
}

extension Benchmark {
    package func repetitions(in size: SuiteSize) -> Int { size.repetitions }
    package func processes(in size: SuiteSize) -> Int { 1 }
    package func maximumRunsPerRepetition(in size: SuiteSize) -> Int? { nil }
    package func adaptiveRepetitions(in size: SuiteSize, suite: AdaptiveRepetitions) -> AdaptiveRepetitions? { suite }
    package var countsFirst: Bool { false }
}

/// A benchmark that declares its name and schema once, for the type.
protocol NamedBenchmark: Benchmark {
    /// The `benchmark` column's value.
    static var name: String { get }
    /// Its variants (from its catalogue) and metrics; ``CSVSchema/benchmarks``
    /// lists it, so readers of a result file know what this benchmark writes.
    static var schema: BenchmarkSchema { get }
}

extension NamedBenchmark {
    /// ``NamedBenchmark/schema``, whatever variants this instance measures.
    var schema: BenchmarkSchema { Self.schema }
}

/// One measured value of a repetition. `extraParams` is appended to the
/// plan's parameters (used for per-tick samples).
package struct MetricValue: Sendable, Equatable {
    var metric: Metric
    var value: Double?
    var extraParams: String?

    init(_ metric: Metric, _ value: Double?, extraParams: String? = nil) {
        self.metric = metric
        self.value = value
        self.extraParams = extraParams
    }
}

/// What to measure for one variant with one parameter set.
package struct MeasurementPlan: Sendable {
    package let benchmark: String
    let variantID: VariantID
    package let params: String
    /// Expected seconds of one repetition, for the progress estimate.
    let estimatedSeconds: Double
    /// Expected seconds of the warm-up, which usually does a fraction of a
    /// repetition's work; `estimatedSeconds` when not given.
    let warmUpEstimatedSeconds: Double
    /// Set when the variant cannot run in this build or on this machine; the
    /// runner says why once and writes no rows for it.
    package let unavailableReason: String?
    /// The workload delivers to the main thread: the main queue must be
    /// serviced while it runs (see `MainQueueDriver`).
    let needsMainQueue: Bool
    /// Expected seconds of one counting repetition (see `countAllocations`).
    let countingEstimatedSeconds: Double
    let warmUp: @Sendable (MeasureContext) throws -> Void
    /// One timing repetition: every metric except the allocation counts.
    let measure: @Sendable (MeasureContext) throws -> [MetricValue]
    /// One counting repetition: only the allocation metrics
    /// (`Metric.isAllocationCount`), counted at steady state with an
    /// exact counter; `nil` when the benchmark has no allocation metrics.
    /// It warms up on its own (on the same subscription or chain it counts),
    /// so the counting pass needs no separate warm-up.
    let countAllocations: (@Sendable (MeasureContext) throws -> [MetricValue])?
    /// What the instruction pass counts for this plan (``InstructionPass``);
    /// `nil` when its work is not deterministic CPU work on one thread.
    let countInstructions: InstructionWorkload?
    /// Timed in every `repetitionStride`-th repetition of its process only
    /// (the 1st, then the 1 + stride-th, …): 1, every repetition, unless a
    /// benchmark sets more. `observeOn.throughput` times its peers and
    /// references, whose floods take ten to a hundred times the library's,
    /// in every other repetition: enough for their medians and spreads,
    /// and it keeps the run short.
    var repetitionStride = 1
    /// Its time is what it waits for (a timer's ticks), which a busier
    /// machine does not stretch as it stretches work: the progress estimate
    /// takes its `estimatedSeconds` as they are until it has measured some,
    /// instead of scaling them by what the computing plans cost.
    var waitsForTimers = false

    /// Whether the plan is timed in `repetition` (counted from 1 in its process).
    func isTimed(inRepetition repetition: Int) -> Bool {
        (repetition - 1) % max(repetitionStride, 1) == 0
    }

    /// How many of `repetitions` repetitions time the plan.
    func timedRepetitions(of repetitions: Int) -> Int {
        (1...max(repetitions, 1)).filter(isTimed(inRepetition:)).count
    }

    init(
        benchmark: String, variant: VariantID, params: String, estimatedSeconds: Double,
        warmUpEstimatedSeconds: Double? = nil, unavailableReason: String? = nil, needsMainQueue: Bool = false, countingEstimatedSeconds: Double = 0.01,
        warmUp: @escaping @Sendable (MeasureContext) throws -> Void,
        measure: @escaping @Sendable (MeasureContext) throws -> [MetricValue],
        countAllocations: (@Sendable (MeasureContext) throws -> [MetricValue])? = nil,
        countInstructions: InstructionWorkload? = nil
    ) {
        self.benchmark = benchmark
        self.variantID = variant
        self.params = params
        self.estimatedSeconds = estimatedSeconds
        self.warmUpEstimatedSeconds = warmUpEstimatedSeconds ?? estimatedSeconds
        self.unavailableReason = unavailableReason
        self.needsMainQueue = needsMainQueue
        self.countingEstimatedSeconds = countingEstimatedSeconds
        self.warmUp = warmUp
        self.measure = measure
        self.countAllocations = countAllocations
        self.countInstructions = countInstructions
    }

    /// The `variant` column's value.
    package var variant: String { variantID.name }

    /// The name a filter matches: `benchmark/variant`.
    var identifier: String { "\(benchmark)/\(variant)" }

    /// A plan that cannot run, with the reason.
    static func unavailable(benchmark: String, variant: VariantID, params: String, reason: String) -> MeasurementPlan {
        MeasurementPlan(
            benchmark: benchmark, variant: variant, params: params, estimatedSeconds: 0,
            unavailableReason: reason, warmUp: { _ in }, measure: { _ in [] })
    }
}

/// A measurement failed in a way that makes its numbers meaningless.
package struct BenchmarkFailure: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
