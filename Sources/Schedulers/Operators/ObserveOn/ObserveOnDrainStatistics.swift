#if SCHEDULERS_DRAIN_STATISTICS
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
    static let microseconds: UInt32 = {
        guard let text = ProcessInfo.processInfo.environment["SCHEDULERS_PROBE_GATHER_US"] else { return 0 }
        guard let value = UInt32(text) else {
            // Bad input, not a fault: say what to set, and stop as a tool does (status 2).
            FileHandle.standardError.write(
                Data("SCHEDULERS_PROBE_GATHER_US wants a whole number of microseconds, not '\(text)'\n".utf8))
            exit(2)
        }
        return value
    }()
    /// A batch of fewer elements than this (and more than none) is small.
    static let gatherBelow = 256

    /// Called by the drain after it delivered a batch of `delivered`
    /// elements and, if `ended`, the terminal event.
    static func afterBatch(of delivered: Int, ended: Bool) {
        if microseconds > 0, !ended, delivered > 0, delivered < gatherBelow {
            usleep(microseconds)
        }
    }
}
#endif
