#if SCHEDULERS_DRAIN_STATISTICS
import Synchronization

/// Counts of `observe(on:)` drains and batches, for a program that studies
/// how floods batch (Performance.md, "After a busy queue"). Compiled only
/// with `-Xswiftc -DSCHEDULERS_DRAIN_STATISTICS`, never in a shipped build.
@_spi(DrainStatistics)
public enum ObserveOnDrainStatistics {
    static let drains = Atomic<Int>(0)
    static let batches = Atomic<Int>(0)

    /// The counts so far: drains run, batches taken.
    public static func snapshot() -> (drains: Int, batches: Int) {
        (drains.load(ordering: .relaxed), batches.load(ordering: .relaxed))
    }
}
#endif
