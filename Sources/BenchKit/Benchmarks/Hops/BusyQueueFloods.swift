import Foundation
import ToolSupport
#if SCHEDULERS_DRAIN_STATISTICS
import CJemallocShim
@_spi(DrainStatistics) import Schedulers
#endif

/// The flood series of `observeOn.busyQueue`: in one repetition,
/// `floods` quiet floods of a hop, then `floods` floods each right after a
/// busy queue (`BusyQueueDisturbance`), every flood through a session made
/// for it (a new scheduler and subscription), all in one process. Each
/// flood is timed by the process's CPU time (`CLOCK_PROCESS_CPUTIME_ID`):
/// every thread's work, none of the time other processes take the cores
/// for, so a flood that pays for the heap a busy queue left behind shows
/// at its full cost on a shared machine too.
///
/// The repetition reports the quiet floods' median CPU time per element,
/// the median after a busy queue, the worst flood after a busy queue
/// against the quiet median (the tail a busy queue must keep small) and, for
/// scale, the worst quiet flood against the same median.
///
/// The quiet floods come first: a flood right after a busy queue's floods
/// is not quiet (what a busy queue leaves lasts for seconds). A plan that
/// runs after another's disturbances may find a debt left in the heap in
/// one of its quiet floods; the median of 30 does not move for one.
enum BusyQueueFloods {
    /// Floods of each kind per repetition, in a suite of `size`: 30 in the
    /// quick suite, whose runs the documents' figures of the series come
    /// from; 5 in the default suite, where each of the nine hops' floods
    /// after a busy queue costs a disturbance of about 0.35 s (each flood a
    /// hop takes costs the run 3 s, for a series compare shows without
    /// judging).
    static func floods(in size: SuiteSize) -> Int {
        switch size {
        case .quick: 30
        case .standard: 5
        case .tiny: 1
        }
    }

    /// Estimated seconds of a repetition of `floods` floods of `elements`
    /// each way.
    static func estimatedSeconds(floods: Int, elements: Int) -> Double {
        Double(floods) * (BusyQueueDisturbance.estimatedSeconds + 2 * (Double(elements) * 1.5e-6 + 0.01))
    }

    /// The flood-series plans of `hops` (sessions made without a busy
    /// queue: this series runs the disturbance itself, between floods).
    ///
    /// Timed in the first repetition of the process only, outside the tiny
    /// suite: one repetition holds all its floods, and its medians and worst
    /// flood are the figures.
    /// `elements`: per flood (``ObserveOnBusyQueueBenchmark/elements(in:)``).
    static func plans(benchmark: String, hops: [HopVariant], configuration: SuiteConfiguration, elements: Int)
        -> [MeasurementPlan]
    {
        let floods = configuration.floodsOverride ?? floods(in: configuration.size)
        let params = formatParams(["elements": String(elements), "floods": String(floods)])
        return hops.map { hop -> MeasurementPlan in
            if let reason = hop.unavailableReason {
                return .unavailable(benchmark: benchmark, variant: hop.id, params: params, reason: reason)
            }
            var plan = MeasurementPlan(
                benchmark: benchmark, variant: hop.id, params: params,
                estimatedSeconds: estimatedSeconds(floods: floods, elements: elements),
                warmUpEstimatedSeconds: Double(elements) * 1.5e-6 + 0.01, needsMainQueue: hop.needsMainQueue,
                warmUp: { _ in
                    _ = try cpuNanoseconds(hop: hop, elements: elements, trace: nil)
                },
                measure: { context in
                    try measure(hop: hop, elements: elements, floods: floods, context: context)
                })
            if configuration.size != .tiny {
                plan.repetitionStride = Int.max
            }
            return plan
        }
    }

    /// One repetition: the quiet floods, then the floods after a busy queue.
    static func measure(hop: HopVariant, elements: Int, floods: Int, context: MeasureContext) throws -> [MetricValue] {
        var quiet: [Double] = []
        for index in 0..<floods {
            quiet.append(Double(try cpuNanoseconds(hop: hop, elements: elements, trace: .init(hop, "quiet", index))) / Double(elements))
        }
        var afterBusyQueue: [Double] = []
        for index in 0..<floods {
            BusyQueueDisturbance.run()
            afterBusyQueue.append(Double(try cpuNanoseconds(hop: hop, elements: elements, trace: .init(hop, "busy", index))) / Double(elements))
        }
        let quietMedian = Statistics.median(quiet)
        let busyMedian = Statistics.median(afterBusyQueue)
        let ratio = { (value: Double?) -> Double? in
            guard let value, let quietMedian, quietMedian > 0 else { return nil }
            return value / quietMedian
        }
        return [
            MetricValue(.quietCPUPerElement, quietMedian),
            MetricValue(.busyQueueCPUPerElement, busyMedian),
            MetricValue(.busyQueueCPURatio, ratio(busyMedian)),
            MetricValue(.worstBusyQueueCPURatio, ratio(afterBusyQueue.max())),
            MetricValue(.worstQuietCPURatio, ratio(quiet.max())),
        ]
    }

    /// The process's CPU time over one flood of `elements` through a new
    /// session of `hop` (made and closed outside the timed span). In a build
    /// with drain statistics, `trace` names the flood for its line.
    static func cpuNanoseconds(hop: HopVariant, elements: Int, trace: FloodTrace?) throws -> UInt64 {
        let session = try hop.makeSession()
        defer { session.close() }
        let before = trace?.snapshot()
        let start = processCPUNanoseconds()
        try hop.flood(session: session, elements: elements)
        let nanoseconds = processCPUNanoseconds() &- start
        if let trace, let before {
            trace.report(before: before, after: trace.snapshot(), nanoseconds: nanoseconds, elements: elements)
        }
        return nanoseconds
    }

    /// CPU time of every thread of the process so far, ns.
    static func processCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

/// One line per flood on standard error, in a build with drain statistics
/// only (`-Xswiftc -DSCHEDULERS_DRAIN_STATISTICS`, as
/// `scripts/busy-queue-batching.sh` builds it): how the flood batched, how
/// often its queue lock was found taken, and what glibc's fast bins held when
/// it started. In any other build it does nothing, so a shipped BenchRunner
/// times exactly what it always did.
struct FloodTrace {
    let variant: String
    let kind: String
    let index: Int

    init(_ hop: HopVariant, _ kind: String, _ index: Int) {
        variant = hop.id.description
        self.kind = kind
        self.index = index
    }

    /// Counters read around a flood (all zero without drain statistics).
    struct Snapshot {
        var drains = 0
        var batches = 0
        var contended = 0
        var fastBinBytes: UInt64 = 0
    }

    func snapshot() -> Snapshot {
        #if SCHEDULERS_DRAIN_STATISTICS
        let counts = ObserveOnDrainStatistics.snapshot()
        return Snapshot(
            drains: counts.drains, batches: counts.batches, contended: counts.contended,
            fastBinBytes: cjs_glibc_fast_bin_bytes())
        #else
        return Snapshot()
        #endif
    }

    func report(before: Snapshot, after: Snapshot, nanoseconds: UInt64, elements: Int) {
        #if SCHEDULERS_DRAIN_STATISTICS
        let line = "flood variant=\(variant) kind=\(kind) index=\(index)"
            + " elements=\(elements) cpu_ns_per_element=\(Double(nanoseconds) / Double(elements))"
            + " drains=\(after.drains - before.drains) batches=\(after.batches - before.batches)"
            + " contended=\(after.contended - before.contended)"
            + " fast_bin_bytes_at_start=\(before.fastBinBytes)\n"
        FileHandle.standardError.write(Data(line.utf8))
        #endif
    }
}
