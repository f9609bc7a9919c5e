/// The CSV contract between a run and every later reader (`compare`, the plot
/// script, a spreadsheet). Results are compared across versions, so the column
/// names, benchmark names, variant names and metric names written here are part
/// of the interface: add to them, never rename.
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
/// `SuiteConfiguration.countingBatch` operations (1000 in every suite) is
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

    /// Separates `key=value` pairs in the `params` column, for example `period_ms=1;ticks=2000`.
    public static let paramsSeparator: Character = ";"

    /// Every benchmark with its metrics, in the order a run executes them.
    public static let benchmarks: [BenchmarkSchema] = [
        BenchmarkSchema(
            name: "observeOn.throughput",
            variants: [
                "fast-path", "generic", "concurrent", "operation-queue", "main", "actor-executor",
                "peer.dispatch-async", "peer.opencombine", "peer.asyncstream", "peer.actor", "peer.nio",
                "reference.batched-handoff", "reference.spsc-ring",
                "fast-path.disturbed", "generic.disturbed",
            ],
            metrics: [
                MetricSpec("elements_per_s", unit: "elements/s", direction: .higherIsBetter),
                MetricSpec("ns_per_element", unit: "ns", direction: .lowerIsBetter),
                MetricSpec("allocs_per_element", unit: "allocations", direction: .lowerIsBetter, isExactCount: true),
                MetricSpec("bytes_per_element", unit: "bytes", direction: .lowerIsBetter, isExactCount: true),
            ],
            wakeUpBoundVariants: ["main"]
        ),
        // Two regimes, told apart by `params`: rows without a `regime` key
        // (`rate_per_s=…;samples=…`, as before the busy regime existed) are the
        // wake-up regime, `regime=busy;…` rows the busy one (see
        // `ObserveOnLatencyBenchmark`).
        BenchmarkSchema(
            name: "observeOn.latency",
            variants: [
                "fast-path", "generic", "concurrent", "operation-queue", "main", "actor-executor",
                "peer.dispatch-async", "peer.opencombine", "peer.asyncstream", "peer.actor", "peer.nio",
                "reference.batched-handoff", "reference.spsc-ring",
            ],
            metrics: [
                MetricSpec("latency_p50_ns", unit: "ns", direction: .lowerIsBetter, isWakeUpBound: true),
                MetricSpec("latency_p99_ns", unit: "ns", direction: .lowerIsBetter, isSingleRunTail: true),
                MetricSpec("latency_p999_ns", unit: "ns", direction: .lowerIsBetter, isSingleRunTail: true),
                MetricSpec("latency_max_ns", unit: "ns", direction: .lowerIsBetter, isSingleRunTail: true),
            ]
        ),
        BenchmarkSchema(
            name: "observeOn.subscription",
            variants: [
                "fast-path", "generic", "concurrent", "operation-queue", "main", "current-thread",
                "peer.opencombine",
            ],
            metrics: [
                MetricSpec("ns_per_lifecycle", unit: "ns", direction: .lowerIsBetter),
                MetricSpec("allocs_per_lifecycle", unit: "allocations", direction: .lowerIsBetter, isExactCount: true),
                MetricSpec("bytes_per_lifecycle", unit: "bytes", direction: .lowerIsBetter, isExactCount: true),
            ],
            // Each lifecycle hands one drain to the scheduler's thread, which is
            // usually idle: the time is mostly that thread's wake-up.
            wakeUpBoundVariants: ["fast-path", "generic", "concurrent", "operation-queue", "main", "peer.opencombine"],
            // The main run loop allocates a varying fraction per lifecycle
            // around the library's own (28.69 against 28.80 in two runs of one
            // revision); the same sinks are counted exactly on the other variants.
            varyingCountVariants: ["main"]
        ),
        // `values` against an `AsyncStream`, measured as `observeOn.throughput` is.
        BenchmarkSchema(
            name: "asyncSequence.throughput",
            variants: ["values", "peer.asyncstream"],
            metrics: [
                MetricSpec("elements_per_s", unit: "elements/s", direction: .higherIsBetter),
                MetricSpec("ns_per_element", unit: "ns", direction: .lowerIsBetter),
                MetricSpec("allocs_per_element", unit: "allocations", direction: .lowerIsBetter, isExactCount: true),
                MetricSpec("bytes_per_element", unit: "bytes", direction: .lowerIsBetter, isExactCount: true),
            ]
        ),
        BenchmarkSchema(
            name: "trampoline.recursion",
            variants: ["current-thread", "current-thread.recursive", "reference.closure-queue"],
            metrics: [
                MetricSpec("ns_per_schedule", unit: "ns", direction: .lowerIsBetter),
                MetricSpec("allocs_per_schedule", unit: "allocations", direction: .lowerIsBetter, isExactCount: true),
                MetricSpec("bytes_per_schedule", unit: "bytes", direction: .lowerIsBetter, isExactCount: true),
                MetricSpec("depth", unit: "schedules", direction: .higherIsBetter, isExactCount: true),
                MetricSpec("stack_growth_bytes", unit: "bytes", direction: .lowerIsBetter),
                MetricSpec("plain_recursion_limit", unit: "frames", direction: .informational),
            ]
        ),
        BenchmarkSchema(
            name: "periodic.drift",
            variants: [
                "serial-dispatch.native", "serial-dispatch.emulated",
                "concurrent-dispatch.native", "concurrent-dispatch.emulated",
                "operation-queue.native", "operation-queue.emulated", "main.native", "main.emulated",
                "user-scheduler.emulated",
                "peer.dispatch-timer", "peer.nio", "peer.opencombine",
            ],
            metrics: [
                MetricSpec("lateness_p50_us", unit: "us", direction: .lowerIsBetter, isWakeUpBound: true),
                // The 5th-worst of 500 ticks: a tail of one run like latency p99. Two
                // default runs of one revision (de156c0, 20261123T2124/2131) moved it
                // +89 % at 10,000 ticks with all five repetitions agreeing.
                MetricSpec("lateness_p99_us", unit: "us", direction: .lowerIsBetter, isSingleRunTail: true),
                MetricSpec("lateness_max_us", unit: "us", direction: .lowerIsBetter, isSingleRunTail: true),
                MetricSpec("final_drift_us", unit: "us", direction: .lowerIsBetter, isWakeUpBound: true),
                MetricSpec("skipped_ticks", unit: "ticks", direction: .lowerIsBetter),
                // A sample of the per-tick lateness (the tick is in `params`), for the
                // drift-over-ticks plot; a comparison should skip it.
                MetricSpec("lateness_at_tick_us", unit: "us", direction: .informational),
            ]
        ),
    ]

    /// The schema of the benchmark named `name`, if there is one.
    public static func benchmark(named name: String) -> BenchmarkSchema? {
        benchmarks.first { $0.name == name }
    }

    /// Whether `metric` of `variant` in `benchmark` is a wake-up-bound time:
    /// the metric is (`MetricSpec.isWakeUpBound`) or the variant is
    /// (`BenchmarkSchema.wakeUpBoundVariants`) and the metric is a time, not a count.
    public static func isWakeUpBound(metric: String, variant: String, in benchmark: String) -> Bool {
        guard let schema = self.benchmark(named: benchmark), let spec = schema.metrics.first(where: { $0.name == metric })
        else { return false }
        if spec.isWakeUpBound { return true }
        return !spec.isExactCount && spec.direction != .informational && schema.wakeUpBoundVariants.contains(variant)
    }

    /// The specification of `metric` in `benchmark`, if both exist.
    public static func metric(_ metric: String, in benchmark: String) -> MetricSpec? {
        self.benchmark(named: benchmark)?.metrics.first { $0.name == metric }
    }
}

/// One benchmark's stable name, its variants and the metrics each repetition writes.
public struct BenchmarkSchema: Sendable, Equatable {
    public let name: String
    public let variants: [String]
    public let metrics: [MetricSpec]
    /// Variants whose every timing is wake-up-bound (see
    /// `MetricSpec.isWakeUpBound`): delivery on the main queue waits for the
    /// main thread's run loop to wake for each batch.
    public let wakeUpBoundVariants: [String]
    /// Variants whose allocation counts are not exact: code outside the
    /// library (a run loop) allocates a varying amount inside the counted
    /// region. `compare` shows their counts but does not judge them.
    public let varyingCountVariants: [String]

    public init(
        name: String, variants: [String], metrics: [MetricSpec], wakeUpBoundVariants: [String] = [],
        varyingCountVariants: [String] = []
    ) {
        self.name = name
        self.variants = variants
        self.metrics = metrics
        self.wakeUpBoundVariants = wakeUpBoundVariants
        self.varyingCountVariants = varyingCountVariants
    }
}

/// Which way a metric improves.
public enum MetricDirection: String, Sendable {
    case higherIsBetter = "higher"
    case lowerIsBetter = "lower"
    /// Describes the machine or the run rather than the code (no verdict).
    case informational = "none"
}

/// One metric: its name, unit and how a comparison should treat it.
public struct MetricSpec: Sendable, Equatable {
    public let name: String
    public let unit: String
    public let direction: MetricDirection
    /// `true` for counts that do not vary between runs of the same code
    /// (allocations counted by jemalloc at steady state, `depth`): compare
    /// them exactly, not statistically. See the type comment of `CSVSchema`
    /// for what the fraction of a per-element count means.
    public let isExactCount: Bool
    /// `true` for the tail of one run's distribution (latency and tick lateness p99
    /// and beyond, the worst tick): set by a handful of preemptions on a shared machine,
    /// it swings 2-5x between runs of the same code. `compare` shows it with
    /// its change but does not judge it.
    public let isSingleRunTail: Bool
    /// `true` for a time set by thread wake-ups and timer expiry (hop latency,
    /// a tick's lateness) rather than by instructions. The kernel's scheduling
    /// of a shared machine moves such a median between runs of the same code,
    /// with every repetition of a run agreeing, by more than a CPU-bound
    /// time moves: `compare` judges it against `--wakeup-threshold`.
    public let isWakeUpBound: Bool

    /// Measured by the allocation-counting pass rather than by the timing
    /// repetitions (`allocs_*`, `bytes_per_*`).
    public var isAllocationCount: Bool {
        name.hasPrefix("allocs_") || name.hasPrefix("bytes_per_")
    }

    public init(
        _ name: String, unit: String, direction: MetricDirection, isExactCount: Bool = false,
        isSingleRunTail: Bool = false, isWakeUpBound: Bool = false
    ) {
        self.name = name
        self.unit = unit
        self.direction = direction
        self.isExactCount = isExactCount
        self.isSingleRunTail = isSingleRunTail
        self.isWakeUpBound = isWakeUpBound
    }
}
