import Dispatch

/// Shared measuring code handed to every workload: the monotonic clock and
/// the allocation counter, read around exactly the region that matters.
package final class MeasureContext: @unchecked Sendable {
    let counter: AllocationCounter
    let configuration: SuiteConfiguration
    /// Where a long measurement reports its steps (ticks, samples) for the
    /// progress line: atomics only, safe inside a timed region.
    let progress: MeasurementProgress

    init(
        counter: AllocationCounter, configuration: SuiteConfiguration, progress: MeasurementProgress = MeasurementProgress()
    ) {
        self.counter = counter
        self.configuration = configuration
        self.progress = progress
    }

    /// What one measured region cost.
    struct Region: Sendable {
        var nanoseconds: UInt64
        /// `nil` when allocation counts are unavailable.
        var allocations: UInt64?
        var bytes: UInt64?

        /// `allocations / operations`, or `nil` without counts.
        func allocationsPer(_ operations: Int) -> Double? {
            allocations.map { Double($0) / Double(max(operations, 1)) }
        }

        /// `bytes / operations`, or `nil` without counts.
        func bytesPer(_ operations: Int) -> Double? {
            bytes.map { Double($0) / Double(max(operations, 1)) }
        }

        /// Nanoseconds per operation.
        func nanosecondsPer(_ operations: Int) -> Double {
            Double(nanoseconds) / Double(max(operations, 1))
        }

        /// Operations per second.
        func operationsPerSecond(_ operations: Int) -> Double {
            Double(operations) / (Double(max(nanoseconds, 1)) / 1e9)
        }
    }

    /// Runs `body` and measures it: wall time on the monotonic clock and the
    /// allocations made on every thread meanwhile.
    func region<T>(_ body: () throws -> T) rethrows -> (T, Region) {
        let before = counter.snapshot()
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        let end = DispatchTime.now().uptimeNanoseconds
        let after = counter.snapshot()
        let delta = AllocationCounter.delta(from: before, to: after)
        return (result, Region(nanoseconds: end - start, allocations: delta?.allocations, bytes: delta?.bytes))
    }

    /// The monotonic clock in nanoseconds.
    @inline(__always)
    package static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }
}
