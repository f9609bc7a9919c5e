/// Which way a metric improves.
public enum MetricDirection: String, Sendable {
    case higherIsBetter = "higher"
    case lowerIsBetter = "lower"
    /// Describes the machine or the run rather than the code (no verdict).
    case informational = "none"
}

/// One metric a benchmark records: its name in the CSV `metric` column, its
/// unit, which way it improves and how a comparison treats it.
///
/// Every metric BenchRunner writes is one of the constants below; benchmarks
/// record values through them (``MetricValue``), ``CSVSchema`` lists them per
/// benchmark and `compare` judges a result file's rows by them. The names are
/// part of the CSV interface: add metrics, never rename one.
public struct Metric: Sendable, Hashable {
    /// The `metric` column's value.
    public let name: String
    /// The `unit` column's value.
    public let unit: String
    public let direction: MetricDirection
    /// `true` for counts that do not vary between runs of the same code
    /// (allocations counted by jemalloc at steady state, `depth`): compared
    /// exactly, not statistically, so they can gate CI. See the type comment
    /// of `CSVSchema` for what the fraction of a per-element count means.
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
    public let isAllocationCount: Bool

    public init(
        _ name: String, unit: String, direction: MetricDirection, isExactCount: Bool = false,
        isSingleRunTail: Bool = false, isWakeUpBound: Bool = false, isAllocationCount: Bool = false
    ) {
        self.name = name
        self.unit = unit
        self.direction = direction
        self.isExactCount = isExactCount
        self.isSingleRunTail = isSingleRunTail
        self.isWakeUpBound = isWakeUpBound
        self.isAllocationCount = isAllocationCount
    }

    /// A time a CPU-bound loop takes per operation: lower is better.
    static func time(_ name: String) -> Metric {
        Metric(name, unit: "ns", direction: .lowerIsBetter)
    }

    /// An allocation count of the counting pass (allocations or bytes per
    /// operation): exact, lower is better.
    static func allocationCount(_ name: String, unit: String) -> Metric {
        Metric(name, unit: unit, direction: .lowerIsBetter, isExactCount: true, isAllocationCount: true)
    }
}

// MARK: - observeOn.throughput

extension Metric {
    /// Elements a timed flood delivers per second.
    public static let elementsPerSecond = Metric("elements_per_s", unit: "elements/s", direction: .higherIsBetter)
    /// A timed flood's time per element.
    public static let nanosecondsPerElement = time("ns_per_element")
    /// Allocations per element of one gated batch (see `CSVSchema`).
    public static let allocationsPerElement = allocationCount("allocs_per_element", unit: "allocations")
    /// Bytes allocated per element of one gated batch.
    public static let bytesPerElement = allocationCount("bytes_per_element", unit: "bytes")
}

// MARK: - observeOn.latency

extension Metric {
    /// Median time from `onNext` to the observer: mostly a thread's wake-up in the wake-up regime.
    public static let latencyP50 = Metric("latency_p50_ns", unit: "ns", direction: .lowerIsBetter, isWakeUpBound: true)
    /// The 99th percentile of one run's latencies: a single-run tail.
    public static let latencyP99 = Metric("latency_p99_ns", unit: "ns", direction: .lowerIsBetter, isSingleRunTail: true)
    /// The 99.9th percentile of one run's latencies: a single-run tail.
    public static let latencyP999 = Metric(
        "latency_p999_ns", unit: "ns", direction: .lowerIsBetter, isSingleRunTail: true)
    /// The worst latency of one run: a single-run tail.
    public static let latencyMax = Metric("latency_max_ns", unit: "ns", direction: .lowerIsBetter, isSingleRunTail: true)
}

// MARK: - observeOn.subscription

extension Metric {
    /// Time per subscription lifecycle (subscribe, one element, dispose, release).
    public static let nanosecondsPerLifecycle = time("ns_per_lifecycle")
    /// Allocations per subscription lifecycle, counted over a batch.
    public static let allocationsPerLifecycle = allocationCount("allocs_per_lifecycle", unit: "allocations")
    /// Bytes allocated per subscription lifecycle.
    public static let bytesPerLifecycle = allocationCount("bytes_per_lifecycle", unit: "bytes")
}

// MARK: - trampoline.recursion

extension Metric {
    /// Time per level of a trampolined chain.
    public static let nanosecondsPerSchedule = time("ns_per_schedule")
    /// Allocations per level of a counted chain.
    public static let allocationsPerSchedule = allocationCount("allocs_per_schedule", unit: "allocations")
    /// Bytes allocated per level of a counted chain.
    public static let bytesPerSchedule = allocationCount("bytes_per_schedule", unit: "bytes")
    /// Levels the chain reached: exactly the depth asked for, on every run.
    public static let depth = Metric("depth", unit: "schedules", direction: .higherIsBetter, isExactCount: true)
    /// How far the stack grew over the chain: bounded for a trampoline.
    public static let stackGrowthBytes = Metric("stack_growth_bytes", unit: "bytes", direction: .lowerIsBetter)
    /// How deep plain recursion gets on this machine's stack: a fact of the machine.
    public static let plainRecursionLimit = Metric("plain_recursion_limit", unit: "frames", direction: .informational)
}

// MARK: - periodic.drift

extension Metric {
    /// Median lateness of a periodic job's ticks against `start + k·period`.
    public static let latenessP50 = Metric("lateness_p50_us", unit: "us", direction: .lowerIsBetter, isWakeUpBound: true)
    /// The 5th-worst of 500 ticks: a tail of one run like latency p99. Two
    /// default runs of one revision moved it +89 % at 10,000 ticks with all
    /// five repetitions agreeing.
    public static let latenessP99 = Metric(
        "lateness_p99_us", unit: "us", direction: .lowerIsBetter, isSingleRunTail: true)
    /// The latest tick of one run: a single-run tail.
    public static let latenessMax = Metric(
        "lateness_max_us", unit: "us", direction: .lowerIsBetter, isSingleRunTail: true)
    /// The last tick's lateness: bounded at a fixed rate, growing at a fixed delay.
    public static let finalDrift = Metric("final_drift_us", unit: "us", direction: .lowerIsBetter, isWakeUpBound: true)
    /// Ticks the job skipped or merged; empty when it cannot tell.
    public static let skippedTicks = Metric("skipped_ticks", unit: "ticks", direction: .lowerIsBetter)
    /// A sample of the per-tick lateness (the tick is in `params`), for the
    /// drift-over-ticks plot; a comparison skips it and the summary leaves it out.
    public static let latenessAtTick = Metric("lateness_at_tick_us", unit: "us", direction: .informational)
}
