/// Which way a metric improves.
public enum MetricDirection: String, Sendable {
    case higherIsBetter = "higher"
    case lowerIsBetter = "lower"
    /// Describes the machine or the run rather than the code (no verdict).
    case informational = "none"
}

/// What kind of value a metric is, which decides how `BenchRunner compare`
/// judges it (``MetricComparisonRule``) and which pass of a run measures it.
/// Its polarity is the metric's ``Metric/direction``.
public enum MetricKind: String, Sendable, Hashable, CaseIterable {
    /// A value that varies between repetitions (a CPU-bound time, a rate, how
    /// far the stack grew, skipped ticks): judged by the rank tests against
    /// `--threshold`.
    case measured
    /// A time set by thread wake-ups and timer expiry (hop latency, a tick's
    /// lateness) rather than by instructions. The kernel's scheduling of a
    /// shared machine moves such a median between runs of the same code, with
    /// every repetition of a run agreeing, by more than a CPU-bound time
    /// moves: judged against `--wakeup-threshold`.
    case wakeUpBound
    /// The tail of one run's distribution (latency and lateness p99 and
    /// beyond, the worst tick): set by a handful of preemptions on a shared
    /// machine, it swings 2-5x between runs of the same code. Shown with its
    /// change, not judged.
    case singleRunTail
    /// Allocations per operation, counted by jemalloc in the counting pass:
    /// exact, so compared without a test (see the type comment of `CSVSchema`).
    case allocations
    /// Bytes allocated per operation (jemalloc size classes), from the
    /// counting pass: exact like ``allocations``.
    case allocatedBytes
    /// A count the timing run itself makes, the same on every run (the depth
    /// the trampoline is driven to): exact.
    case exactCount
    /// Instructions per operation, counted by callgrind in the instruction
    /// pass (``InstructionPass``): the same on every run within
    /// ``instructionTolerance``, so compared without a test.
    case instructions
    /// Describes the machine or the run rather than the code (the plain
    /// recursion limit, per-tick samples): shown, never judged.
    case informational

    /// How far an instruction count per operation may move, as a fraction of
    /// the base count, and still be `same`: 0.5 %. What still varies between
    /// runs of one binary (the dynamic loader, libc's and the runtime's
    /// one-off work, hash seeds of dictionaries the workload touches) moved
    /// no counted series by more than 0.01 % in A/A pairs (docs/InstructionCounts.md),
    /// while a change worth gating (one more exclusivity check per level of
    /// a trampoline chain, about +2 %) moves it by much more.
    public static let instructionTolerance = 0.005

    /// Compared exactly, without a test: the same code gives the same value
    /// (allocation counts, depth, instruction counts).
    public var isExact: Bool {
        switch self {
        case .allocations, .allocatedBytes, .exactCount, .instructions: true
        case .measured, .wakeUpBound, .singleRunTail, .informational: false
        }
    }

    /// Measured by the allocation-counting pass rather than by the timing repetitions.
    public var isAllocationCount: Bool {
        self == .allocations || self == .allocatedBytes
    }
}

/// One metric a benchmark records: its name in the CSV `metric` column, its
/// unit, its kind (``MetricKind``) and its polarity (which way it improves).
///
/// Every metric BenchRunner writes is one of the constants below; benchmarks
/// record values through them (``MetricValue``), ``CSVSchema`` lists them per
/// benchmark and `compare` judges a result file's rows by their kind and
/// polarity, never by their name. The names are part of the CSV interface:
/// add metrics, never rename one.
public struct Metric: Sendable, Hashable {
    /// The `metric` column's value.
    public let name: String
    /// The `unit` column's value.
    public let unit: String
    /// The polarity: which way the metric improves (`informational` for none).
    public let direction: MetricDirection
    /// What kind of value it is: decides how `compare` judges it and which
    /// pass of a run measures it.
    public let kind: MetricKind
    /// For an exact metric: how far (in its unit) it may move between two
    /// runs and still be `same` (``tolerating(_:)``). 0 allows no move at all.
    public private(set) var exactTolerance: Double = 0

    public init(_ name: String, unit: String, kind: MetricKind, direction: MetricDirection) {
        self.name = name
        self.unit = unit
        self.kind = kind
        self.direction = direction
    }

    /// This metric, `same` in `compare` when it is exact and moved by at
    /// most `amount` (in its unit); say why in the metric's comment.
    public func tolerating(_ amount: Double) -> Metric {
        var copy = self
        copy.exactTolerance = amount
        return copy
    }

    /// `true` for counts that do not vary between runs of the same code
    /// (``MetricKind/isExact``): compared without a test, so they can gate CI.
    public var isExactCount: Bool { kind.isExact }
    /// See ``MetricKind/singleRunTail``.
    public var isSingleRunTail: Bool { kind == .singleRunTail }
    /// See ``MetricKind/wakeUpBound``.
    public var isWakeUpBound: Bool { kind == .wakeUpBound }
    /// Measured by the allocation-counting pass rather than by the timing
    /// repetitions (``MetricKind/allocations``, ``MetricKind/allocatedBytes``).
    public var isAllocationCount: Bool { kind.isAllocationCount }
    /// Counted by the instruction pass (``MetricKind/instructions``).
    public var isInstructionCount: Bool { kind == .instructions }
    /// Written by the instruction pass's callgrind child, not by the suite's
    /// timing or counting passes: the instruction count and the type-lookup
    /// metrics beside it (``CallgrindProfile``).
    public var isWrittenByInstructionPass: Bool {
        isInstructionCount || InstructionPass.lookupMetrics.contains { $0.name == name }
    }

    /// A time a CPU-bound loop takes per operation: lower is better.
    static func time(_ name: String) -> Metric {
        Metric(name, unit: "ns", kind: .measured, direction: .lowerIsBetter)
    }

    /// An allocation count of the counting pass: exact, lower is better.
    static func allocationCount(_ name: String) -> Metric {
        Metric(name, unit: "allocations", kind: .allocations, direction: .lowerIsBetter)
    }

    /// Bytes allocated per operation in the counting pass: exact, lower is better.
    static func byteCount(_ name: String) -> Metric {
        Metric(name, unit: "bytes", kind: .allocatedBytes, direction: .lowerIsBetter)
    }

    /// Instructions per operation of the instruction pass: exact within
    /// ``MetricKind/instructionTolerance``, lower is better.
    static func instructionCount(_ name: String) -> Metric {
        Metric(name, unit: "instructions", kind: .instructions, direction: .lowerIsBetter)
    }
}

// MARK: - Every instruction workload

extension Metric {
    /// Calls into the Swift runtime's type lookups (metadata accessors, the
    /// metadata, tuple and witness-table caches) per operation of an
    /// instruction workload: set by the code alone, so exact. The
    /// instruction metric beside it counts everything else (see
    /// ``CallgrindProfile``).
    public static let typeLookupsPerOperation = Metric(
        "type_lookups_per_operation", unit: "lookups", kind: .exactCount, direction: .lowerIsBetter)
    /// What those lookups cost per operation in this binary: their probe
    /// lengths depend on where the linker put the type descriptors, so a
    /// change anywhere in the binary moves them. Shown, never judged.
    public static let lookupInstructionsPerOperation = Metric(
        "lookup_instructions_per_operation", unit: "instructions", kind: .informational, direction: .informational)
}

// MARK: - observeOn.throughput

extension Metric {
    /// Elements a timed flood delivers per second.
    public static let elementsPerSecond = Metric("elements_per_s", unit: "elements/s", kind: .measured, direction: .higherIsBetter)
    /// A timed flood's time per element.
    public static let nanosecondsPerElement = time("ns_per_element")
    /// Allocations per element of one gated batch (see `CSVSchema`).
    public static let allocationsPerElement = allocationCount("allocs_per_element")
    /// Bytes allocated per element of one gated batch.
    public static let bytesPerElement = byteCount("bytes_per_element")
    /// Instructions per element through an operator chain on a scheduler
    /// that does not hop (`elementPath`), counted by callgrind.
    public static let instructionsPerElement = instructionCount("instructions_per_element")
}

// MARK: - observeOn.busyQueue

extension Metric {
    /// The median, over one repetition's quiet floods, of the process's CPU
    /// time per element (every thread's, from `CLOCK_PROCESS_CPUTIME_ID`).
    public static let quietCPUPerElement = time("quiet_cpu_ns_per_element")
    /// The same over the repetition's floods made right after a busy queue.
    public static let busyQueueCPUPerElement = time("busy_queue_cpu_ns_per_element")
    /// ``busyQueueCPUPerElement`` over ``quietCPUPerElement``, one process.
    public static let busyQueueCPURatio = Metric(
        "busy_queue_cpu_ratio", unit: "ratio", kind: .measured, direction: .lowerIsBetter)
    /// The worst flood after a busy queue, its CPU time per element over the
    /// quiet floods' median in the same process: the tail of one run, shown,
    /// never judged (issue 39 bounds it at 1.5).
    public static let worstBusyQueueCPURatio = Metric(
        "worst_busy_queue_cpu_ratio", unit: "ratio", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The worst quiet flood over the quiet floods' median, same process: how
    /// far a flood's CPU time strays with no busy queue at all (how its
    /// batches fell, the machine's other load), the floor under
    /// ``worstBusyQueueCPURatio``. A single-run tail.
    public static let worstQuietCPURatio = Metric(
        "worst_quiet_cpu_ratio", unit: "ratio", kind: .singleRunTail, direction: .lowerIsBetter)
}

// MARK: - observeOn.latency

extension Metric {
    /// Median time from `onNext` to the observer: mostly a thread's wake-up in the wake-up regime.
    public static let latencyP50 = Metric("latency_p50_ns", unit: "ns", kind: .wakeUpBound, direction: .lowerIsBetter)
    /// The 99th percentile of one run's latencies: a single-run tail.
    public static let latencyP99 = Metric("latency_p99_ns", unit: "ns", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The 99.9th percentile of one run's latencies: a single-run tail.
    public static let latencyP999 = Metric("latency_p999_ns", unit: "ns", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The worst latency of one run: a single-run tail.
    public static let latencyMax = Metric("latency_max_ns", unit: "ns", kind: .singleRunTail, direction: .lowerIsBetter)
}

// MARK: - observeOn.subscription

extension Metric {
    /// Time per subscription lifecycle (subscribe, one element, dispose, release).
    public static let nanosecondsPerLifecycle = time("ns_per_lifecycle")
    /// Allocations per subscription lifecycle, counted over a batch.
    public static let allocationsPerLifecycle = allocationCount("allocs_per_lifecycle")
    /// Bytes allocated per subscription lifecycle.
    public static let bytesPerLifecycle = byteCount("bytes_per_lifecycle")
    /// Instructions per subscription lifecycle on the current thread, counted by callgrind.
    public static let instructionsPerLifecycle = instructionCount("instructions_per_lifecycle")
}

// MARK: - trampoline.recursion

extension Metric {
    /// Time per level of a trampolined chain.
    public static let nanosecondsPerSchedule = time("ns_per_schedule")
    /// Allocations per level of a counted chain.
    public static let allocationsPerSchedule = allocationCount("allocs_per_schedule")
    /// Bytes allocated per level of a counted chain.
    public static let bytesPerSchedule = byteCount("bytes_per_schedule")
    /// Instructions per level of a chain (or per scheduled action in
    /// virtual time), counted by callgrind.
    public static let instructionsPerSchedule = instructionCount("instructions_per_schedule")
    /// Levels the chain reached: exactly the depth asked for, on every run.
    public static let depth = Metric("depth", unit: "schedules", kind: .exactCount, direction: .higherIsBetter)
    /// How far the stack grew over the chain: bounded for a trampoline.
    public static let stackGrowthBytes = Metric("stack_growth_bytes", unit: "bytes", kind: .measured, direction: .lowerIsBetter)
    /// How deep plain recursion gets on this machine's stack: a fact of the machine.
    public static let plainRecursionLimit = Metric(
        "plain_recursion_limit", unit: "frames", kind: .informational, direction: .informational)
}

// MARK: - periodic.drift

extension Metric {
    /// Median lateness of a periodic job's ticks against `start + k·period`.
    public static let latenessP50 = Metric("lateness_p50_us", unit: "us", kind: .wakeUpBound, direction: .lowerIsBetter)
    /// The 5th-worst of 500 ticks: a tail of one run like latency p99. Two
    /// default runs of one revision moved it +89 % at 10,000 ticks with all
    /// five repetitions agreeing.
    public static let latenessP99 = Metric("lateness_p99_us", unit: "us", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The latest tick of one run: a single-run tail.
    public static let latenessMax = Metric("lateness_max_us", unit: "us", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The last tick's lateness: bounded at a fixed rate, growing at a fixed delay.
    public static let finalDrift = Metric("final_drift_us", unit: "us", kind: .wakeUpBound, direction: .lowerIsBetter)
    /// Ticks the job skipped or merged; empty when it cannot tell.
    public static let skippedTicks = Metric("skipped_ticks", unit: "ticks", kind: .measured, direction: .lowerIsBetter)
    /// A sample of the per-tick lateness (the tick is in `params`), for the
    /// drift-over-ticks plot; a comparison skips it and the summary leaves it out.
    public static let latenessAtTick = Metric(
        "lateness_at_tick_us", unit: "us", kind: .informational, direction: .informational)
}
