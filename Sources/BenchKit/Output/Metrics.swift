// The metrics BenchRunner writes: their names, units, kinds and polarity are
// part of the CSV interface (``CSVSchema``): add metrics, never rename one.

extension Metric {
    /// Written by the instruction pass's callgrind child, not by the suite's
    /// timing or counting passes: the instruction count and the type-lookup
    /// metrics beside it (``CallgrindProfile``).
    var isWrittenByInstructionPass: Bool {
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
}

/// The four metrics of a workload measured per operation, named by one rule,
/// `<measure>_per_<operation>`: `ns_per_element`, `allocs_per_element`,
/// `bytes_per_element`, `instructions_per_element`. A benchmark writes the
/// ones it measures.
package struct PerOperationMetrics: Sendable {
    /// Time per operation of a CPU-bound loop (`ns_per_<operation>`): lower is better.
    let time: Metric
    /// Allocations per operation of the counting pass (`allocs_per_<operation>`):
    /// exact, lower is better.
    let allocations: Metric
    /// Bytes allocated per operation of the counting pass
    /// (`bytes_per_<operation>`): exact, lower is better.
    let bytes: Metric
    /// Instructions per operation of the instruction pass
    /// (`instructions_per_<operation>`): exact within
    /// ``MetricKind/instructionTolerance``, lower is better.
    let instructions: Metric

    init(operation: String) {
        time = .time("ns_per_\(operation)")
        allocations = .allocationCount("allocs_per_\(operation)")
        bytes = .byteCount("bytes_per_\(operation)")
        instructions = Metric(
            "instructions_per_\(operation)", unit: "instructions", kind: .instructions, direction: .lowerIsBetter)
    }
}

// MARK: - Every instruction workload

extension Metric {
    /// Calls into the Swift runtime's type lookups (metadata accessors, the
    /// metadata, tuple and witness-table caches) per operation of an
    /// instruction workload: set by the code alone, so exact. The
    /// instruction metric beside it counts everything else (see
    /// ``CallgrindProfile``).
    static let typeLookupsPerOperation = Metric(
        "type_lookups_per_operation", unit: "lookups", kind: .exactCount, direction: .lowerIsBetter)
    /// What those lookups cost per operation in this binary: their probe
    /// lengths depend on where the linker put the type descriptors, so a
    /// change anywhere in the binary moves them. Shown, never judged.
    static let lookupInstructionsPerOperation = Metric(
        "lookup_instructions_per_operation", unit: "instructions", kind: .informational, direction: .informational)
}

// MARK: - observeOn.throughput

extension Metric {
    /// Elements a timed flood delivers per second.
    static let elementsPerSecond = Metric("elements_per_s", unit: "elements/s", kind: .measured, direction: .higherIsBetter)
    /// Per element: a timed flood's time; allocations and bytes of one gated
    /// batch (see `CSVSchema`); instructions through an operator chain on a
    /// scheduler that does not hop (`elementPath`), counted by callgrind.
    static let perElement = PerOperationMetrics(operation: "element")
}

// MARK: - observeOn.busyQueue

/// The flood series' medians are one value a run, from one process, and
/// their level is that process's: between two runs of one binary the fast
/// path's quiet median moved from 34.7 to 45.6 ns and its ratio from 1.09
/// to 0.86 (runs 20261128T075639Z and 20261128T080444Z). No repetition of a
/// run can tell a change of the code from that, so they are read within
/// their run, against each other, and compare shows them without judging
/// them (kind ``MetricKind/informational``): a series measured once is not
/// gated. The `observeOn.busyQueue` rows measured in every repetition
/// (elements per second, ns per element) are the ones compare judges.
extension Metric {
    /// The median, over one repetition's quiet floods, of the process's CPU
    /// time per element (every thread's, from `CLOCK_PROCESS_CPUTIME_ID`).
    static let quietCPUPerElement = Metric(
        "quiet_cpu_ns_per_element", unit: "ns", kind: .informational, direction: .informational)
    /// The same over the repetition's floods made right after a busy queue.
    static let busyQueueCPUPerElement = Metric(
        "busy_queue_cpu_ns_per_element", unit: "ns", kind: .informational, direction: .informational)
    /// ``busyQueueCPUPerElement`` over ``quietCPUPerElement``, one process.
    static let busyQueueCPURatio = Metric(
        "busy_queue_cpu_ratio", unit: "ratio", kind: .informational, direction: .informational)
    /// The worst flood after a busy queue, its CPU time per element over the
    /// quiet floods' median in the same process: the tail of one run, shown,
    /// never judged.
    static let worstBusyQueueCPURatio = Metric(
        "worst_busy_queue_cpu_ratio", unit: "ratio", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The worst quiet flood over the quiet floods' median, same process: how
    /// far a flood's CPU time strays with no busy queue at all (how its
    /// batches fell, the machine's other load), the floor under
    /// ``worstBusyQueueCPURatio``. A single-run tail.
    static let worstQuietCPURatio = Metric(
        "worst_quiet_cpu_ratio", unit: "ratio", kind: .singleRunTail, direction: .lowerIsBetter)
}

// MARK: - observeOn.latency

extension Metric {
    /// Median time from `onNext` to the observer: mostly a thread's wake-up in the wake-up regime.
    static let latencyP50 = Metric("latency_p50_ns", unit: "ns", kind: .wakeUpBound, direction: .lowerIsBetter)
    /// The 99th percentile of one run's latencies: a single-run tail.
    static let latencyP99 = Metric("latency_p99_ns", unit: "ns", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The 99.9th percentile of one run's latencies: a single-run tail.
    static let latencyP999 = Metric("latency_p999_ns", unit: "ns", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The worst latency of one run: a single-run tail.
    static let latencyMax = Metric("latency_max_ns", unit: "ns", kind: .singleRunTail, direction: .lowerIsBetter)
}

// MARK: - observeOn.subscription

extension Metric {
    /// Per subscription lifecycle (subscribe, one element, dispose, release):
    /// its time; allocations and bytes counted over a batch; instructions on
    /// the current thread, counted by callgrind.
    static let perLifecycle = PerOperationMetrics(operation: "lifecycle")
}

// MARK: - trampoline.recursion

extension Metric {
    /// Per level of a trampolined chain (or per scheduled action in virtual
    /// time): its time; allocations and bytes of a counted chain;
    /// instructions, counted by callgrind.
    static let perSchedule = PerOperationMetrics(operation: "schedule")
    /// Levels the chain reached: exactly the depth asked for, on every run.
    static let depth = Metric("depth", unit: "schedules", kind: .exactCount, direction: .higherIsBetter)
    /// How far the stack grew over the chain: bounded for a trampoline.
    static let stackGrowthBytes = Metric("stack_growth_bytes", unit: "bytes", kind: .measured, direction: .lowerIsBetter)
    /// How deep plain recursion gets on this machine's stack: a fact of the machine.
    static let plainRecursionLimit = Metric(
        "plain_recursion_limit", unit: "frames", kind: .informational, direction: .informational)
}

// MARK: - periodic.drift

extension Metric {
    /// Median lateness of a periodic job's ticks against `start + k·period`.
    static let latenessP50 = Metric("lateness_p50_us", unit: "us", kind: .wakeUpBound, direction: .lowerIsBetter)
    /// The 5th-worst of 500 ticks: a tail of one run like latency p99, so
    /// shown, not judged: it moves between runs of one revision by far more
    /// than any threshold, with every repetition agreeing.
    static let latenessP99 = Metric("lateness_p99_us", unit: "us", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The latest tick of one run: a single-run tail.
    static let latenessMax = Metric("lateness_max_us", unit: "us", kind: .singleRunTail, direction: .lowerIsBetter)
    /// The last tick's lateness: bounded at a fixed rate, growing at a fixed delay.
    static let finalDrift = Metric("final_drift_us", unit: "us", kind: .wakeUpBound, direction: .lowerIsBetter)
    /// Ticks the job skipped or merged; empty when it cannot tell.
    static let skippedTicks = Metric("skipped_ticks", unit: "ticks", kind: .measured, direction: .lowerIsBetter)
    /// A sample of the per-tick lateness (the tick is in `params`), for the
    /// drift-over-ticks plot; a comparison skips it and the summary leaves it out.
    static let latenessAtTick = Metric(
        "lateness_at_tick_us", unit: "us", kind: .informational, direction: .informational)
}
