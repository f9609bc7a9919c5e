/// How one `BenchRunner run` process gets its times and its allocation
/// counts, from `--allocator` and whether jemalloc is installed.
///
/// | `--allocator`  | this process times under | allocation counts                       |
/// |----------------|--------------------------|-----------------------------------------|
/// | (default)      | system                   | a jemalloc child, counting only         |
/// | `system`       | system                   | none (empty values)                     |
/// | `jemalloc`     | jemalloc (slow, distorts)| here, after the timing repetitions      |
/// | `both`         | system                   | a jemalloc child that also times        |
///
/// Without jemalloc every choice times under the system allocator and leaves
/// the counts empty, saying once how to install it.
package struct AllocationStrategy: Sendable, Equatable {
    /// What a jemalloc child process of the run does.
    package enum Child: Sendable, Equatable {
        /// Counts allocations only (`AllocationPass.only`).
        case counts
        /// Times and counts under jemalloc (`--allocator jemalloc`).
        case everything
    }

    /// The allocator this process must run on (`.system` or `.jemalloc`).
    var processAllocator: AllocatorChoice
    var pass: AllocationPass
    var child: Child?
    /// Why the counts stay empty, shown once by the run; `nil` when they are counted.
    var countsUnavailableReason: String?

    init(processAllocator: AllocatorChoice, pass: AllocationPass, child: Child?, countsUnavailableReason: String?) {
        self.processAllocator = processAllocator
        self.pass = pass
        self.child = child
        self.countsUnavailableReason = countsUnavailableReason
    }

    /// The reason `--allocator system` gives for its empty counts.
    static let systemMeasuresTimesOnly =
        "--allocator system measures times only (the default run counts them in a jemalloc child)"

    /// The strategy for `allocator` (`nil`: the default). `countsOnly` marks
    /// the counting child of a default run.
    static func choose(allocator: AllocatorChoice?, countsOnly: Bool, jemallocInstalled: Bool) -> AllocationStrategy {
        if countsOnly {
            return AllocationStrategy(processAllocator: .jemalloc, pass: .only, child: nil, countsUnavailableReason: nil)
        }
        if allocator == .system {
            return AllocationStrategy(
                processAllocator: .system, pass: .unavailable, child: nil, countsUnavailableReason: systemMeasuresTimesOnly)
        }
        guard jemallocInstalled else {
            return AllocationStrategy(
                processAllocator: .system, pass: .unavailable, child: nil,
                countsUnavailableReason: AllocatorLauncher.howToEnable)
        }
        switch allocator {
        case .jemalloc:
            return AllocationStrategy(processAllocator: .jemalloc, pass: .here, child: nil, countsUnavailableReason: nil)
        case .both:
            return AllocationStrategy(processAllocator: .system, pass: .elsewhere, child: .everything, countsUnavailableReason: nil)
        case .system, nil:
            return AllocationStrategy(processAllocator: .system, pass: .elsewhere, child: .counts, countsUnavailableReason: nil)
        }
    }
}
