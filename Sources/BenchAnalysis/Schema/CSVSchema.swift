import Synchronization

/// The CSV contract between a run and every later reader (`compare`, the plot
/// script, a spreadsheet). Results are compared across versions, so the column
/// names, benchmark names, variant names (``VariantID``) and metric names
/// (``Metric``) are part of the interface: add to them, never rename.
///
/// The file is long form: one measured value per row. An empty `value` means
/// "not measured in this run" (allocation counts without jemalloc, skipped
/// ticks a timer cannot report).
///
/// The `allocator` column says under which allocator a row was measured, and
/// one file may hold several:
/// - default run: every timing row is `system` (the normal allocator, so times
///   are what users get); the allocation rows (`allocs_*`, `bytes_per_*`) are
///   `jemalloc`, counted by a separate jemalloc process with its thread cache
///   off, which makes the counts exact but every allocation slow;
/// - `--allocator system`: `system` rows only, allocation values empty;
/// - `--allocator jemalloc`: everything `jemalloc` (times are distorted by the
///   thread-cache-less allocator; compare them only with other jemalloc times);
/// - `--allocator both`: the default run plus the jemalloc run's rows.
///
/// Allocation metrics are not taken from the timed repetitions (there they
/// would depend on how elements happened to batch) but from a counting pass at
/// steady state: the workload first warms up on the same subscription or
/// trampoline (queues and ring buffers grow to size), then one region of
/// `SuiteConfiguration/countingBatch` operations (1000 in every suite) is
/// counted. Counts cover every thread of the process; bytes are jemalloc size
/// classes, the usable size handed out. How exact each one is:
/// - `observeOn.throughput` `allocs_per_element`, `bytes_per_element`: one
///   gated batch (`BatchGate`: the consumer wakes with the first element, the
///   other 999 queue behind it), so the count is the same on every run and
///   `value = per-element allocations + per-batch allocations / 1000`. The
///   integer part is exact per element (a peer that allocates per element
///   shows 3 or 1); the fraction is exact per batch of this shape (0.004 is
///   four allocations per batch: scheduling a drain, waking a worker). In a
///   free-running flood batches are smaller and vary with timing, so there the
///   per-batch part weighs more per element; it is reported, not hidden.
///   Rare one-off growth inside a scheduler (a new worker thread) can still
///   show in one repetition; the median of the repetitions is what to compare.
/// - `trampoline.recursion` `allocs_per_schedule`, `bytes_per_schedule`: one
///   chain of 1000 levels: per-level allocations plus the chain's fixed
///   start-up (or saving: the first level runs without being queued, hence
///   0.999) divided by 1000. Exact on every run.
/// - `observeOn.subscription` `allocs_per_lifecycle`, `bytes_per_lifecycle`:
///   1000 subscription lifecycles (subscribe, one element delivered, dispose,
///   observer released) after 100 warm-up ones on the same scheduler, divided
///   by 1000: exact per lifecycle, with rare one-off growth (a new worker
///   thread) spread over the batch.
/// - `depth` is exact; every other metric is a time and varies.
public enum CSVSchema {
    /// The columns, in order, as written in the header row.
    public static let columns: [String] = [
        "run_id", "timestamp", "git_rev", "host", "cpu", "cores", "swift_version",
        "allocator", "benchmark", "variant", "params", "metric", "unit", "repetition", "value",
    ]

    /// The metrics of a `scale.*` sweep's exponent rows, whose `of=`
    /// parameter names the metric fitted: the names of BenchKit's
    /// `Metric.growthExponent` and `Metric.countGrowthExponent`.
    static let growthExponentMetrics: Set<String> = ["growth_exponent", "allocs_growth_exponent"]

    /// Separates `key=value` pairs in the `params` column, for example `period_ms=1;ticks=2000`.
    public static let paramsSeparator: Character = ";"

    /// Every benchmark with its variants and metrics, in the order a run
    /// executes them: each benchmark declares its own schema (its variants,
    /// its metrics as ``Metric`` values), so what a run writes and what a
    /// reader expects come from one source. The measuring side hands that
    /// list over with ``useCatalog(_:)``; until it does, the list is empty
    /// and every metric reads as undeclared (shown, never judged).
    static var benchmarks: [BenchmarkSchema] {
        catalog.withLock { state in
            if let cached = state.cached { return cached }
            let computed = state.source()
            state.cached = computed
            return computed
        }
    }

    private struct Catalog: Sendable {
        var source: @Sendable () -> [BenchmarkSchema] = { [] }
        var cached: [BenchmarkSchema]?
    }

    private static let catalog = Mutex(Catalog())

    /// Makes `source` the list ``benchmarks`` reads (once, on first use):
    /// BenchKit calls it with its catalogue whenever the registry a run
    /// measures changes, so a user's registered schedulers are listed beside
    /// the library's.
    package static func useCatalog(_ source: @escaping @Sendable () -> [BenchmarkSchema]) {
        catalog.withLock { $0 = Catalog(source: source, cached: nil) }
    }

    /// The schema of the benchmark named `name`, if there is one.
    package static func benchmark(named name: String) -> BenchmarkSchema? {
        benchmarks.first { $0.name == name }
    }

    /// Whether `metric` of `variant` in `benchmark` is a wake-up-bound time:
    /// the metric's kind is ``MetricKind/wakeUpBound``, or the variant is
    /// (`BenchmarkSchema.wakeUpBoundVariants`) and the metric is a measured
    /// value (``MetricKind/measured``), not a count.
    static func isWakeUpBound(metric: String, variant: String, in benchmark: String) -> Bool {
        guard let schema = self.benchmark(named: benchmark), let spec = schema.metric(named: metric) else { return false }
        if spec.kind == .wakeUpBound { return true }
        return spec.kind == .measured && schema.wakeUpBoundVariants.contains { $0.name == variant }
    }

    /// The metric named `metric` in `benchmark`, if both exist.
    static func metric(_ metric: String, in benchmark: String) -> Metric? {
        self.benchmark(named: benchmark)?.metric(named: metric)
    }

    /// Whether a series' repetitions stopped at its benchmark's time
    /// budget while still wider than compare needs (1), or became narrow
    /// enough within it (0): one row per judged timing series of a run whose
    /// repetitions were chosen adaptively (the default suite), the series'
    /// metric in its `of=` parameter. Any benchmark may write it; it
    /// describes the run, so compare shows it and never judges it.
    package static let budgetReached = Metric(
        "budget_reached", unit: "flag", kind: .informational, direction: .informational)

    /// The metrics the runner writes for any benchmark, beside those the
    /// benchmark declares (``budgetReached``).
    static let runnerMetrics: [Metric] = [budgetReached]

    /// The metric named `metric` in any benchmark, if one has it.
    package static func metric(named metric: String) -> Metric? {
        benchmarks.lazy.compactMap { $0.metric(named: metric) }.first
    }
}

/// One benchmark's stable name, its variants and the metrics each repetition writes.
package struct BenchmarkSchema: Sendable, Equatable {
    /// The `benchmark` column's value.
    package let name: String
    /// Every variant a run may write, in the order it runs them.
    package let variants: [VariantID]
    /// Every metric a repetition writes, in the order it writes them.
    package let metrics: [Metric]
    /// Variants whose every timing is wake-up-bound (see
    /// `Metric.isWakeUpBound`): delivery on the main queue waits for the
    /// main thread's run loop to wake for each batch.
    let wakeUpBoundVariants: [VariantID]
    /// Variants whose allocation counts are not exact: code outside the
    /// library (a run loop) allocates a varying amount inside the counted
    /// region. `compare` shows their counts but does not judge them.
    let varyingCountVariants: [VariantID]
    /// Whether this benchmark's counts are exact only in whole allocations
    /// per operation: the library allocates whole objects per operation,
    /// while caches outside it (libdispatch's per-thread continuations, the
    /// runtime's metadata caches) may serve or make a few allocations of a
    /// counted batch, which moves the count per operation by a fraction of
    /// one. `compare` then judges allocation counts within
    /// ``wholeAllocationTolerance`` and byte counts within
    /// ``wholeAllocationByteTolerance`` (see ``countTolerance(metric:)``).
    let countsInWholeAllocations: Bool
    /// Whether this benchmark's timed metrics (``MetricKind/measured``) have
    /// a level set by a state the whole process is in rather than by the code
    /// alone: a flood right after a busy queue finds a mode that depends on
    /// the allocator's heap in that process, so one binary's level differs
    /// between processes by more than any threshold. One process's
    /// repetitions share that state, so `compare` does not confirm a change
    /// from them: a move beyond the threshold in the harmful direction reads
    /// `moved worse?` (not judged, exit status 3), never `worse`, and no move
    /// reads `better` (``MetricComparisonRule/isProcessBound``).
    let timesBoundToProcess: Bool
    /// Whether `compare` and `calibrate` read this benchmark's timed metrics
    /// (``MetricKind/measured``) from the repetitions at each run's usual
    /// level rather than from all of them: those within
    /// ``usualLevelBand`` of the run's tenth-fastest repetition
    /// (``MetricComparisonRule/judgedValues(_:calibratedLevel:)``). For a benchmark
    /// whose repetitions each land in one of two levels the machine sets: a
    /// flood across two threads runs at its usual time or at about twice
    /// it, in episodes of seconds (one can take most of a run's repetitions)
    /// that take every hop of a round together, while both threads keep a
    /// core each. The hypervisor chooses the level, not the code, and a
    /// run's share of slow repetitions moves its median between runs by
    /// more than a 20 % change of the code. Machine noise only ever adds
    /// time, so the fastest repetitions are at the usual level, and so is
    /// everything within the band of them. A change that made only some
    /// repetitions slower would not show; one that slows every repetition,
    /// as a change of the code does, moves the fastest and the band with it
    /// and shows in full (``MetricComparisonRule/readsUsualLevel``).
    package let readsUsualLevel: Bool
    /// How far above a run's fastest repetitions (a time; below, for a rate)
    /// a repetition still counts as the usual level: 1.25 times, above the
    /// usual level's own spread in a quiet run (its slowest repetition about
    /// 1.15 times its fastest) and below the machine's other levels (about
    /// 1.5 and 2 times).
    static let usualLevelBand = 1.25
    /// The smallest share of a run's repetitions that must lie at its usual
    /// level for the level to count as measured: a quarter, as the median
    /// over the benchmark's series (``ResultFile/benchmarksMissingTheirUsualLevel``). In sixteen
    /// quick runs of three binaries the serial and concurrent hops kept 13 to
    /// 29 of 30 repetitions in twelve (the main queue and the actor executor,
    /// whose repetitions spread wider, 8 to 21), 7 to 9 in one (read: a
    /// median share above a quarter), and, in the three runs an episode of
    /// the machine's slower levels took most of, 2 to 7; from so few, the
    /// fastest of the run is as likely the slow level's lucky edge as the
    /// usual level, and compare leaves the series unjudged (`too few
    /// repetitions`, exit 3) rather than read it (one such run, read as the
    /// base, let a fast path made 20 % slower pass).
    package static let usualLevelMinimumShare = 0.25

    /// How far an allocation count per operation may move and still be
    /// `same` when counts are exact only in whole allocations: less than one
    /// allocation, so one more allocation per operation is still `worse`.
    static let wholeAllocationTolerance = 0.5
    /// The same for bytes per operation: half the step between the
    /// allocator's smallest size classes (16 bytes), so an object that grows
    /// into the next size class is still `worse`.
    static let wholeAllocationByteTolerance = 8.0

    /// A schema; every property not given is off (empty, false).
    package init(
        name: String, variants: [VariantID], metrics: [Metric], wakeUpBoundVariants: [VariantID] = [],
        varyingCountVariants: [VariantID] = [], countsInWholeAllocations: Bool = false,
        timesBoundToProcess: Bool = false, readsUsualLevel: Bool = false
    ) {
        self.name = name
        self.variants = variants
        self.metrics = metrics
        self.wakeUpBoundVariants = wakeUpBoundVariants
        self.varyingCountVariants = varyingCountVariants
        self.countsInWholeAllocations = countsInWholeAllocations
        self.timesBoundToProcess = timesBoundToProcess
        self.readsUsualLevel = readsUsualLevel
    }

    /// The built-in absolute tolerance of this benchmark's exact count
    /// `metric`: the metric's own ``Metric/exactTolerance``, or by its kind
    /// for a benchmark counted in whole allocations,
    /// ``wholeAllocationTolerance`` for allocations and
    /// ``wholeAllocationByteTolerance`` for bytes, whichever is larger; else
    /// 0 (instruction counts have a relative tolerance,
    /// ``MetricKind/instructionTolerance``).
    func countTolerance(metric: String) -> Double {
        guard let found = self.metric(named: metric) else { return 0 }
        // A count's growth exponent is no count per operation: it keeps its own tolerance.
        guard countsInWholeAllocations, !CSVSchema.growthExponentMetrics.contains(metric) else {
            return found.exactTolerance
        }
        switch found.kind {
        case .allocations: return max(found.exactTolerance, Self.wholeAllocationTolerance)
        case .allocatedBytes: return max(found.exactTolerance, Self.wholeAllocationByteTolerance)
        case .measured, .wakeUpBound, .singleRunTail, .exactCount, .instructions, .informational:
            return found.exactTolerance
        }
    }

    /// This benchmark's metric named `name`, if it has one: one it
    /// declares, or one the runner writes for any benchmark (``CSVSchema/runnerMetrics``).
    func metric(named name: String) -> Metric? {
        metrics.first { $0.name == name } ?? CSVSchema.runnerMetrics.first { $0.name == name }
    }

    /// Whether the counts of the variant named `variant` vary between runs
    /// (see ``varyingCountVariants``).
    func countsVary(for variant: String) -> Bool {
        varyingCountVariants.contains { $0.name == variant }
    }
}
