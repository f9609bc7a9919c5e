#if SCHEDULERS_DRAIN_STATISTICS
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
#endif
