#if SCHEDULERS_DRAIN_STATISTICS
import CSchedulersThreadLocal
import Foundation
import Synchronization

/// Counts of `observe(on:)` drains and batches, for a program that studies
/// how floods batch (Performance.md, "After a busy queue"). Compiled only
/// with `-Xswiftc -DSCHEDULERS_DRAIN_STATISTICS`, never in a shipped build.
@_spi(DrainStatistics)
public enum ObserveOnDrainStatistics {
    static let drains = Atomic<Int>(0)
    static let batches = Atomic<Int>(0)
    static let contended = Atomic<Int>(0)

    /// The counts so far: drains run, batches taken, and acquisitions of a
    /// queue lock that found it taken (by upstream or by the drain).
    public static func snapshot() -> (drains: Int, batches: Int, contended: Int) {
        (drains.load(ordering: .relaxed), batches.load(ordering: .relaxed), contended.load(ordering: .relaxed))
    }
}

/// A probe of what batch size costs, not a feature (and, like the counts,
/// only in a build with drain statistics): when the environment variable
/// `SCHEDULERS_PROBE_GATHER_US` holds a number of microseconds, a drain that
/// has just delivered a batch of fewer than `gatherBelow` elements sleeps
/// that long before it takes the next batch, so that upstream fills a
/// bigger one meanwhile. It delays delivery, which no shipped drain may do;
/// `scripts/busy-queue-batching.sh --gather-us` runs the floods with it.
enum ObserveOnDrainGatherProbe {
    /// The sleep after a small batch, in microseconds; 0 (unset): none.
    static let microseconds: UInt32 = probeSetting("SCHEDULERS_PROBE_GATHER_US", unit: "microseconds")
    /// A batch of fewer elements than this (and more than none) is small.
    static let gatherBelow = 256

    /// Whether a drain that delivered a batch of `delivered` elements and,
    /// if `ended`, the terminal event, took a small batch and goes on: what
    /// both probes act after.
    static func isSmallBatch(of delivered: Int, ended: Bool) -> Bool {
        !ended && delivered > 0 && delivered < gatherBelow
    }

    /// Called by the drain after it delivered a batch of `delivered`
    /// elements and, if `ended`, the terminal event.
    static func afterBatch(of delivered: Int, ended: Bool) {
        if microseconds > 0, isSmallBatch(of: delivered, ended: ended) {
            usleep(microseconds)
        }
    }
}

/// A second probe, of a remedy a shipped drain could use (and, like the
/// first, only in a build with drain statistics): when
/// `SCHEDULERS_PROBE_SPIN_GATHER_NS` holds a number of nanoseconds, a drain
/// that has just delivered a small batch (as above) neither sleeps nor
/// goes idle at once: it spins, looking at how many elements upstream has
/// queued meanwhile every `lookEveryNanoseconds`, and takes the next batch
/// as soon as it holds `ObserveOnDrainGatherProbe.gatherBelow` elements,
/// or the queue did not grow between two looks (upstream has stopped, or
/// waits for this drain, as `observeOn.latency`'s bounded regime does), or
/// the budget is spent. A flood's batches grow without the thread
/// sleeping; an element that arrives alone waits at most one look.
/// `scripts/busy-queue-batching.sh --spin-gather-ns` runs the floods with it.
enum ObserveOnDrainSpinGatherProbe {
    /// The longest spin after a small batch, in nanoseconds; 0 (unset): none.
    static let budgetNanoseconds: UInt64 = probeSetting("SCHEDULERS_PROBE_SPIN_GATHER_NS", unit: "nanoseconds")
    /// How long the drain spins between two looks at the queue.
    static let lookEveryNanoseconds: UInt64 = 500

    /// Called by the drain after it delivered a batch of `delivered`
    /// elements and, if `ended`, the terminal event; `queued` says how many
    /// elements upstream has queued since the batch was taken (it takes the
    /// queue's lock, once per look).
    static func afterBatch(of delivered: Int, ended: Bool, queued: () -> Int) {
        guard budgetNanoseconds > 0, ObserveOnDrainGatherProbe.isSmallBatch(of: delivered, ended: ended) else { return }
        let start = DispatchTime.now().uptimeNanoseconds
        var lookAt = start + lookEveryNanoseconds
        var seen = queued()
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            if now < lookAt {
                csched_spin_hint()
                continue
            }
            let count = queued()
            if count >= ObserveOnDrainGatherProbe.gatherBelow || count == seen || now - start >= budgetNanoseconds {
                return
            }
            seen = count
            lookAt = now + lookEveryNanoseconds
        }
    }
}

/// A probe's setting: the whole number in the environment variable `name`,
/// or 0 when it is unset. A value that is not one ends the run with a
/// message saying what to set and status 2 (bad input, not a fault).
private func probeSetting<Value: FixedWidthInteger>(_ name: String, unit: String) -> Value {
    guard let text = ProcessInfo.processInfo.environment[name] else { return 0 }
    guard let value = Value(text) else {
        FileHandle.standardError.write(Data("\(name) wants a whole number of \(unit), not '\(text)'\n".utf8))
        exit(2)
    }
    return value
}
#endif
